#!/bin/bash
# SPDX-License-Identifier: MIT
# The object store under stress: converters running at once on one store,
# converters killed with SIGKILL or stopped with SIGTERM mid-way, one
# stopped in another PID namespace while another opens the store, and
# --require-verity where the filesystem has no fs-verity.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs cfs-info
require_root "fixtures are built and unpacked as root"
require_host_tools fsverity python3 skopeo zstd
build_fixtures
plan 28

L=$FX/layout
convert() { # STORE TAG [ARGS...]
	local s=$1 tag=$2
	shift 2
	"$CFS_BIN/oci2cfs" "$L" --ref "$tag" --store "$s" -q "$@"
}
# temp objects and markers: .tmp/*, and xx/.obj.PID.H.N beside the objects
tmp_files() { find "$1/.tmp" "$1"/[0-9a-f][0-9a-f] -type f \( -path "$1/.tmp/*" -o -name '.obj.*' \) 2>/dev/null | wc -l; }

# --- concurrent converters -------------------------------------------------
S=$TMP/shared
tags=(realistic shared-a shared-b realistic whiteout shared-a)
pids=()
for i in "${!tags[@]}"; do
	convert "$S" "${tags[i]}" --no-cache --sync=batch \
		>"$TMP/c$i.out" 2>"$TMP/c$i.err" &
	pids+=($!)
done
fails=0
for i in "${!pids[@]}"; do
	wait "${pids[i]}" || { fails=$((fails + 1)); diag_file "$TMP/c$i.err"; }
done
is "$fails" 0 "six converters at once on one store all succeed"
bad=$(store_mismatches "$S")
ok $? "every object is named by its digest after concurrent runs"
[ -n "$bad" ] && diag "$bad"
is "$(tmp_files "$S")" 0 "no temp files left by concurrent runs"
R=$TMP/sequential
for t in realistic shared-a shared-b whiteout; do
	convert "$R" "$t" --no-cache --sync=none >/dev/null
done
same=0
for i in "${!tags[@]}"; do
	m=$(sed -n 1p "$TMP/c$i.out")
	cmp -s "$m" "$R/images/$(basename "$m")" || same=1
done
ok $same "manifests equal those of one-at-a-time conversions"
is "$(store_objects "$S" | sed "s|^$S/||")" \
	"$(store_objects "$R" | sed "s|^$R/||")" \
	"the shared store holds exactly the objects of sequential runs"
