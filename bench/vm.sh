#!/bin/bash
# SPDX-License-Identifier: MIT
# The VM part of `make bench`: composefs against overlayfs, EROFS, plain
# ext4 and a symlink farm, and against podman's pull, inside one QEMU VM
# running the plain test kernel.  See bench/README.md.
#
#   bench/vm.sh [-r RUNS] [-s SECTIONS]      (as root)
#
# Environment: CFS_BENCH_CACHE (/var/cache/cfs-bench), CFS_BENCH_VM_TIMEOUT
# (seconds, 3000), CFS_BENCH_VARIANT (plain; debug for the KASAN kernel),
# CFS_BENCH_VM_KEEP=1 keeps the work directory,
# CFS_BENCH_VM_RAW=FILE also saves the raw result lines.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cache=${CFS_BENCH_CACHE:-/var/cache/cfs-bench}
limit=${CFS_BENCH_VM_TIMEOUT:-3000}
variant=${CFS_BENCH_VARIANT:-plain}
kernel=$repo/build/kernel/$variant/bzImage
module=$repo/build/kernel/$variant/composefs.ko
walk=$repo/build/bench/vm-walk
runs=3
sections=vopen,p2r,podman,mount,walk

die() { echo "bench/vm.sh: $*" >&2; exit 1; }

while getopts r:s: opt; do
	case $opt in
	r) runs=$OPTARG ;;
	s) sections=$OPTARG ;;
	*) exit 2 ;;
	esac
done

[ "$(id -u)" = 0 ] || die "must run as root"
for tool in qemu-system-x86_64 mkfs.ext4 mkfs.erofs podman runc conmon \
	umoci skopeo cc python3; do
	command -v "$tool" >/dev/null || die "$tool is missing"
done
for f in oci2cfs mount.composefs cfs-info; do
	[ -x "$repo/build/bin/$f" ] || die "build/bin/$f missing: run make"
done
if [ ! -e "$kernel" ] || [ ! -e "$module" ] ||
	[ ! -e "${module%/*}/composefs-export.ko" ]; then
	echo "== make kernel KERNEL_VARIANT=$variant" >&2
	make -C "$repo" kernel KERNEL_VARIANT="$variant" >&2 ||
		die "cannot build the $variant kernel"
fi
kernel=$(readlink -f "$kernel")
module=$(readlink -f "$module")

mkdir -p "$repo/build/bench"
cc -O2 -Wall -Wextra -Werror -o "$walk" "$here/vm-walk.c" ||
	die "cannot build vm-walk"

image=$("$here/mkimage.sh" "$cache" | tail -n 1) || die "mkimage.sh failed"
root=$("$here/vm-prep.sh" "$image" "$walk" | tail -n 1) ||
	die "vm-prep.sh failed"

# The bench keeps 9p's cache=none for the root, as its figures so far were
# measured: in one run each, cache=loose (the test VMs') gave a cold cwalk
# of composefs of 1290 ms against 549 ms, not yet explained.
vm_9p_cache=none
. "$repo/scripts/vm/qemu.sh"

vm_workdir /var/tmp/cfs-bench-vm.XXXXXX "${CFS_BENCH_VM_KEEP:-}"

# The disk: the prepared trees plus room for the stores made in the VM.
size=$(($(du -s --block-size=1M "$root" | cut -f1) + 7168))
echo "== disk: ${size} MiB ext4 -O verity, populated from $root" >&2
mkfs.ext4 -q -F -b 4096 -O verity -d "$root" "$tmp/disk.img" "${size}M" ||
	die "mkfs.ext4 -d failed"

cmdline=$vm_cmdline
# Under TCG the guest's TSC counts at the host's TSC rate, but the kernel
# (no HPET/ACPI PM timer) calibrates it badly or marks it unstable, and its
# fallback, jiffies, has 10 ms steps that swallow mount times: give it the
# host's rate and keep it.
tsc_khz=$(awk -F: '/^cpu MHz/ {printf "%d", $2 * 1000; exit}' /proc/cpuinfo)
[ -n "$tsc_khz" ] && cmdline+=" tsc_early_khz=$tsc_khz tsc=reliable"
cmdline+=" init=$here/vm-init.sh"
cmdline+=" CFS_REPO=$repo CFS_MODULE=$module CFS_WALK=$walk"
cmdline+=" CFS_BENCH_RUNS=$runs CFS_BENCH_SECTIONS=$sections"
cmdline+=" CFS_BENCH_LIMIT=$limit"

# One cold block read on the host, O_DIRECT, of the archive the VM's disk
# holds a copy of: set against the VM's own reads of that copy (disk:read),
# it shows what the emulation adds to each read.
host_disk=$("$walk" disk -n 200 "$root/image.oci.tar") || host_disk=

host_load() { cut -d' ' -f1-3 /proc/loadavg; }
other_vms() { pgrep -c qemu-system 2>/dev/null || echo 0; }
load_before=$(host_load)
vms_before=$(other_vms)
start=$SECONDS
echo "== booting the bench VM ($variant kernel, TCG, 1 CPU, 2 GiB)" >&2
vm_start "$kernel" "$cmdline" 2G "$tmp/disk.img" none \
	"$tmp/console.log" "$tmp/results.log" "$tmp/qemu.out"
vms_during=$(($(other_vms) - 1))
vm_wait $((limit + 120)) ||
	echo "bench/vm.sh: VM timed out after $limit s" >&2
elapsed=$((SECONDS - start))

tr -d '\r' <"$tmp/results.log" >"$tmp/results.txt"
[ -n "${CFS_BENCH_VM_RAW:-}" ] && cp "$tmp/results.txt" "$CFS_BENCH_VM_RAW"
{
	echo "# host load before $load_before, after $(host_load);" \
		"other QEMU VMs on the host: $vms_before before, $vms_during at boot"
	echo "# VM wall time ${elapsed} s"
	[ -n "$host_disk" ] && echo "R disk:host $host_disk"
} >>"$tmp/results.txt"
python3 "$here/vm-report.py" "$tmp/results.txt"
status=$?
if ! grep -q '^# suite done' "$tmp/results.txt"; then
	echo "bench/vm.sh: the VM suite did not finish; console tail:" >&2
	tail -n 30 "$tmp/console.log" | tr -d '\r' >&2
	status=1
fi
exit $status
