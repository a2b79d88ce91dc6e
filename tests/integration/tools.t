#!/bin/bash
# mkcfs and cfs-info on a real directory tree: store, dump round trips,
# listings, objects, fs-verity digests and error handling.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${CFS_BIN:-$top/build/bin}
mkcfs=$bin/mkcfs
info=$bin/cfs-info
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0
ok() { # ok CONDITION-STATUS NAME
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}
check() { # check NAME COMMAND...
	local name=$1
	shift
	"$@" >/dev/null 2>&1
	ok $? "$name"
}

src=$tmp/src
mkdir -p "$src/sub" "$src/empty dir"
printf 'hello\n' >"$src/a"
head -c 70000 /dev/urandom >"$src/big"
ln "$src/a" "$src/sub/hardlink"
ln -s ../a "$src/sub/link"
mkfifo "$src/fifo"
printf 'spaced\n' >"$src/with space"
: >"$src/empty"
cp "$src/a" "$src/copy-of-a"
python3 -c 'import os, sys
os.setxattr(sys.argv[1], "user.color", b"red = yes")
os.setxattr(sys.argv[2], "user.dir", b"")' "$src/a" "$src/sub"
touch -d '2023-09-22 10:56:10.944925700' "$src/a"

"$mkcfs" --digest-store "$tmp/store" --print-digest "$src" "$tmp/img" \
	>"$tmp/digest" 2>"$tmp/err"
ok $? "mkcfs --digest-store makes an image"
"$info" check "$tmp/img" >"$tmp/out" 2>&1
ok $? "cfs-info check passes"
grep -qx "$tmp/img: ok" "$tmp/out"
ok $? "check prints 'IMAGE: ok'"

"$info" dump "$tmp/img" >"$tmp/dump"
ok $? "cfs-info dump"
grep -q '^/sub/hardlink 6 @100644 2 .* /a - [0-9a-f]\{64\} user.color=red\\x20\\x3d\\x20yes$' "$tmp/dump"
ok $? "dump: hard link line names the first path with @MODE"
grep -q '^/a 6 100644 2 [0-9]* [0-9]* 0 [0-9]*\.944925700 ' "$tmp/dump"
ok $? "dump: nanosecond mtime printed as SEC.NSEC"
grep -q '^/fifo 0 10644 1 ' "$tmp/dump" &&
	grep -q '^/sub/link 4 120777 1 .* \.\./a - -$' "$tmp/dump"
ok $? "dump: fifo and symlink lines"
grep -q '^/with\\x20space 7 ' "$tmp/dump" && grep -q '^/empty\\x20dir ' "$tmp/dump"
ok $? "dump: names with spaces escaped"
grep -q '^/sub .* user.dir=$' "$tmp/dump"
ok $? "dump: empty xattr value on a directory"

"$info" ls "$tmp/img" >"$tmp/ls"
grep -qx '/sub/link -> ../a' "$tmp/ls" &&
	grep -q '^/with\\x20space @ [0-9a-f][0-9a-f]/[0-9a-f]\{62\}$' "$tmp/ls" &&
	grep -qx '/fifo' "$tmp/ls" && [ "$(wc -l <"$tmp/ls")" -eq 11 ]
ok $? "ls: every path, symlink targets and backing paths"

"$info" objects "$tmp/img" "$tmp/img" >"$tmp/objects"
[ "$(wc -l <"$tmp/objects")" -eq 3 ] && sort -c "$tmp/objects"
ok $? "objects: 3 unique sorted backing paths over two images"
all=0
while read -r o; do [ -f "$tmp/store/$o" ] || all=1; done <"$tmp/objects"
ok $all "objects: every object is in the store"
"$info" missing-objects --basedir "$tmp/store" "$tmp/img" >"$tmp/missing"
ok $? "missing-objects exits 0"
[ ! -s "$tmp/missing" ]
ok $? "missing-objects: none missing from the filled store"
mkdir "$tmp/partial"
first=$(head -n1 "$tmp/objects")
mkdir -p "$tmp/partial/${first%%/*}" && cp "$tmp/store/$first" "$tmp/partial/$first"
"$info" missing-objects --basedir "$tmp/partial" "$tmp/img" >"$tmp/missing"
[ "$(cat "$tmp/missing")" = "$(tail -n +2 "$tmp/objects")" ]
ok $? "missing-objects: lists exactly the absent objects"
# As the kernel resolves it: the store is the root for a symlink in it.
second=$(sed -n 2p "$tmp/objects")
mkdir -p "$tmp/outside/${second%%/*}" &&
	cp "$tmp/store/$second" "$tmp/outside/$second" &&
	ln -s "$tmp/outside/${second%%/*}" "$tmp/partial/${second%%/*}"
