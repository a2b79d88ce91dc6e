#!/bin/bash
# Generate the composefs patch series kernel/patches/*.patch from the
# sources in kernel/, against Debian's pristine linux-source-6.1, then check
# that it applies with `patch -p1` and that checkpatch.pl --strict is clean.
#
#   kernel/mkpatches.sh [--no-check]
#
# The series is built in a small git repository holding only the files the
# series touches (taken from the pristine tree), one commit per patch, and
# exported with git format-patch.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
kdir=$repo/kernel
cache=${CFS_KCACHE:-/var/cache/cfs-kernel}
tarball=${CFS_KSRC:-/usr/src/linux-source-6.1.tar.xz}
pristine=$cache/linux-source-6.1
out=$kdir/patches
check=1
[ "${1:-}" = --no-check ] && check=0

log() { echo "mkpatches.sh: $*" >&2; }

if [ ! -f "$pristine/Makefile" ]; then
	log "unpacking pristine tree into $pristine"
	mkdir -p "$cache"
	tar -xJf "$tarball" -C "$cache"
fi

work=$(mktemp -d /tmp/cfs-patches.XXXXXX)
# Fixed dates so that regenerating an unchanged series gives the same bytes.
export GIT_AUTHOR_DATE="2023-01-20T00:00:00Z" GIT_COMMITTER_DATE="2023-01-20T00:00:00Z"
trap 'rm -rf "$work"' EXIT
git_=(git -C "$work" -c user.name="cfs developers"
	-c user.email=cfs@example.org -c commit.gpgsign=false)

touched=(fs/Kconfig fs/Makefile fs/verity/measure.c MAINTAINERS
	Documentation/filesystems/index.rst)
for f in "${touched[@]}"; do
	mkdir -p "$work/$(dirname "$f")"
	cp "$pristine/$f" "$work/$f"
done
"${git_[@]}" init -q
"${git_[@]}" add -A
"${git_[@]}" commit -q -m "linux-source-6.1 (pristine subset)"

commit() { # commit SUBJECT BODY
	"${git_[@]}" add -A
	"${git_[@]}" commit -q -s -m "$1" -m "$2"
}

# Insert a line into MAINTAINERS' composefs entry (created by the first use).
maintainers_add() {
	python3 - "$work/MAINTAINERS" "$1" <<'EOF'
import sys
path, line = sys.argv[1], sys.argv[2]
text = open(path).read()
head = 'COMPOSEFS FILESYSTEM\n'
if head not in text:
    entry = (head + 'M:\tcfs developers <cfs@example.org>\n'
             'L:\tlinux-fsdevel@vger.kernel.org\nS:\tMaintained\n\n')
    anchor = 'COMPUTE EXPRESS LINK (CXL)\n'
    text = text.replace(anchor, entry + anchor, 1)
start = text.index(head)
end = text.index('\n\n', start)
lines = text[start:end].split('\n')
lines.append(line)
body = lines[:4] + sorted(lines[4:])
text = text[:start] + '\n'.join(body) + text[end:]
open(path, 'w').write(text)
EOF
}

# 1: fsverity export (the hand-written patch the test kernel is built with)
git -C "$work" apply "$kdir"/series/0001-*.patch
commit "fsverity: export fsverity_get_digest()" \
	"composefs checks, when a backing file is opened, that its fs-verity
digest equals the digest stored in the image.  It can be built as a
module, so export fsverity_get_digest() for it, as is already done for
fsverity_ioctl_measure()."

# 2: the on-disk format header
mkdir -p "$work/include/uapi/linux"
cp "$kdir/include/uapi/linux/composefs.h" "$work/include/uapi/linux/"
maintainers_add "F:	include/uapi/linux/composefs.h"
commit "composefs: Add on-disk layout header" \
	"The composefs image format: a superblock, a table of fixed-size
inodes and a variable data section with sorted directory entries,
backing paths, symlink targets, extended attributes and fs-verity
digests.  The same header is used by the userspace tools."

# 3: the filesystem, with its Kconfig and build hooks
mkdir -p "$work/fs/composefs"
cp "$kdir"/fs/composefs/*.[ch] "$kdir"/fs/composefs/Makefile \
	"$work/fs/composefs/"
# The Kconfig entry goes into fs/Kconfig itself: a `source` line naming
# fs/composefs/Kconfig trips checkpatch's embedded-filename check.
python3 - "$work/fs/Kconfig" "$kdir/fs/composefs/Kconfig" <<'PY'
import sys
kconfig, entry = sys.argv[1], open(sys.argv[2]).read()
entry = entry.split('\n', 2)[2]  # drop the SPDX line and the blank line
text = open(kconfig).read()
anchor = 'source "fs/erofs/Kconfig"\n'
text = text.replace(anchor, anchor + '\n' + entry, 1)
open(kconfig, 'w').write(text)
PY
sed -i 's|^obj-$(CONFIG_EROFS_FS)\t\t+= erofs/$|&\nobj-$(CONFIG_COMPOSEFS_FS)\t+= composefs/|' \
	"$work/fs/Makefile"
maintainers_add "F:	fs/composefs/"
commit "composefs: Add filesystem implementation" \
	"Composefs is a read-only filesystem whose tree and metadata come from
an image file and whose regular file contents are backing files found
in one or more base directories, typically content-addressed object
stores.  Opening a file opens its backing file with the caller's
credentials and, if asked, checks its fs-verity digest against the
image; reads, splice and mmap go to the backing file so its page cache
is shared by every image that names it.

The digest is fsverity_get_digest()'s, exported by the first patch; an
out-of-tree build for a kernel without that export (COMPOSEFS_VERITY=
descriptor) hashes the file's verity descriptor instead, read through
the filesystem's fsverity_operations as fs-verity does.

The image is read through its page cache and validated before use;
violations make the mount fail or the inode read as EFSCORRUPTED, and
are logged with the image's name and the rule broken.  BUILD_BUG_ON
pins every size and offset of the on-disk structures."

# 4: documentation
mkdir -p "$work/Documentation/filesystems"
cp "$kdir/Documentation/filesystems/composefs.rst" \
	"$work/Documentation/filesystems/"
sed -i 's|^   coda$|&\n   composefs|' "$work/Documentation/filesystems/index.rst"
maintainers_add "F:	Documentation/filesystems/composefs.rst"
commit "composefs: Add documentation" \
	"Describe the mount options, the image layout and the verification
model of composefs."

rm -rf "$out"
mkdir -p "$out"
"${git_[@]}" format-patch -q --no-cover-letter -o "$out" HEAD~4
log "wrote $(ls "$out" | wc -l) patches to $out"

[ $check = 1 ] || exit 0

tree=$work/applied
mkdir -p "$tree"
log "checking that the series applies to the pristine tree"
for f in "${touched[@]}"; do
	mkdir -p "$tree/$(dirname "$f")"
	cp "$pristine/$f" "$tree/$f"
done
for p in "$out"/*.patch; do
	patch -s -p1 -d "$tree" <"$p" || {
		log "$(basename "$p") does not apply"
		exit 1
	}
done
status=0
for p in "$out"/*.patch; do
	if ! (cd "$pristine" && scripts/checkpatch.pl --strict -q "$p"); then
		log "checkpatch: $(basename "$p") is not clean"
		status=1
	fi
done
[ $status = 0 ] && log "series applies and checkpatch --strict is clean"
exit $status
