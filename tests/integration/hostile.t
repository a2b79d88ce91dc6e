#!/bin/bash
# SPDX-License-Identifier: MIT
# oci2cfs against images made by an attacker (issue 18): no program run,
# no forged message line, the rm a; mkdir a layer as umoci unpacks it, a
# wide directory in reverse order, an index tree that fans out, and blobs
# that are FIFOs or symlinks out of the layout. Each runs under a time
# limit (and the fan-out under a memory limit).
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs cfs-info
require_root "umoci unpack keeps owners only as root"
require_host_tools umoci python3 timeout prlimit

HOSTILE=$TOP/oci-fixtures/hostile.py
EVIL=$'x\n\x1b]0;pwned\x07\nFAKE: image converted'
S=$TMP/store

mk() { # KIND OUT ARGS...
	local kind=$1 out=$2
	shift 2
	PYTHONDONTWRITEBYTECODE=1 python3 "$HOSTILE" "$kind" "$out" "$@" ||
		bail "hostile.py $kind failed"
}

# oci2cfs under a time limit; stdout in NAME.out, stderr in NAME.err.
run() { # NAME SECONDS ARGS...
	local name=$1 secs=$2
	shift 2
	timeout -k 5 "$secs" "$CFS_BIN/oci2cfs" "$@" >"$TMP/$name.out" \
		2>"$TMP/$name.err"
}

# The error is one line of printable ASCII, and names WHAT.
one_printable_line() { # NAME WHAT
	local n
	n=$(wc -l <"$TMP/$1.err")
	LC_ALL=C grep -q '[^ -~]' "$TMP/$1.err"
	[ $? -ne 0 ] && [ "$n" -eq 1 ] && grep -qF -- "$2" "$TMP/$1.err" &&
		! grep -q '^FAKE' "$TMP/$1.err"
}

# 1. A layer compressed with lzop or grzip runs no program.
mkdir -p "$TMP/bin"
for p in lzop grzip lrzip lz4 gzip zstd bzip2 xz; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/ran"\nexit 1\n' "$p" "$TMP" \
		>"$TMP/bin/$p"
	chmod +x "$TMP/bin/$p"
done
for kind in lzop grzip lrzip lz4; do
	mk compressed "$TMP/$kind" "$kind"
	PATH=$TMP/bin:$PATH run "$kind" 30 "$TMP/$kind" --ref x --store "$S" -q
	st=$?
	[ $st -ne 0 ] && [ $st -lt 124 ] &&
		grep -q "layer sha256:[0-9a-f]*: unsupported compression $kind" \
			"$TMP/$kind.err"
	ok $? "$kind layer: refused, naming the layer and the compression" ||
		diag_file "$TMP/$kind.err"
done
[ ! -e "$TMP/ran" ]
ok $? "no program was run for any layer" || diag_file "$TMP/ran"

# ... nor for an oci-archive whose outer tar is compressed with lzop.
{ printf '\x89LZO\0\r\n\x1a\n'; head -c 4096 /dev/zero; } >"$TMP/outer.tar"
PATH=$TMP/bin:$PATH run outer 30 "$TMP/outer.tar" --store "$S" -q
[ $? -ne 0 ] && [ ! -e "$TMP/ran" ] && [ "$(wc -l <"$TMP/outer.err")" -eq 1 ]
ok $? "an lzop-compressed archive is refused without running lzop" ||
	{ diag_file "$TMP/outer.err"; diag_file "$TMP/ran"; }

# 2. Names with a newline, terminal escapes and a forged line.
mk names "$TMP/names"
run hardlink 30 "$TMP/names" --ref hardlink --store "$S" -q
one_printable_line hardlink 'hard link target x\x0a\x1b]0;pwned\x07\x0aFAKE: image converted not found'
ok $? "hard link target: escaped, one line" || diag_file "$TMP/hardlink.err"
run symlink 30 "$TMP/names" --ref symlink --store "$S" -q
one_printable_line symlink 'x\x0a\x1b]0;pwned\x07\x0aFAKE: image converted: symlink target'
ok $? "entry name in a layer error: escaped, one line" ||
	diag_file "$TMP/symlink.err"