missing=$(for m in "$S"/images/*.cfs; do
	"$CFS_BIN/cfs-info" missing-objects --basedir "$S" "$m"; done)
is "$missing" "" "no manifest references a missing object"

# --- thread count and the terminal progress display -----------------------
J=$TMP/onethread
m1=$(convert "$J" realistic --no-cache --sync=none -j 1 | sed -n 1p)
cmp -s "$m1" "$R/images/$(basename "$m1")"
ok $? "one thread gives the same manifest bytes as several"
script -qec "$CFS_BIN/oci2cfs $L --ref realistic --store $TMP/tty --no-cache" \
	/dev/null >"$TMP/tty.out" 2>&1
grep -q "layers [0-9]/3 ([0-9]* cached), [0-9.]* MiB read" "$TMP/tty.out"
ok $? "on a terminal, progress shows layers and bytes"
tr '\r' '\n' <"$TMP/tty.out" | grep -qE \
	"layer 1/3 sha256:[0-9a-f]*: [0-9.]+ (B|KiB|MiB) read" &&
	! grep -q fetched "$TMP/tty.out"
ok $? "a local layout's layers are read, not fetched" ||
	diag_file "$TMP/tty.out"

# --- SIGKILL at various points ----------------------------------------------
K=$TMP/killed
killed=0
for delay in 0.05 0.1 0.2 0.3 0.5 0.8; do
	# Not through convert(): $! must be oci2cfs itself, not a subshell.
	"$CFS_BIN/oci2cfs" "$L" --ref realistic --store "$K" -q --no-cache \
		--sync=batch >/dev/null 2>&1 &
	pid=$!
	sleep "$delay"
	kill -KILL "$pid" 2>/dev/null && killed=$((killed + 1))
	wait "$pid" 2>/dev/null
	# Every final name must hold a whole object, whenever the kill came.
	store_mismatches "$K" >"$TMP/k.bad" || break
done
ok $? "after SIGKILL at 6 points no final name holds a partial object"
diag_file "$TMP/k.bad"
ok $((killed == 0)) "at least one conversion was killed mid-way ($killed)"
for m in "$K"/images/*.cfs; do
	[ -e "$m" ] || continue
	"$CFS_BIN/cfs-info" check "$m" >/dev/null || echo "bad $m"
done >"$TMP/k.check"
is "$(cat "$TMP/k.check")" "" "any manifest left behind is complete and valid"
out=$(convert "$K" realistic --no-cache)
ok $? "converting again after the kills succeeds"
is "$(tmp_files "$K")" 0 "temp objects of the killed converters are cleaned up"
cmp -s "$(echo "$out" | sed -n 1p)" "$R/images/$(basename "$(echo "$out" | sed -n 1p)")"
ok $? "and gives the same manifest as an undisturbed run"

# --- a conversion spanning writeback passes -------------------------------
# About 87 MiB of new objects, big and small, deep in the tree: more than
# two 32 MiB writeback passes, after each of which the objects it made
# durable are renamed into place, before the commit.
P=$TMP/passes
python3 - "$P/root" <<'PY'
import os, sys
root = sys.argv[1]
def put(d, name, size):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(os.urandom(size))
for i in range(40):
    put(os.path.join(root, "srv", "big", "%02d" % (i % 4), "a", "b"),
        "blob%02d" % i, 3 << 19)
for i in range(6000):
    put(os.path.join(root, "usr", "share", "d%02d" % (i % 50), "x", "y"),
        "f%04d" % i, 1024 * (1 + i % 8))
PY
tar -C "$P/root" -cf "$P/layer.tar" .
umoci init --layout "$P/oci" >/dev/null
umoci new --image "$P/oci:passes" >/dev/null
umoci raw add-layer --image "$P/oci:passes" "$P/layer.tar" >/dev/null
# Written back now, or the first pass waits behind these 260 MB and ends
# only after the converter is done: nothing would be placed early.
sync
# Every regular file of the manifest: its object holds the file's bytes.
same_bytes() { # MANIFEST STORE
	"$CFS_BIN/cfs-info" ls "$1" | python3 -c '
import sys
root, store = sys.argv[1:3]
n = bad = 0
for line in sys.stdin:
    path, sep, obj = line.rstrip("\n").rpartition(" @ ")
    if not sep:
        continue
    n += 1
    with open(root + path, "rb") as a, open(store + "/" + obj, "rb") as b:
        if a.read() != b.read():
            bad += 1
            print("differs:", path, obj, file=sys.stderr)
print(n - bad)' "$P/root" "$2"
}
passes() { # STORE [ARGS...]: converts the image, prints the manifest path
	local s=$1
	shift
	"$CFS_BIN/oci2cfs" "$P/oci" --ref passes --store "$s" -q --sync=batch \
		"$@" >"$P/out" 2>"$P/err"
	local st=$?
	sed -n 1p "$P/out"
	return $st
}
m=$(passes "$P/s")
ok $? "a conversion of 87 MiB of new objects succeeds" || diag_file "$P/err"
is "$(same_bytes "$m" "$P/s")" 6040 \
	"each of its 6040 files is backed by an object holding its bytes"
bad=$(store_mismatches "$P/s")
ok $? "every object written across the passes is named by its digest"
[ -n "$bad" ] && diag "$bad"
is "$(tmp_files "$P/s")" 0 "no temp file is left after the passes"
# Killed once objects are in place: whole objects only, and a rerun
# completes the image.
"$CFS_BIN/oci2cfs" "$P/oci" --ref passes --store "$P/k" -q --sync=batch \
	>/dev/null 2>&1 &
pid=$!
for _ in $(seq 500); do
	[ -n "$(store_objects "$P/k" 2>/dev/null | head -n 1)" ] && break
	sleep 0.01
done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
diag "killed with $(store_objects "$P/k" | wc -l) of 6040 objects in place"
store_mismatches "$P/k" >"$TMP/p.bad"
ok $? "killed once objects were placed: no final name holds a partial object"
diag_file "$TMP/p.bad"
m2=$(passes "$P/k")
cmp -s "$m" "$m2" && is "$(same_bytes "$m2" "$P/k")" 6040 \
	"converting again gives the same manifest, every file's bytes in place"

# --- a converter in another PID namespace shares the store ----------------
# Its PID there (made near pid_max) runs nowhere here, but it holds its
# marker locked: a converter opening the store while it is stopped
# mid-write leaves its temps alone, and once resumed it completes its
# image.
ns_converter() { # STORE: the PID here of the oci2cfs writing to STORE
	local d c
	for d in /proc/[0-9]*; do
		{ read -r c <"$d/comm"; } 2>/dev/null && [ "$c" = oci2cfs ] &&
			tr '\0' ' ' <"$d/cmdline" 2>/dev/null |
			grep -qF -- "--store $1 " && echo "${d#/proc/}" && return
	done
}
N=$P/ns
nspid=$(($(cat /proc/sys/kernel/pid_max) - 9))
while kill -0 "$nspid" 2>/dev/null; do nspid=$((nspid - 1)); done
unshare -pf --mount-proc sh -c \
	'echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid && shift && "$@"' sh \
	"$nspid" "$CFS_BIN/oci2cfs" "$P/oci" --ref passes --store "$N" -q \
	--sync=batch >"$P/ns.out" 2>"$P/ns.err" &
outer=$!
npid=
for _ in $(seq 1000); do
	cand=$(ns_converter "$N")
	[ -n "$cand" ] &&
		[ -n "$(find "$N" -name '.obj.*' 2>/dev/null | head -n 1)" ] &&
		kill -STOP "$cand" && npid=$cand && break
	sleep 0.01
done
find "$N/.tmp" "$N"/[0-9a-f][0-9a-f] -name "*.$nspid.*" 2>/dev/null |
	sort >"$P/ns.before"
[ -n "$npid" ] && [ -s "$P/ns.before" ]
ok $? "a converter stopped mid-write in another PID namespace: temps named by its PID there ($nspid), which ran nowhere here"
convert "$N" whiteout >/dev/null
kept=$(while read -r f; do [ -e "$f" ] || echo "$f"; done <"$P/ns.before")
is "$kept" "" "another converter opening the store leaves those temps alone"
[ -n "$npid" ] && kill -CONT "$npid"
wait "$outer"
st=$?
m3=$(sed -n 1p "$P/ns.out")
[ $st = 0 ] && cmp -s "$m" "$m3" && [ "$(same_bytes "$m3" "$N")" = 6040 ]
ok $? "resumed, it completes the same image, every file's bytes in place" ||
	diag_file "$P/ns.err"

# --- SIGTERM -----------------------------------------------------------------
T=$TMP/term
big=$TMP/big
mkdir -p "$big/root"
head -c 300000000 /dev/urandom >"$big/root/blob"
tar -C "$big/root" -cf "$big/layer.tar" .
umoci init --layout "$big/oci" >/dev/null
umoci new --image "$big/oci:big" >/dev/null
umoci raw add-layer --image "$big/oci:big" "$big/layer.tar" >/dev/null
"$CFS_BIN/oci2cfs" "$big/oci" --ref big --store "$T" --sync=batch \
	>/dev/null 2>"$TMP/term.err" &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid"
st=$?
is "$st" 143 "SIGTERM ends the conversion with status 143"
grep -q "interrupted" "$TMP/term.err"
ok $? "and says it was interrupted"
is "$(tmp_files "$T"; ls "$T/images" 2>/dev/null | wc -l)" "0
0" "nothing half-written: no temp file, no manifest"

# --- --require-verity without fs-verity ------------------------------------
V=$TMP/noverity
out=$(convert "$V" whiteout --require-verity 2>&1 >/dev/null)
st=$?
if [ $st -eq 0 ]; then
	skip 1 "the filesystem of $TMP supports fs-verity"
else
	echo "$out" | grep -q "does not support fs-verity"
	ok $? "--require-verity fails where fs-verity is unavailable"
	diag "$out"
fi
