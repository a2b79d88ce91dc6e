#!/bin/bash
# Boot Debian 12's own kernel (linux-image-amd64, fetch.sh) under QEMU
# (TCG) and run the stock-kernel suite: dpkg -i of the packages in DEBS,
# then the suite's SECTIONS on the installed tools (init.sh).
#
#   tests/vm/stock/run.sh -d DEBS [-b DKMS_TARBALL] [-s SECTIONS] [-t TIMEOUT_S]
#
# DKMS_TARBALL: the module as dkms-build.sh built it on the host, installed
# by the package's postinst; without it DKMS compiles it in the VM.
#
# TAP on stdout, as tests/vm/run.sh: the VM's lines, then whether the
# suite ran to the end and whether the kernel log is clean.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../../.." && pwd)
here=$repo/tests/vm/stock
debs=
tarball=
limit=${CFS_VM_TIMEOUT:-3000}
suite_args=${CFS_VM_SUITE:-all}

while getopts d:b:t:s: opt; do
	case $opt in
	d) debs=$OPTARG ;;
	b) tarball=$(readlink -f "$OPTARG") ;;
	t) limit=$OPTARG ;;
	s) suite_args=$OPTARG ;;
	*) exit 2 ;;
	esac
done
if [ -z "$debs" ] || [ ! -d "$debs" ]; then
	echo "stock/run.sh: -d DEBS: a directory with the cfs and composefs-dkms packages" >&2
	exit 2
fi
debs=$(readlink -f "$debs")

dir=$("$here/fetch.sh") || exit 2
release=$(cat "$dir/release")

. "$repo/scripts/vm/qemu.sh"

vm_workdir /tmp/cfs-stock-vm.XXXXXX "${CFS_VM_KEEP:-}"
"$here/initramfs.sh" "$dir" "$tmp/initrd.gz" || exit 2
vm_initrd=$tmp/initrd.gz
# The unpacked packages, a second 9p share: rdinit.sh's lower layer.
vm_extra=(-virtfs "local,path=$dir/root,mount_tag=pkg,security_model=none,readonly=on,multidevs=remap")

cmdline="console=ttyS0 panic=-1 reboot=k oops=panic"
cmdline+=" CFS_REPO=$repo CFS_INIT=$here/init.sh"
cmdline+=" CFS_DEBS=$debs CFS_SUITE=$suite_args"
[ -n "$tarball" ] && cmdline+=" CFS_DKMS_TARBALL=$tarball"
cmdline+=" CFS_VM_CYCLES=${CFS_VM_CYCLES:-1000}"
cmdline+=" CFS_VM_MUTATIONS=${CFS_VM_MUTATIONS:-300}"

echo "# Debian kernel $release from $dir"
vm_suite "stock-kernel VM suite" "$dir/root/boot/vmlinuz-$release" \
	"$cmdline" 2G "$limit" \
	'BUG:|WARNING:|Oops|Kernel panic|general protection|Call Trace:'
