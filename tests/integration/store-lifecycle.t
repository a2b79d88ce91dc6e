#!/bin/bash
# SPDX-License-Identifier: MIT
# cfs-store: ls, rm, gc (with converters running, and killed), df, fsck and
# --repair on a damaged store.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs cfs-info cfs-store cfs-podman
require_root "fixtures are built and unpacked as root"
require_host_tools fsverity python3 skopeo zstd
build_fixtures
plan 46

L=$FX/layout
CS=$CFS_BIN/cfs-store
convert() { # STORE TAG [ARGS...]
	local s=$1 tag=$2
	shift 2
	"$CFS_BIN/oci2cfs" "$L" --ref "$tag" --store "$s" -q --sync=none "$@"
}
jget() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
missing_all() { # STORE: missing objects of every manifest, one per line
	local m
	for m in "$1"/images/*.cfs; do
		[ -e "$m" ] || continue
		# a manifest rm removes meanwhile is not kept: no message
		"$CFS_BIN/cfs-info" missing-objects --basedir "$1" "$m" 2>/dev/null
	done
}

# --- two images sharing a base; remove one; gc ---------------------------
S=$TMP/s
convert "$S" shared-a >/dev/null && convert "$S" shared-b >/dev/null &&
	convert "$S" realistic >/dev/null
ok $? "three images converted"
a=$(config_hex "$L" shared-a)
is "$("$CS" -s "$S" ls --json | jget "[0]['id'] is not None")" True \
	"ls --json lists images"
a_objs=$("$CFS_BIN/cfs-info" objects "$S/images/$a.cfs" | sort)
b_objs=$("$CFS_BIN/cfs-info" objects "$S/images/$(config_hex "$L" shared-b).cfs" | sort)
excl=$(comm -23 <(echo "$a_objs") <(echo "$b_objs"))
before=$("$CS" -s "$S" df --json | jget "['bytes']")
"$CS" -s "$S" rm shared-a >/dev/null
ok $? "rm shared-a"
[ ! -e "$S/images/$a.cfs" ] && [ ! -e "$S/refs/shared-a" ]
ok $? "its manifest and ref are gone"
find "$S" -type f | sort >"$TMP/files.before"
"$CS" -s "$S" gc --dry-run | sed '$d' | sort >"$TMP/dry"
"$CS" -s "$S" gc --json >"$TMP/gc.json"
ok $? "gc succeeds"
find "$S" -type f | sort >"$TMP/files.after"
comm -23 "$TMP/files.before" "$TMP/files.after" | sed "s|^$S/||" \
	>"$TMP/gone"
is "$(cat "$TMP/dry")" "$(cat "$TMP/gone")" \
	"gc --dry-run listed exactly what gc removed"
left=0
for o in $excl; do [ -e "$S/$o" ] && left=$((left + 1)); done
is "$left" 0 "the removed image's exclusive objects are gone"
is "$(missing_all "$S")" "" "every kept image has all its objects"
after=$("$CS" -s "$S" df --json | jget "['bytes']")
freed=$(jget "['bytes']" <"$TMP/gc.json")
is "$((before - after))" "$freed" "df before - after = bytes gc reported"
is "$("$CS" -s "$S" df --json | jget "['unused_objects']")" 0 \
	"after gc no object is unused"

# --- gc keeps the layer cache of kept images ------------------------------
# In replace and shared-a a later layer replaces files of a lower one; the
# lower layer's record and its objects stay, so converting again after gc
# takes every layer from the cache and stores nothing.
K=$TMP/k
convert "$K" replace >/dev/null && convert "$K" shared-a >/dev/null &&
	"$CS" -s "$K" gc >/dev/null
ok $? "gc of a store whose images have replaced files"
jeval() { python3 -c "import json,sys; j=json.load(sys.stdin); print($1)"; }
for t in replace shared-a; do
	convert "$K" "$t" --json >"$TMP/re.json"
	is "$(jeval 'j["cached_layers"] == j["layers"], j["new_objects"]' \
		<"$TMP/re.json")" "True 0" \
		"$t converted again after gc: every layer cached, nothing stored" ||
		diag_file "$TMP/re.json"
done
"$CS" -s "$K" df --json >"$TMP/df.json"
is "$(jeval 'j["cached_objects"] > 0, j["unused_objects"]' <"$TMP/df.json")" \
	"True 0" "df counts those objects as cached, not unused"
"$CS" -s "$K" rm replace >/dev/null && "$CS" -s "$K" rm shared-a >/dev/null &&
	"$CS" -s "$K" gc >/dev/null
ok $? "rm both, gc"
is "$(ls "$K/layers") $(store_objects "$K")" " " \
	"with no image kept, gc removes every record and object"

# --- a ref whose name holds ".tmp." is a ref like any other --------------
# The store skips only names of files being replaced (NAME.tmp.PID[.XXXXXX],
# refused as ref names: test-store-layout); gc once took any name with
# ".tmp." for one and removed the image such a ref kept.
T=$TMP/tmpname
skopeo copy -q "oci:$L:empty" "oci:$TMP/tl:app.tmp.v2" &&
	"$CFS_BIN/oci2cfs" "$TMP/tl" --ref app.tmp.v2 --store "$T" -q \
		--sync=none >/dev/null
"$CS" -s "$T" gc >/dev/null
is "$(missing_all "$T" | wc -l) $(ls "$T/images" | grep -c '\.cfs$')" "0 1" \
	"gc keeps the image of ref app.tmp.v2, whole"
is "$("$CS" -s "$T" ls --json | jget "[0]['names']")" "['app.tmp.v2']" \
	"ls lists the ref app.tmp.v2"

# --- rm refuses podman-registered and mounted images; bad names ----------
"$CS" -s "$S" rm no-such-image 2>"$TMP/err"
is "$?" 1 "rm of an unknown name fails"
"$CS" -s "$S" gc --repair 2>/dev/null
is "$?" 2 "an option of another command is a usage error"

# --- an image registered with podman (cfs-podman, --mountpoint: no mount)
P=$TMP/p
convert "$P" shared-b >/dev/null
mkdir -p "$TMP/tree" && echo hi >"$TMP/tree/f"
. "$TOP/scripts/podman-conf.sh"
podman_private_conf "$TMP/pconf" "$TMP/graph" "$TMP/run" "$P/podman"
"$CFS_BIN/cfs-podman" --store "$P" add shared-b --mountpoint "$TMP/tree" \
	>/dev/null
is "$("$CS" -s "$P" ls --json | jget "[0]['podman']")" True \
	"ls shows the image as registered with podman"
"$CS" -s "$P" rm shared-b 2>"$TMP/err"
ok $(($? != 1)) "rm refuses an image registered with podman"
grep -q "registered with podman" "$TMP/err"
ok $? "and says why"
rm "$P/refs/shared-b"
"$CS" -s "$P" gc >/dev/null && [ -z "$(missing_all "$P")" ] &&
	[ -e "$P/images/$(config_hex "$L" shared-b).cfs" ]
ok $? "gc keeps a podman-registered image whose ref is gone"
"$CFS_BIN/cfs-podman" --store "$P" remove --purge shared-b >/dev/null &&
	"$CS" -s "$P" gc >/dev/null && [ -z "$(ls "$P/images")" ] &&
	[ -z "$(store_objects "$P")" ]
ok $? "cfs-podman remove --purge, then gc, empties the store"

# --- gc concurrent with converters and rm/add ----------------------------
C=$TMP/c
convert "$C" shared-a >/dev/null
(for i in 1 2 3 4 5 6; do convert "$C" shared-b >/dev/null; convert "$C" realistic --no-cache >/dev/null; done) &
p1=$!
(for i in 1 2 3 4 5 6; do convert "$C" shared-a >/dev/null; "$CS" -s "$C" rm shared-a >/dev/null; done) &
p2=$!
bad=0
for i in $(seq 1 15); do
	"$CS" -s "$C" gc >/dev/null 2>>"$TMP/gcerr" || bad=1
	m=$(missing_all "$C")
	[ -n "$m" ] && { bad=1; diag "step $i: missing: $m"; }
done
wait $p1 || bad=1
wait $p2 || bad=1
ok $bad "gc in a loop with converters and rm: every kept manifest whole"
is "$(missing_all "$C")" "" "no kept manifest misses an object at the end"

# --- mkcfs --digest-store locks the store as a conversion does ------------
M=$TMP/m
mkdir -p "$TMP/mtree/d/e" && echo deep >"$TMP/mtree/d/e/f"
mkdir -p "$M" && : >"$M/.lock"
(exec 9<"$M/.lock" && flock 9 && exec sleep 600) >/dev/null 2>&1 &
gc_like=$!
while flock -n "$M/.lock" true; do sleep 0.05; done
"$CFS_BIN/mkcfs" --digest-store "$M" "$TMP/mtree" "$TMP/m.cfs" &
mk=$!
for i in $(seq 1 20); do [ -e "$TMP/m.cfs" ] && break; sleep 0.05; done
[ ! -e "$TMP/m.cfs" ] && kill -0 "$mk" 2>/dev/null
ok $? "mkcfs --digest-store waits while gc holds the store"
kill "$gc_like" && wait "$mk" && { wait "$gc_like" 2>/dev/null; :; } &&
	[ -z "$("$CFS_BIN/cfs-info" missing-objects --basedir "$M" "$TMP/m.cfs")" ]
ok $? "and writes its image, every object in place, once gc is done"

# --- gc killed with SIGKILL at many points -------------------------------
K=$TMP/k
for t in shared-a shared-b realistic whiteout; do convert "$K" "$t" >/dev/null; done
bad=0
for delay in 0.001 0.005 0.01 0.02 0.03 0.05 0.08; do
	convert "$K" shared-a >/dev/null
	convert "$K" realistic >/dev/null
	"$CS" -s "$K" rm shared-a realistic >/dev/null
	"$CS" -s "$K" gc >/dev/null &
	sleep "$delay"
	kill -9 $! 2>/dev/null
	wait $! 2>/dev/null
	[ -z "$(missing_all "$K")" ] || bad=1
done
ok $bad "gc killed at many points leaves every kept image whole"
"$CS" -s "$K" gc >/dev/null && "$CS" -s "$K" fsck >/dev/null
ok $? "the next gc finishes and fsck is clean"

# --- --help and the man page agree ----------------------------------------
man_ok=0
for c in ls rm gc fsck df; do
	"$CS" --help | grep -q "^  $c " || man_ok=1
	grep -q "^\.B cfs-store $c\$" "$TOP/man/cfs-store.8" || man_ok=1
done
for o in json dry-run repair jobs store help; do
	"$CS" --help | grep -q -- "--$o" || man_ok=1
	sed 's/\\-/-/g' "$TOP/man/cfs-store.8" | grep -q -- "--$o" || man_ok=1
done
ok $man_ok "every command and option in --help is in cfs-store(8)"

# --- fsck on a damaged store ---------------------------------------------
F=$TMP/f
convert "$F" realistic >/dev/null && convert "$F" shared-b >/dev/null
"$CS" -s "$F" fsck >/dev/null
ok $? "fsck of a fresh store is clean"
objs=($(store_objects "$F" | head -5))
printf '\xff' | dd of="${objs[0]}" bs=1 seek=3 conv=notrunc 2>/dev/null
printf 'x' >>"${objs[1]}"
truncate -s 1 "${objs[2]}"
cp "${objs[3]}" "$F/00/$(printf '%062d' 0)"
ln -s ../images/nothing.cfs "$F/refs/dangling"
rec=$(ls "$F/layers" | head -1)
printf 'garbage' | dd of="$F/layers/$rec" bs=1 seek=20 conv=notrunc 2>/dev/null
echo stale >"$F/.tmp/obj.999999.XXXXXX"
echo stale >"$F/00/.obj.999999.3" && : >"$F/.tmp/fanout.999999.0"
# a live writer holds its marker locked; one whose PID runs nowhere here
# (another PID namespace) too, its temps named after its marker (PID.H);
# PID 1 runs, but its marker is unlocked; a gone writer with that PID
# number too (its twin) has its marker unlocked
echo live >"$F/00/.obj.$$.3" && : >"$F/.tmp/fanout.$$.0"
echo elsewhere >"$F/00/.obj.999998.0.3" && : >"$F/.tmp/fanout.999998.0"
echo reused >"$F/00/.obj.1.3" && : >"$F/.tmp/fanout.1.0"
echo twin >"$F/00/.obj.999998.1.3" && : >"$F/.tmp/fanout.999998.1"
(
	exec 8<"$F/.tmp/fanout.$$.0" 9<"$F/.tmp/fanout.999998.0"
	flock 8 && flock 9 && exec sleep 600
) >/dev/null 2>&1 &
holder=$!
while flock -n "$F/.tmp/fanout.999998.0" true; do sleep 0.05; done
echo stale >"$F/layers/$rec.tmp.999999.XXXXXX"
echo '{}' >"$F/images/$(printf '%064d' 7).json"
"$CS" -s "$F" fsck --json >"$TMP/fsck.json"
is "$?" 1 "fsck exits 1 on a damaged store"
found=$(python3 - "$TMP/fsck.json" "$F" "${objs[@]:0:3}" "$rec" $$ <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); store = sys.argv[2]
paths = {p["path"] for p in j["problems"]}
live = [p for p in paths
        if "." + sys.argv[7] + "." in p or ".999998.0" in p]
want = [o[len(store) + 1:] for o in sys.argv[3:6]]
want += ["00/" + "0" * 62, "refs/dangling", "layers/" + sys.argv[6],
         ".tmp/obj.999999.XXXXXX", "layers/%s.tmp.999999.XXXXXX" % sys.argv[6],
         "images/%064d.json" % 7, "00/.obj.999999.3",
         ".tmp/fanout.999999.0", "00/.obj.1.3", ".tmp/fanout.1.0",
         "00/.obj.999998.1.3", ".tmp/fanout.999998.1"]
print(" ".join([w for w in want if w not in paths] + live) or "all")
PY
)
is "$found" all "each damage is found (flip, append, truncate, wrong name, ref, record, dead temp files, orphan config), a live writer's temps are not (its marker locked, whatever its PID)"
"$CS" -s "$F" fsck --repair >"$TMP/repair.out"
ls "$F/damaged" | wc -l | grep -qx 4
ok $? "--repair moved the 4 bad objects aside, not deleted"
convert "$F" realistic >/dev/null && convert "$F" shared-b >/dev/null
"$CS" -s "$F" fsck >"$TMP/fsck2.out"
ok $? "after --repair and reconversion fsck is clean"
[ $? = 0 ] || diag_file "$TMP/fsck2.out"
[ ! -e "$F/00/.obj.999999.3" ] && [ ! -e "$F/.tmp/fanout.999999.0" ] &&
	[ ! -e "$F/00/.obj.1.3" ] && [ ! -e "$F/.tmp/fanout.1.0" ] &&
	[ ! -e "$F/00/.obj.999998.1.3" ] && [ ! -e "$F/.tmp/fanout.999998.1" ] &&
	[ -e "$F/00/.obj.$$.3" ] && [ -e "$F/.tmp/fanout.$$.0" ] &&
	[ -e "$F/00/.obj.999998.0.3" ] && [ -e "$F/.tmp/fanout.999998.0" ]
ok $? "a gone writer's temp beside the objects and its marker are removed (also where its PID runs again, or a live writer has its PID number), a locked one's kept"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
rm -f "$F/00/.obj.$$.3" "$F/.tmp/fanout.$$.0" "$F/00/.obj.999998.0.3" \
	"$F/.tmp/fanout.999998.0"

# a name that is not one line of text is shown escaped, repaired as it is
printf 'x' >"$F/00/bad"$'\n'"name"
"$CS" -s "$F" fsck >"$TMP/fsck3.out"
is "$(grep -c . "$TMP/fsck3.out")" 2 "a stray name with a newline: one finding line (and the summary)"
grep -qF 'stray: 00/bad\x0aname: ' "$TMP/fsck3.out"
ok $? "the name is shown escaped"
"$CS" -s "$F" fsck --repair >/dev/null
[ ! -e "$F/00/bad"$'\n'"name" ] && "$CS" -s "$F" fsck >/dev/null
ok $? "--repair moves the file by its real name; fsck is clean again"

# --- a store with fs-verity (loop ext4): kernel measurement, no trust ----
if ! verity_fs 128M; then
	skip 5 "no fs-verity on a loop ext4 here; the VM runs these"
else
	V=$TMP/vfs/store
	convert "$V" realistic >/dev/null
	"$CS" -s "$V" fsck --json >"$TMP/vf.json"
	is "$(python3 -c "import json; j = json.load(open('$TMP/vf.json'))
print(j['kernel_measured'] == j['objects'] > 0)")" True \
		 "fsck on a verity store uses the kernel measurement"
	objs=($(store_objects "$V" | head -2))
	# damage the way a verity store allows: a file put in an object's place
	rm -f "${objs[0]}" "${objs[1]}"
	echo wrong >"${objs[0]}"
	echo wrong too >"${objs[1]}" && fsverity enable "${objs[1]}"
	"$CS" -s "$V" fsck >"$TMP/vf.out"
	is "$?" 1 "fsck finds objects whose content is not their name"
	grep -q "kernel measurement" "$TMP/vf.out"
	ok $? "the verity-enabled one is reported by kernel measurement"
	convert "$V" realistic >/dev/null
	"$CS" -s "$V" fsck >"$TMP/vf2.out"
	ok $? "a conversion replaced both instead of trusting them"
	[ $? = 0 ] || diag_file "$TMP/vf2.out"
	ls "$V/damaged" 2>/dev/null | wc -l | grep -qx 2
	ok $? "the bad objects were moved aside to damaged/"
fi