run notdir 30 "$TMP/names" --ref notdir --store "$S" -q
one_printable_line notdir 'converted/under: x\x0a'
ok $? "path in an apply error: escaped, one line" || diag_file "$TMP/notdir.err"
run badref 30 "$TMP/names" --ref "$EVIL-no" --store "$S" -q
one_printable_line badref "notdir, symlink, x\\x0a\\x1b]0;pwned"
ok $? "refs (given and in the index) in a selection error: escaped" ||
	diag_file "$TMP/badref.err"
run evilref 30 "$TMP/names" --ref "$EVIL" --store "$S" -q --json
one_printable_line evilref "invalid image name for a ref: 'x\\x0a"
ok $? "an image ref with control characters is not made a ref file" ||
	diag_file "$TMP/evilref.err"
run jsonref 30 "$TMP/names" --ref 'j"s\on' --store "$S" --json
st=$?
python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
assert j["ref"] == sys.argv[2], j["ref"]' "$TMP/jsonref.out" 'j"s\on' &&
	[ $st -eq 0 ] && ! LC_ALL=C grep -q '[^ -~]' "$TMP/jsonref.out"
ok $? "--json with an image-controlled ref is valid, printable JSON" ||
	{ diag_file "$TMP/jsonref.out"; diag_file "$TMP/jsonref.err"; }
! LC_ALL=C grep -q '[^ -~]' "$TMP/jsonref.err"
ok $? "progress output holds only printable text" ||
	diag_file "$TMP/jsonref.err"
m=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["manifest"])' \
	"$TMP/jsonref.out")
for cmd in ls dump; do
	"$CFS_BIN/cfs-info" "$cmd" "$m" >"$TMP/$cmd.out" 2>&1
	[ "$(grep -c 'FAKE' "$TMP/$cmd.out")" -eq 1 ] &&
		! grep -q '^FAKE' "$TMP/$cmd.out" &&
		! LC_ALL=C grep -q '[^ -~]' "$TMP/$cmd.out"
	ok $? "cfs-info $cmd prints a hostile file name escaped, on one line" ||
		diag_file "$TMP/$cmd.out"
done
mk mediatype "$TMP/mt"
run mediatype 30 "$TMP/mt" --store "$S" -q
one_printable_line mediatype 'unsupported manifest media type x\x0a'
ok $? "a media type in an index error: escaped, one line" ||
	diag_file "$TMP/mediatype.err"

# ... and in mkcfs, from a dump (names escaped there as \xXY).
printf '/ 0 40755 2 0 0 0 0.0 - - -\n/a 0 @100644 1 0 0 0 0.0 /x\\x0aFAKE:\\x20image\\x20converted\\x1b]0;t\\x07 - -\n' \
	>"$TMP/evil.dump"
"$CFS_BIN/mkcfs" --from-file "$TMP/evil.dump" "$TMP/evil.cfs" \
	2>"$TMP/mkcfs.err"
[ $? -ne 0 ] && one_printable_line mkcfs 'x\x0aFAKE: image converted\x1b]0;t\x07'
ok $? "mkcfs: a hard link target from a dump, escaped, one line" ||
	diag_file "$TMP/mkcfs.err"

# 3. rm a; mkdir a: the directory replaces the file, as with umoci.
mk replaced "$TMP/replaced"
run replaced 60 "$TMP/replaced" --ref replaced --store "$S" -q
ok $? "a layer replacing a file by an opaque directory converts" ||
	diag_file "$TMP/replaced.err"
m=$(head -n1 "$TMP/replaced.out")
if [ -f "$m" ] && reference_dump "$TMP/replaced" replaced "$TMP/ref.dump"; then
	cfs_dump_normalised "$m" "$TMP/ours.dump" &&
		diff -u "$TMP/ref.dump" "$TMP/ours.dump" >"$TMP/replaced.diff"
	ok $? "its dump equals umoci unpack's" || diag_file "$TMP/replaced.diff"
	grep -q '^/a/new ' "$TMP/ours.dump" && grep -q '^/a 0 40755 ' "$TMP/ours.dump"
	ok $? "a is a directory holding new" || diag_file "$TMP/ours.dump"
else
	skip 2 "no manifest or no reference"
fi

# 4. A wide directory in descending order: built in n log n, not n^2 (the
# bench measures files per second; here only a generous limit).
mk wide "$TMP/wide" 300000 desc
run wide 300 "$TMP/wide" --ref wide --store "$S" -q
st=$?
ok $st "300,000 entries of one directory in descending order convert (status $st)" ||
	diag_file "$TMP/wide.err"
rm -rf "$TMP/wide"

