#!/bin/bash
# SPDX-License-Identifier: MIT
# oci2cfs against an independent reference: for every fixture image, the
# dump of the converted manifest must equal refdump.py's dump of the tree
# that `umoci unpack` makes of the same image (both normalised, see
# refdump.py). Also checks the store: object names, idempotence, dedup,
# --json, images/ and refs/.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs cfs-info
require_root "umoci unpack keeps owners, devices and xattrs only as root"
require_host_tools umoci skopeo fsverity python3 zstd
build_fixtures

S=$TMP/store
mkdir -p "$TMP/ref" "$TMP/ours"

convert() { # OUTFILE ARGS...: runs oci2cfs -q, prints its status
	local out=$1
	shift
	"$CFS_BIN/oci2cfs" "$@" --store "$S" --sync=none -q \
		>"$out" 2>"$out.err"
}

# The manifest oci2cfs -q printed: the first line of its output (the
# image digest may follow on a second line).
printed_manifest() { head -n 1 "$1"; }

# Compares the converted image with the reference dump of REFTAG.
check_image() { # NAME REFTAG SOURCE [--ref REF]
	local name=$1 reftag=$2 src=$3 st m
	shift 3
	local base=$TMP/ours/${name//\//_}
	convert "$base.out" "$src" "$@"
	st=$?
	if ! ok $st "$name: oci2cfs exits 0"; then
		diag_file "$base.out.err"
		skip 2 "$name not converted"
		return
	fi
	m=$(printed_manifest "$base.out")
	[ -f "$m" ]
	if ! ok $? "$name: oci2cfs -q prints the manifest path ($m)"; then
		skip 1 "no manifest for $name"
		return
	fi
	if [ ! -f "$TMP/ref/$reftag" ] &&
		! reference_dump "$FX/layout" "$reftag" "$TMP/ref/$reftag"; then
		ok 1 "$name: umoci unpack of $reftag (reference)"
		return
	fi
	cfs_dump_normalised "$m" "$base.dump" 2>"$base.dump.err" &&
		diff -u "$TMP/ref/$reftag" "$base.dump" >"$base.diff" 2>&1
	if ! ok $? "$name: dump equals the reference (umoci unpack of $reftag)"; then
		diag_file "$base.dump.err" 5
		diag_file "$base.diff" 80
	fi
}

# 1. Every fixture of the layout.
while read -r tag reftag; do
	check_image "$tag" "$reftag" "$FX/layout" --ref "$tag"
done <"$FX/fixtures.list"

# 2. Archive variants (oci-archive, docker-archive) of some fixtures.
while read -r file ref reftag; do
	check_image "$(basename "$file")" "$reftag" "$file" --ref "$ref"
done <"$FX/archives.list"

# 3. Where the manifest and its config are, and the ref.
hex=$(config_hex "$FX/layout" realistic)
convert "$TMP/r1.out" "$FX/layout" --ref realistic
m=$(printed_manifest "$TMP/r1.out")
is "$m" "$S/images/$hex.cfs" "manifest is <store>/images/<config hex>.cfs"
cmp -s "$S/images/$hex.json" "$FX/layout/blobs/sha256/$hex"
ok $? "the config JSON is beside it, byte for byte (images/$hex.json)"
[ -e "$S/refs/realistic" ] &&
	{ [ "$(readlink -f "$S/refs/realistic")" = "$(readlink -f "$m")" ] ||
		grep -qs "$hex" "$S/refs/realistic"; }
ok $? "refs/realistic names the manifest (symlink to it or holds $hex)"

# 4. Every object is named by its fs-verity digest, and every digest of
# every converted image is in the store.
store_mismatches "$S" >"$TMP/mismatch"
ok $? "every object's name is its fs-verity digest ($(store_objects "$S" | wc -l) objects)" ||
	diag_file "$TMP/mismatch"
cat "$TMP"/ours/*.dump 2>/dev/null | awk '$11 != "-" { print $11 }' | sort -u |
	while read -r d; do
		[ -f "$S/${d:0:2}/${d:2}" ] || echo "missing object $d"
	done >"$TMP/missing"
[ ! -s "$TMP/missing" ]
ok $? "every digest in the manifests has its object in the store" ||
	diag_file "$TMP/missing"

# 5. Converting again gives the same bytes and no new objects.
cp "$m" "$TMP/first.cfs"
n1=$(store_objects "$S" | wc -l)
convert "$TMP/r2.out" "$FX/layout" --ref realistic
ok $? "re-converting realistic succeeds"
cmp "$TMP/first.cfs" "$(printed_manifest "$TMP/r2.out")"
ok $? "re-converting gives a byte-identical manifest"
is "$(store_objects "$S" | wc -l)" "$n1" "re-converting adds no objects"
find "$S" -path '*/.tmp/*' >"$TMP/tmpfiles"
[ ! -s "$TMP/tmpfiles" ]
ok $? "no temp files left in the store" || diag_file "$TMP/tmpfiles"

# 6. --json.
"$CFS_BIN/oci2cfs" "$FX/layout" --ref realistic --store "$S" --sync=none \
	--json >"$TMP/json.out" 2>"$TMP/json.err"
ok $? "oci2cfs --json exits 0" || diag_file "$TMP/json.err"
python3 - "$TMP/json.out" >"$TMP/json.check" 2>&1 <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
def keys(o, pre=""):
    if isinstance(o, dict):
        for k, v in o.items():
            yield pre + k, v
            yield from keys(v, pre + k + ".")
flat = dict(keys(doc))
want = {"files": lambda k: "files" in k,
        "bytes": lambda k: "bytes" in k,
        "new objects": lambda k: "new" in k and "object" in k}
missing = [w for w, f in want.items()
           if not any(f(k) and isinstance(v, int) for k, v in flat.items())]
if missing:
    sys.exit("missing numeric fields: %s in %s" % (missing, sorted(flat)))
new = [v for k, v in flat.items() if "new" in k and "object" in k]
if new[0] != 0:
    sys.exit("a re-conversion reports %d new objects" % new[0])
EOF
ok $? "--json parses and has files, bytes and new objects (0 on a re-conversion)" ||
	{ diag_file "$TMP/json.check"; diag_file "$TMP/json.out" 20; }

id=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])' \
	<"$TMP/json.out")
ls_id=$("$CFS_BIN/cfs-store" ls --json --store "$S" | python3 -c '
import json, sys
print(" ".join(i["id"] for i in json.load(sys.stdin) if "realistic" in i["names"]))')
[ "$id" = "$(config_hex "$FX/layout" realistic)" ] && [ "$id" = "$ls_id" ]
ok $? "--json's id is the config digest in hex, as cfs-store ls --json prints it ($id, $ls_id)"

# 7. Two images sharing their first layers store shared files once. The
# converter may also keep objects of files that a later layer hides, so the
# count checked is what converting the second image adds: exactly its
# contents that are not in the store yet (none of its own files is hidden).
S2=$TMP/store-dedup
for t in shared-a shared-b; do
	[ -f "$TMP/ref/$t" ] || reference_dump "$FX/layout" $t "$TMP/ref/$t"
done
digests() { awk '$11 != "-" { print $11 }' "$@" | sort -u; }
"$CFS_BIN/oci2cfs" "$FX/layout" --ref shared-a --store "$S2" --sync=none -q \
	>/dev/null 2>"$TMP/da.err"
ok $? "convert shared-a into an empty store" || diag_file "$TMP/da.err"
store_objects "$S2" | awk -F/ '{ print $(NF-1) $NF }' >"$TMP/objs-a"
digests "$TMP/ref/shared-b" | sort - "$TMP/objs-a" "$TMP/objs-a" | uniq -u \
	>"$TMP/b-only"
n_b=$(digests "$TMP/ref/shared-b" | wc -l)
n_new=$(wc -l <"$TMP/b-only")
[ "$n_new" -gt 0 ] && [ "$n_new" -lt "$n_b" ]
ok $? "fixture sanity: shared-b has contents of its own ($n_new) and shared ones ($n_b in all)"
"$CFS_BIN/oci2cfs" "$FX/layout" --ref shared-b --store "$S2" --sync=none -q \
	>/dev/null 2>"$TMP/db.err"
ok $? "convert shared-b into the same store" || diag_file "$TMP/db.err"
is "$(store_objects "$S2" | wc -l)" "$(($(wc -l <"$TMP/objs-a") + n_new))" \
	"shared-b adds only its $n_new new contents: shared files stored once"

done_testing
