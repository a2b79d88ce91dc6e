#!/bin/bash
# SPDX-License-Identifier: MIT
# A scratch filesystem for the bench's output trees: a fresh ext4 with a
# journal (mkfs.ext4's defaults, as Debian installs ext4) on a loop device
# backed by a sparse file, so that every tool writes to the kind of
# filesystem a Debian host has. Why not the build machine's own: its root is
# an ext4 without a journal, where the inode allocator skips every inode
# freed in the last 60 s (recently_deleted() in fs/ext4/ialloc.c), and a
# bench that deletes each run's tree before the next measures mostly that
# (bench/README.md).
#   bench/scratch-fs.sh make BASE   prints the mount point, made in BASE
#   bench/scratch-fs.sh remove MNT  unmounts it and removes its file
# make exits 1, printing why, where it cannot (not root, no loop device).
set -euo pipefail

die() { echo "scratch-fs: $*" >&2; exit 1; }

make_fs() {
	local base=$1 mnt img dev
	[ "$(id -u)" = 0 ] || die "not root"
	[ -e /dev/loop-control ] || die "no loop devices"
	mnt=$(mktemp -d "$base/cfs-bench-fs.XXXXXX")
	img=$mnt.img
	truncate -s 8G "$img"
	# inode tables and journal written now, not by ext4lazyinit during runs
	if ! mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0,nodiscard \
		"$img" >&2; then
		rm -f "$img"; rmdir "$mnt"; die "mkfs.ext4 failed"
	fi
	# direct I/O: the loop device writes through, as a disk would, instead
	# of copying every block into the host's page cache once more
	if ! dev=$(losetup -f --show --direct-io=on "$img") ||
		! mount "$dev" "$mnt"; then
		[ -n "${dev:-}" ] && losetup -d "$dev"
		rm -f "$img"; rmdir "$mnt"; die "cannot mount a loop device"
	fi
	dumpe2fs -h "$dev" 2>/dev/null | grep -q '^Filesystem features:.*has_journal' ||
		{ remove_fs "$mnt"; die "mkfs.ext4 made no journal"; }
	echo "$mnt"
}

remove_fs() {
	local mnt=$1 dev
	dev=$(findmnt -no SOURCE "$mnt" 2>/dev/null || true)
	umount "$mnt" 2>/dev/null || true
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null || true
	rmdir "$mnt" 2>/dev/null || true
	rm -f "$mnt.img"
}

case ${1:-} in
make) make_fs "${2:?BASE}" ;;
remove) remove_fs "${2:?MNT}" ;;
*) die "usage: scratch-fs.sh make BASE | remove MNT" ;;
esac