# 5. An index tree that fans out: refused quickly, in bounded memory.
mk fanout "$TMP/fan" 100
run fan 10 "$TMP/fan" --ref fan --store "$S" -q
rc=$?
[ $rc -ne 0 ] && [ $rc -lt 124 ]
ok $? "a fanned-out index tree is refused (status $rc)"
one_printable_line fan "more than 10000 entries"
ok $? "with a one-line error" || diag_file "$TMP/fan.err"
# ASan reserves terabytes of address space: limit the plain build instead.
plain_bin=$CFS_BIN
case $CFS_BIN in */san/bin) plain_bin=${CFS_BIN%/san/bin}/bin ;; esac
prlimit --as=$((100 << 20)) -- timeout -k 2 2 "$plain_bin/oci2cfs" "$TMP/fan" \
	--ref fan --store "$S" -q 2>"$TMP/fan2.err"
rc=$?
[ $rc -eq 1 ] && grep -q "more than 10000 entries" "$TMP/fan2.err"
ok $? "within 2 s and 100 MiB of address space (status $rc)" ||
	diag_file "$TMP/fan2.err"

# ... while a nested index listed twice is read once, under both refs.
mk twotags "$TMP/two"
run two 30 "$TMP/two" --ref two --store "$S" -q
ok $? "a nested index listed twice: the second listing's ref selects it" ||
	diag_file "$TMP/two.err"
run two-none 30 "$TMP/two" --ref three --store "$S" -q
grep -q "(available: one, two)" "$TMP/two-none.err"
ok $? "and both refs are listed" || diag_file "$TMP/two-none.err"

# 6. Blobs that are FIFOs, or symlinks out of the layout.
mk replaced "$TMP/fifo"
layer=$(python3 - "$TMP/fifo" <<'EOF'
import json, os, sys
d = sys.argv[1]
idx = json.load(open(os.path.join(d, "index.json")))
m = json.load(open(os.path.join(d, "blobs/sha256",
                                idx["manifests"][0]["digest"][7:])))
print(m["layers"][1]["digest"][7:])
EOF
)
cp -r "$TMP/fifo" "$TMP/outside"
rm "$TMP/fifo/blobs/sha256/$layer"
mkfifo "$TMP/fifo/blobs/sha256/$layer"
run fifo 10 "$TMP/fifo" --ref replaced --store "$S" -q
rc=$?
[ $rc -ne 0 ] && [ $rc -lt 124 ]
ok $? "a FIFO blob does not block (status $rc)"
one_printable_line fifo "$layer: not a regular file"
ok $? "it is refused as not a regular file" || diag_file "$TMP/fifo.err"

cp -r "$TMP/outside" "$TMP/link"
rm "$TMP/link/blobs/sha256/$layer"
ln -s "$TMP/outside/blobs/sha256/$layer" "$TMP/link/blobs/sha256/$layer"
run link 10 "$TMP/link" --ref replaced --store "$S" -q
rc=$?
[ $rc -ne 0 ] && [ $rc -lt 124 ]
ok $? "a blob that is a symlink out of the layout is refused (status $rc)"
one_printable_line link "outside the image directory"
ok $? "saying it is outside the layout" || diag_file "$TMP/link.err"

rm "$TMP/link/blobs/sha256/$layer"
ln -s "../../../outside/blobs/sha256/$layer" "$TMP/link/blobs/sha256/$layer"
run link2 10 "$TMP/link" --ref replaced --store "$S" -q
one_printable_line link2 "outside the image directory"
ok $? "also through a relative symlink with .." || diag_file "$TMP/link2.err"

mkfifo "$TMP/fifo/blobs/sha256/$(printf '%064d' 0)"
python3 - "$TMP/fifo" <<'EOF'
import json, os, sys
d = sys.argv[1]
p = os.path.join(d, "index.json")
idx = json.load(open(p))
idx["manifests"][0]["digest"] = "sha256:" + "0" * 64
json.dump(idx, open(p, "w"))
EOF
run fifo-manifest 10 "$TMP/fifo" --ref replaced --store "$S" -q
rc=$?
[ $rc -ne 0 ] && [ $rc -lt 124 ] && grep -q "not a regular file" "$TMP/fifo-manifest.err"
ok $? "a FIFO manifest blob does not block either (status $rc)" ||
	diag_file "$TMP/fifo-manifest.err"

done_testing
