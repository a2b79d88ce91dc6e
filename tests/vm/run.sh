#!/bin/bash
# Boot the composefs test kernel under QEMU (TCG) and run the in-VM suite.
#
#   tests/vm/run.sh [-k BZIMAGE] [-m MODULE] [-t TIMEOUT_S] [-s SUITE_ARGS] [-V]
#
# The host's root is the VM's read-only root (virtio-9p), so the VM runs
# the freshly built tools from this checkout.  A fresh ext4 disk with
# fs-verity serves as scratch space; -V says the kernel has no fs-verity
# (kernel/build.sh noverity): the disk is made without the verity feature,
# and the suite is told (CFS_VM_VERITY=0).  The suite's TAP comes back on the
# second serial port; the kernel log (first port) must stay free of
# BUG/KASAN/UBSAN/WARNING/Oops.  QEMU is always killed on the way out.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
kernel=$repo/build/kernel/bzImage
module=$repo/build/kernel/composefs.ko
limit=${CFS_VM_TIMEOUT:-900}
suite_args=${CFS_VM_SUITE:-all}
verity=1

while getopts k:m:t:s:V opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	m) module=$OPTARG ;;
	t) limit=$OPTARG ;;
	s) suite_args=$OPTARG ;;
	V) verity=0 ;;
	*) exit 2 ;;
	esac
done

for f in "$kernel" "$module"; do
	if [ ! -e "$f" ]; then
		echo "run.sh: $f: missing (run 'make kernel')" >&2
		exit 2
	fi
done
kernel=$(readlink -f "$kernel")
module=$(readlink -f "$module")

. "$repo/scripts/vm/qemu.sh"

vm_workdir /tmp/cfs-vm.XXXXXX "${CFS_VM_KEEP:-}"
[ $verity = 1 ] || vm_scratch_verity=

cmdline="$vm_cmdline oops=panic"
cmdline+=" init=$repo/tests/vm/init.sh CFS_REPO=$repo CFS_MODULE=$module"
cmdline+=" CFS_SUITE=$suite_args CFS_VM_CYCLES=${CFS_VM_CYCLES:-1000}"
cmdline+=" CFS_VM_MUTATIONS=${CFS_VM_MUTATIONS:-300} CFS_VM_VERITY=$verity"

vm_suite "VM suite" "$kernel" "$cmdline" 1G "$limit" \
	'BUG:|KASAN|UBSAN|WARNING:|Oops|Kernel panic|general protection|kmemleak: [0-9]+ new suspected'
