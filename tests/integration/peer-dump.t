#!/bin/bash
# SPDX-License-Identifier: MIT
# mkcfs on composefs-dump(5) files as the upstream tools write them: inline
# CONTENT (small files kept in the image upstream) becomes an object, and
# RDEV on a file that is not a device is accepted and dropped. cfs-info dump
# of the image then describes the same tree, field by field, except what
# composefs-dump(5) lists as not kept.
. "$(dirname "$0")/lib.sh"

require_cfs_tools mkcfs cfs-info
require_host_tools fsverity python3
plan 10

mkcfs=$CFS_BIN/mkcfs
info=$CFS_BIN/cfs-info

# Inline contents, written as files to be measured independently.
mkdir "$TMP/c"
printf 'hello\n' >"$TMP/c/hello"
printf 'a b\\c\0\377\n' >"$TMP/c/odd"
head -c 4096 /dev/zero | tr '\0' x >"$TMP/c/page"
digest() { fsverity digest --compact "$TMP/c/$1"; }
objpath() { local d; d=$(digest "$1"); echo "${d:0:2}/${d:2}"; }
big=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef

# As composefs-info dump writes: inline files have CONTENT, no PAYLOAD
# or DIGEST; RDEV is whatever stat gave (here non-zero on a directory, a
# regular file and a fifo).
cat >"$TMP/peer.dump" <<END
/ 4096 40755 3 0 0 0 1695372970.944925700 - - - trusted.overlay.opaque=y
/dir 4096 40700 2 1000 1000 77 5.0 - - - user.a=b\\x3dc
/dir/hello 6 100644 2 1000 1000 0 1695372970.5 - hello\\x0a -
/dir/page 4096 100600 1 0 0 9 7.0 - $(tr -d '\n' <"$TMP/c/page") -
/fifo 0 10644 1 0 0 5 0.0 - - -
/hl 6 @100644 2 1000 1000 0 1695372970.5 /dir/hello hello\\x0a -
/large 70000 100644 1 0 0 0 3.0 ${big:0:2}/${big:2} - $big
/null 0 20666 1 0 0 259 0.0 - - -
/odd 8 100644 1 0 0 0 0.0 - a\\x20b\\\\c\\x00\\xff\\x0a -
/sym 5 120777 1 0 0 0 0.0 dir/x - -
END

# What cfs-info dump must print: objects named by the content's digest,
# RDEV 0 but on the device; directory SIZE is not compared.
cat >"$TMP/want.dump" <<END
/ - 40755 3 0 0 0 1695372970.944925700 - - - trusted.overlay.opaque=y
/dir - 40700 2 1000 1000 0 5.0 - - - user.a=b\\x3dc
/dir/hello 6 100644 2 1000 1000 0 1695372970.5 $(objpath hello) - $(digest hello)
/dir/page 4096 100600 1 0 0 0 7.0 $(objpath page) - $(digest page)
/fifo 0 10644 1 0 0 0 0.0 - - -
/hl 6 @100644 2 1000 1000 0 1695372970.5 /dir/hello - $(digest hello)
/large 70000 100644 1 0 0 0 3.0 ${big:0:2}/${big:2} - $big
/null 0 20666 1 0 0 259 0.0 - - -
/odd 8 100644 1 0 0 0 0.0 $(objpath odd) - $(digest odd)
/sym 5 120777 1 0 0 0 0.0 dir/x - -
END

dir_size_dash() { awk '$3 ~ /^@?40/ { $2 = "-" } { print }' "$@"; }

"$mkcfs" --digest-store "$TMP/store" "$TMP/peer.dump" "$TMP/img" 2>"$TMP/err"
ok $? "mkcfs reads a peer dump with inline CONTENT and RDEV on non-devices"
diag_file "$TMP/err"
"$info" dump "$TMP/img" >"$TMP/got.raw"
ok $? "cfs-info dump of the image"
dir_size_dash "$TMP/got.raw" >"$TMP/got.dump"
diff -u "$TMP/want.dump" "$TMP/got.dump" >"$TMP/diff"
ok $? "the dump shows the peer's tree, field by field (but what is not kept)"
diag_file "$TMP/diff" 40

same=0
for f in hello page odd; do
	cmp -s "$TMP/c/$f" "$TMP/store/$(objpath "$f")" || same=1
done
ok $same "each inline CONTENT is an object in --digest-store, byte for byte"
is "$(find "$TMP/store" -type f -not -path '*/.*' | grep -c '/[0-9a-f][0-9a-f]/')" 3 \
	"and nothing else is (the digest-only file is not stored)"

"$mkcfs" "$TMP/peer.dump" "$TMP/img.nostore" &&
	cmp -s "$TMP/img" "$TMP/img.nostore"
ok $? "without --digest-store the image is the same (digests recorded)"
"$mkcfs" "$TMP/got.raw" "$TMP/img.again" && cmp -s "$TMP/img" "$TMP/img.again"
ok $? "our dump of it makes the same image again"
is "$("$info" missing-objects --basedir "$TMP/store" "$TMP/img")" \
	"${big:0:2}/${big:2}" \
	"the store holds every object the image needs but the digest-only one"

printf '/ 0 40755 2 0 0 0 0.0 - - -\n/f 3 100644 1 0 0 0 0.0 - ab -\n' \
	>"$TMP/short.dump"
"$mkcfs" "$TMP/short.dump" "$TMP/short.img" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "^mkcfs: $TMP/short.dump:2: CONTENT has 2 bytes but SIZE is 3\$" "$TMP/err" &&
	[ ! -e "$TMP/short.img" ]
ok $? "CONTENT shorter than SIZE: FILE:LINE error, no image"
printf '/ 0 40755 2 0 0 0 0.0 - - -\n/d 0 40755 2 0 0 0 0.0 - ab -\n' \
	>"$TMP/dir.dump"
"$mkcfs" "$TMP/dir.dump" "$TMP/dir.img" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "dir.dump:2: CONTENT given for a non-regular file" "$TMP/err"
ok $? "CONTENT on a directory is an error"