"$info" missing-objects --basedir "$tmp/partial" "$tmp/img" >"$tmp/missing"
[ "$(cat "$tmp/missing")" = "$(tail -n +2 "$tmp/objects")" ]
ok $? "missing-objects: an object a symlink puts outside the store is missing"

"$info" measure "$tmp/img" "$src/big" >"$tmp/measure"
ok $? "measure"
[ "$(head -n1 "$tmp/measure")" = "$(cat "$tmp/digest") $tmp/img" ]
ok $? "--print-digest equals cfs-info measure of the image"
big_obj=$(awk '$1 == "/big" { print $9 }' "$tmp/dump")
[ "$(sed -n 2p "$tmp/measure" | cut -d' ' -f1)" = "${big_obj/\//}" ]
ok $? "measure of a file equals the name of its object"
if command -v fsverity >/dev/null; then
	fsverity digest "$tmp/img" "$src/big" | sed 's/^sha256://' >"$tmp/fsv"
	cmp -s "$tmp/fsv" "$tmp/measure"
	ok $? "measure agrees with fsverity digest"
else
	echo "ok $((n += 1)) # SKIP fsverity not installed"
fi

"$mkcfs" "$tmp/dump" "$tmp/img2" && cmp -s "$tmp/img" "$tmp/img2"
ok $? "dump -> mkcfs gives a byte-identical image"
"$mkcfs" --from-file - "$tmp/img3" <"$tmp/dump" && cmp -s "$tmp/img" "$tmp/img3"
ok $? "dump on stdin -> mkcfs gives a byte-identical image"
"$info" dump - <"$tmp/img" | cmp -s - "$tmp/dump"
ok $? "cfs-info dump reads the image from stdin"
"$mkcfs" --sync=none "$src" "$tmp/img4" && cmp -s "$tmp/img" "$tmp/img4"
ok $? "without a store the image is the same (objects named by digest)"
"$mkcfs" "$src" - | cmp -s - "$tmp/img"
ok $? "IMAGE '-' writes the image to stdout"

"$mkcfs" --use-epoch --skip-xattrs "$src" "$tmp/epoch" &&
	"$info" dump "$tmp/epoch" >"$tmp/epoch.dump"
ok $? "mkcfs --use-epoch --skip-xattrs"
! awk '$8 != "0.0" || NF != 11 { bad = 1 } END { exit !bad }' "$tmp/epoch.dump"
ok $? "--use-epoch zeroes mtimes, --skip-xattrs drops xattrs"
"$mkcfs" --use-epoch --skip-xattrs "$tmp/dump" "$tmp/epoch2" &&
	cmp -s "$tmp/epoch" "$tmp/epoch2"
ok $? "the same options on a dump source give the same image"

"$info" check "$tmp/nonexistent" >"$tmp/out" 2>&1
[ $? -eq 1 ] && grep -q "^cfs-info: $tmp/nonexistent: " "$tmp/out"
ok $? "check of a missing image fails naming the file"
cp "$tmp/img" "$tmp/corrupt"
printf '\xff\xff\xff\xff' | dd of="$tmp/corrupt" bs=1 seek=128 conv=notrunc 2>/dev/null
"$info" check "$tmp/img" "$tmp/corrupt" >"$tmp/out" 2>&1
[ $? -eq 1 ] && grep -q "^cfs-info: $tmp/corrupt: corrupt image" "$tmp/out" &&
	grep -qx "$tmp/img: ok" "$tmp/out"
ok $? "check of a corrupt image exits 1 with a message naming it"
head -c 100 "$tmp/img" >"$tmp/short"
"$info" dump "$tmp/short" >/dev/null 2>"$tmp/out"
[ $? -eq 1 ] && grep -q "$tmp/short: corrupt image" "$tmp/out"
ok $? "dump of a truncated image fails cleanly"

printf '/ 0 40755 2 0 0 0 0.0 - - -\n/x/y 0 100644 1 0 0 0 0.0 - - -\n' >"$tmp/bad.dump"
"$mkcfs" "$tmp/bad.dump" "$tmp/bad.img" 2>"$tmp/out"
[ $? -eq 1 ] && grep -q "^mkcfs: $tmp/bad.dump:2: parent directory '/x'" "$tmp/out" &&
	[ ! -e "$tmp/bad.img" ]
ok $? "mkcfs on a bad dump names FILE:LINE and leaves no image"
(cd "$tmp/store" && find . | sort) >"$tmp/before"
"$mkcfs" --digest-store "$tmp/store" "$tmp/dump" "$tmp/x.img" &&
	cmp -s "$tmp/img" "$tmp/x.img" &&
	(cd "$tmp/store" && find . | sort) | cmp -s - "$tmp/before"
