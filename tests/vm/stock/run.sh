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
case $debs/ in /tmp/*)
	# the VM mounts a tmpfs on /tmp: the host's /tmp is out of its sight
	echo "stock/run.sh: -d $debs: the VM cannot see the host's /tmp" >&2
	exit 2
	;;
esac

dir=$("$here/fetch.sh") || exit 2
release=$(cat "$dir/release")

. "$repo/tests/vm/qemu.sh"

vm_workdir /tmp/cfs-stock-vm.XXXXXX "${CFS_VM_KEEP:-}"
"$here/initramfs.sh" "$dir" "$tmp/initrd.gz" || exit 2
vm_initrd=$tmp/initrd.gz
# The unpacked packages, a second 9p share: rdinit.sh's lower layer.
vm_extra=(-virtfs "local,path=$dir/root,mount_tag=pkg,security_model=none,readonly=on,multidevs=remap")

truncate -s 1G "$tmp/scratch.img"
mkfs.ext4 -q -F -b 4096 -O verity "$tmp/scratch.img" || exit 2
: >"$tmp/console.log"
: >"$tmp/tap.log"

cmdline="console=ttyS0 panic=-1 reboot=k oops=panic"
cmdline+=" CFS_REPO=$repo CFS_INIT=$here/init.sh"
cmdline+=" CFS_DEBS=$debs CFS_SUITE=$suite_args"
[ -n "$tarball" ] && cmdline+=" CFS_DKMS_TARBALL=$tarball"
cmdline+=" CFS_VM_CYCLES=${CFS_VM_CYCLES:-1000}"
cmdline+=" CFS_VM_MUTATIONS=${CFS_VM_MUTATIONS:-300}"

echo "# Debian kernel $release from $dir"
start=$SECONDS
timed_out=0
vm_start "$dir/root/boot/vmlinuz-$release" "$cmdline" 2G "$tmp/scratch.img" \
	unsafe "$tmp/console.log" "$tmp/tap.log" "$tmp/qemu.out"
vm_wait "$limit" || timed_out=1

tr -d '\r' <"$tmp/tap.log" >"$tmp/tap.txt"
grep -E '^(ok|not ok|#)' "$tmp/tap.txt"
n=$(grep -cE '^(ok|not ok)' "$tmp/tap.txt")

n=$((n + 1))
if grep -q '^# suite done' "$tmp/tap.txt" && [ $timed_out = 0 ]; then
	echo "ok $n - stock-kernel VM suite ran to the end ($((SECONDS - start)) s)"
else
	echo "not ok $n - stock-kernel VM suite did not finish (timeout ${limit}s: $timed_out)"
	tail -n 40 "$tmp/console.log" | tr -d '\r' | sed 's/^/# console: /'
	sed 's/^/# qemu: /' "$tmp/qemu.out"
fi

n=$((n + 1))
bad='BUG:|WARNING:|Oops|Kernel panic|general protection|Call Trace:'
if grep -qE "$bad" "$tmp/console.log"; then
	echo "not ok $n - kernel log clean (no WARN, BUG, oops)"
	tr -d '\r' <"$tmp/console.log" | grep -E -A 20 "$bad" | head -n 80 |
		sed 's/^/# kernel: /'
else
	echo "ok $n - kernel log clean (no WARN, BUG, oops)"
fi
if [ -n "${CFS_VM_LOG:-}" ]; then
	tr -d '\r' <"$tmp/console.log" >"$CFS_VM_LOG"
fi
echo "1..$n"
