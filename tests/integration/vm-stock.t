#!/bin/bash
# SPDX-License-Identifier: MIT
# The stock-kernel QEMU tier: cfs as a Debian 12 user gets it, on the
# kernel that user runs. `make deb` builds the cfs and composefs-dkms
# packages; tests/vm/stock/fetch.sh fetches the current bookworm
# linux-image-amd64 and its headers (cached in /var/cache/cfs-kernel/stock,
# never installed on the host); dkms-build.sh builds composefs.ko for that
# kernel on the host with DKMS from the composefs-dkms package; run.sh
# boots the kernel under qemu-system-x86_64 -accel tcg with a busybox
# initramfs and the host's root (read-only, 9p) under a tmpfs overlay,
# where `dpkg -i` installs both packages and the module is loaded only by
# `mount -t composefs` (its fs-composefs alias). The suite's sections then
# run on the installed tools and mount helper.
#
# What each QEMU tier covers (all three run in `make check`; sections that
# run in two look for different bugs in each):
# - this tier (Debian's kernel and its own ext4/btrfs/overlay, no debug
#   options; fast): the packages and DKMS (dpkg -i, dkms status, the
#   module loaded by the first mount), verity (a replaced object reads
#   EIO, a wrong digest= is refused, with the digest taken from the verity
#   descriptor as on any distribution kernel), backing (btrfs and xfs
#   stores, btrfs fs-verity), hostile and mutate (corrupt images: an
#   error, never an oops), fixtures (every fixture's tree equal to umoci's
#   unpack), e2e (registry pull, oci2cfs on the verity ext4, mount by NAME
#   with store=/verity and digest=, fstab and mount -a, upperdir writes,
#   the failure paths, the module unloaded and loaded again by a mount),
#   podman (cfs-podman images run by podman 4.3.1; this tier only),
#   podman-gc (cfs-store gc and fsck on the verity store while a podman
#   container of another image reads every file; this tier only), a
#   clean kernel log and no taint but the out-of-tree module's (O, E).
# - tests/integration/vm.t (the debug test kernel: KASAN, UBSAN,
#   kmemleak): the sections that stress the kernel code, where those
#   checkers see bugs this tier cannot: basic, verity, overlay, tmpfs,
#   hostile, cycles (kmemleak), veritydigest, backing, fixtures, e2e.
# - tests/integration/vm-noverity.t (a small kernel without fs-verity,
#   kernel/build.sh noverity; a few minutes): the noverity section, as
#   both kernels above have fs-verity: digest= and verity_check=1|2 are
#   refused at mount ("need a kernel with fs-verity"), verity_check=0 and
#   no option mount and read, mount.composefs fails with one line.
# CFS_STOCK_SECTIONS overrides this tier's sections.
. "$(dirname "$0")/lib.sh"
top=$TOP
stock=$top/tests/vm/stock
out=$top/build/stock

give_up() { # NAME LOG: one not-ok with the log's tail, and the plan
	ok 1 "$1"
	diag_file <(tail -n 30 "$2")
	done_testing
}

# The sections this tier runs: each must be one the suite has (a typo
# would otherwise run nothing, or everything).
sections=${CFS_STOCK_SECTIONS:-verity,backing,hostile,fixtures,e2e,podman,podman-gc}
missing=$(vm_missing_sections "$sections")
[ -z "$missing" ] ||
	give_up "sections the suite does not have: $missing" /dev/null

mkdir -p "$out"
t0=$SECONDS
make -s -C "$top" deb DEBDIR="$out/deb" >"$out/deb.log" 2>&1 ||
	give_up "make deb: the cfs and composefs-dkms packages" "$out/deb.log"
ok 0 "make deb: the cfs and composefs-dkms packages ($((SECONDS - t0)) s)"

t0=$SECONDS
dir=$("$stock/fetch.sh" 2>"$out/fetch.log") ||
	give_up "fetch Debian's linux-image-amd64 and headers" "$out/fetch.log"
release=$(cat "$dir/release")
ok 0 "fetch Debian's kernel $release ($(basename "$dir")) into $dir ($((SECONDS - t0)) s)"

t0=$SECONDS
"$stock/dkms-build.sh" "$out"/deb/composefs-dkms_*.deb "$dir" "$out/dkms" \
	>"$out/dkms-build.log" 2>&1 ||
	give_up "DKMS builds composefs.ko for $release on the host" "$out/dkms-build.log"
ok 0 "DKMS builds composefs.ko for $release on the host ($((SECONDS - t0)) s)"

# The fixtures and their reference dumps, built on the host as vm.t does
# (the VM's root is read-only); a failure shows in the sections' lines.
vm_fixtures >"$out/fixtures.log" 2>&1 ||
	echo "# building the fixtures failed: see $out/fixtures.log"

"$stock/run.sh" -d "$out/deb" -b "$(echo "$out"/dkms/*.dkms.tar.gz)" \
	-t "${CFS_VM_TIMEOUT:-3000}" -s "$sections" >"$out/vm.tap" 2>&1
tap_include tests/vm/stock/run.sh $? "$out/vm.tap"
done_testing