ok $? "--digest-store with a dump without inline CONTENT stores nothing"
"$mkcfs" "$src" "$tmp/no/such/dir/img" 2>"$tmp/out"
[ $? -eq 1 ] && grep -q "^mkcfs: .*$tmp/no/such/dir" "$tmp/out"
ok $? "mkcfs into a missing directory fails"
"$mkcfs" --sync=sometimes "$src" "$tmp/y.img" 2>/dev/null
[ $? -eq 2 ] && [ ! -e "$tmp/y.img" ]
ok $? "bad --sync value is a usage error"
"$info" frobnicate 2>/dev/null
[ $? -eq 2 ]
ok $? "unknown cfs-info command is a usage error"

mkdir "$tmp/mnt" "$tmp/mnt/m"
if mount -t tmpfs cfs-test "$tmp/mnt/m" 2>/dev/null; then
	"$mkcfs" "$tmp/mnt/" "$tmp/m.img" 2>"$tmp/out"
	rc=$?
	umount "$tmp/mnt/m"
	[ $rc -eq 1 ] && grep -q "^mkcfs: $tmp/mnt/m: is a mount point" "$tmp/out" &&
		[ ! -e "$tmp/m.img" ]
	ok $? "mkcfs refuses to cross a mount point, naming it"
else
	echo "ok $((n += 1)) # SKIP cannot mount tmpfs"
fi

man_ok=0
for c in dump ls objects missing-objects check measure; do
	"$info" --help | grep -q "^  $c " || man_ok=1
	grep -q "^\.B $c\$\|^\.BR\? $c " "$top/man/cfs-info.1" || man_ok=1
done
for o in digest-store from-file print-digest use-epoch skip-xattrs sync; do
	"$mkcfs" --help | grep -q -- "--$o" || man_ok=1
	# man(7) spells an option's hyphens \-
	grep -qF -- "-${o//-/\\-}" "$top/man/mkcfs.1" || man_ok=1
done
ok $man_ok "every command and option in --help is in the man pages"

# -j/--threads and cfs-store's --jobs: a whole number in range, else one
# "TOOL: --OPTION: what is wrong" line and the usage-error status 2.
for bad in x 3x '' ' 3' 0 -1 257 99999999999999999999; do
	"$bin/oci2cfs" --threads="$bad" "$tmp/none.tar" >"$tmp/out" 2>&1
	rc=$?
	first=$(head -n1 "$tmp/out")
	case $bad in
	[0-9]* | -*) want="oci2cfs: --threads: out of range (1 to 256): $bad" ;;
	*) want="oci2cfs: --threads: not a number: $bad" ;;
	esac
	[ "$bad" = 3x ] && want="oci2cfs: --threads: not a number: 3x"
	[ $rc -eq 2 ] && [ "$first" = "$want" ]
	ok $? "oci2cfs --threads='$bad': exit 2, '$want' (got $rc, '$first')"
done
"$bin/cfs-store" --store "$tmp" fsck --jobs 2x >"$tmp/out" 2>&1
[ $? -eq 2 ] && [ "$(head -n1 "$tmp/out")" = "cfs-store: --jobs: not a number: 2x" ]
ok $? "cfs-store --jobs 2x: exit 2, 'cfs-store: --jobs: not a number: 2x'"
"$bin/cfs-store" --store "$tmp" fsck -j 0 >"$tmp/out" 2>&1
[ $? -eq 2 ] && grep -qx "cfs-store: --jobs: out of range (1 to 256): 0" "$tmp/out"
ok $? "cfs-store -j 0: exit 2, out of range"

# --version: "TOOL VERSION", VERSION as debian/changelog's first line has it
# (without the Debian revision), listed in --help and the man page.
version=$(sed -n '1s/^[^(]*(\([^)-]*\).*/\1/p' "$top/debian/changelog")
ln -s "$bin/mount.composefs" "$tmp/umount.composefs"
for t in oci2cfs cfs-info mkcfs mount.composefs cfs-podman cfs-store \
	cfs-seal umount.composefs; do
	exe=$bin/$t
	[ "$t" = umount.composefs ] && exe=$tmp/umount.composefs
	out=$("$exe" --version 2>&1)
	[ $? -eq 0 ] && [ -n "$version" ] && [ "$out" = "$t $version" ]
	ok $? "$t --version prints '$t $version' (got '$out')"
	[ "$t" = umount.composefs ] && continue
	"$exe" --help | grep -q -- '--version' &&
		grep -q -- '-\\-version' "$top"/man/"$t".[18]
	ok $? "$t: --version in --help and in the man page"
done

echo "1..$n"
[ "$failed" -eq 0 ]
