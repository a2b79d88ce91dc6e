#!/bin/bash
# SPDX-License-Identifier: MIT
# A conversion is deterministic. A sealed image records the fs-verity
# digest D of its composefs manifest, and every host that pulls it must
# convert it to exactly D or refuse it; so the same image must give the
# same manifest bytes on any Debian 12 host: with the store on ext4 (with
# and without fs-verity), btrfs or tmpfs, with any -j, cold or from the
# layer cache (whole or in part), under any umask, after gc, and through
# every transport the image comes in. Each case is compared with a
# reference conversion (default options, a new store in TMP) by its
# --json "digest" and by the manifest's bytes (cmp); the reference's D
# is pinned below for the fixture `reproducible` (oci-fixtures/
# fixtures.py), whose content nothing of the host changes (checked here
# too: built again as another user, under another umask and time zone,
# without the host's busybox, it is the same image).
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs cfs-store cfs-info
require_root "the stores on ext4, btrfs and tmpfs are mounts the test makes"
require_host_tools skopeo python3 setpriv mkfs.ext4 mkfs.btrfs fsverity
build_fixtures

TAG=reproducible
# The fs-verity digest of the manifest of the fixture `reproducible`.
# It changes only with the format (cfs-format-v1) or with that fixture's
# content; a change of it is a break of every sealed image published
# (each host would refuse them), never a detail to update in passing.
PINNED=0bc6493dd6ea9b8540dc1e68efb58672a7a688f24795e987388669befa2413d3

plan 41

echo '{"default":[{"type":"insecureAcceptAnything"}]}' >"$TMP/accept.json"
ACCEPT=(--signature-policy "$TMP/accept.json")

# convert NAME STORE IMAGE [ARG...]: oci2cfs into STORE (under the umask
# UMASK if set), its --json summary in TMP/NAME.json.
convert() {
	local name=$1 store=$2
	shift 2
	(
		[ -z "${UMASK:-}" ] || umask "$UMASK"
		exec "$CFS_BIN/oci2cfs" "$@" --store "$store" --sync=none -q \
			--json
	) >"$TMP/$name.json" 2>"$TMP/$name.err"
}

# fields NAME KEY...: those values of conversion NAME's summary, on a
# line (--json prints one key a line; sed, as python3 takes half a second
# to start on a busy machine).
fields() {
	local json=$TMP/$1.json k
	shift
	for k; do
		sed -n "s/^ *\"$k\": *\"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}\$/\1/p" \
			"$json" 2>/dev/null
	done | paste -sd ' '
}

# same NAME WHAT: conversion NAME gave the reference's digest and bytes.
same() {
	local d='' m=''
	read -r d m < <(fields "$1" digest manifest)
	if [ -z "$d" ]; then
		ok 1 "$2: converted"
		diag_file "$TMP/$1.err" 5
		return 1
	fi
	[ "$d" = "$REF_D" ] && cmp "$m" "$TMP/ref.cfs" >"$TMP/$1.cmp" 2>&1
	ok $? "$2: the reference's digest and manifest bytes" || {
		diag "digest $d, the reference's $REF_D"
		diag_file "$TMP/$1.cmp" 3
	}
}

# fresh NAME WHAT IMAGE [ARG...]: a cold conversion into a new store in
# W (removed after), compared with the reference.
fresh() {
	local name=$1 what=$2
	shift 2
	convert "$name" "$W/$name.store" "$@"
	same "$name" "$what"
	rm -rf "$W/$name.store"
}

LAYOUT=("$FX/layout" --ref "$TAG")

# The stores of the cases but the reference and the filesystems' are on a
# tmpfs, W: creating a store's files costs a millisecond each on a busy
# disk, and each case varies one thing against the reference anyway.
W=$TMP/w
mkdir -p "$W"
if mount -t tmpfs -o size=128m cfs-det "$W" 2>"$TMP/tmpfs.log"; then
	at_exit umount "$W"
	W_TMPFS=true
else
	diag "cannot mount a tmpfs: $(cat "$TMP/tmpfs.log")"
	W_TMPFS=
fi

# --- the reference, and D -----------------------------------------------------
S0=$TMP/ref.store
convert ref "$S0" "${LAYOUT[@]}"
read -r REF_D ref_m < <(fields ref digest manifest)
[ -n "${REF_D:-}" ] && cp "$ref_m" "$TMP/ref.cfs" ||
	{ diag_file "$TMP/ref.err"; bail "the reference conversion failed"; }
is "$REF_D" "$PINNED" "$TAG converts to the pinned manifest digest"
measured=$("$CFS_BIN/cfs-info" measure "$TMP/ref.cfs" 2>&1 | cut -d' ' -f1)
is "$measured" "$REF_D" "--json's digest is the manifest's fs-verity digest"

# The fixture's content does not depend on who builds it, where or when:
# fixtures.py as nobody, umask 077, another time zone and locale, with the
# stand-in for busybox, makes the same image (same OCI manifest digest).
tag_digest() { # LAYOUT TAG
	python3 - "$1/index.json" "$2" <<'EOF'
import json, sys
for m in json.load(open(sys.argv[1]))["manifests"]:
    ann = m.get("annotations", {})
    if ann.get("org.opencontainers.image.ref.name") == sys.argv[2]:
        print(m["digest"])
EOF
}
mkdir -p "$TMP/fxsrc" "$TMP/fx2"
cp "$TOP"/oci-fixtures/*.py "$TMP/fxsrc/"
chmod 0711 "$TMP" && chmod -R a+rX "$TMP/fxsrc" &&
	chown 65534:65534 "$TMP/fx2"
setpriv --reuid=65534 --regid=65534 --clear-groups \
	env -i PATH="$PATH" HOME=/nonexistent TZ=Pacific/Kiritimati LANG=C \
	PYTHONDONTWRITEBYTECODE=1 \
	sh -c 'umask 077 && python3 "$1/fixtures.py" --hostless "$2"' \
	_ "$TMP/fxsrc" "$TMP/fx2" >"$TMP/fx2.log" 2>&1
want=$(tag_digest "$FX/layout" "$TAG")
[ -n "$want" ] && [ "$(tag_digest "$TMP/fx2/layout" "$TAG")" = "$want" ]
ok $? "$TAG: the same image built as nobody, umask 077, another TZ, no busybox" ||
	diag_file "$TMP/fx2.log" 10

# --- the layer cache ----------------------------------------------------------
convert cached "$S0" "${LAYOUT[@]}"
is "$(fields cached cached_layers layers)" "3 3" \
	"again into the same store: every layer from the cache"
same cached "from the layer cache"
rm -f "$S0/layers/$(ls "$S0/layers" | head -n 1)"
convert partly "$S0" "${LAYOUT[@]}"
is "$(fields partly cached_layers)" 2 \
	"one layer record removed: the other two from the cache"
same partly "two layers from the cache, one read"
gone=$(store_objects "$S0" | head -n 1)
rm -f "$gone"
convert lost "$S0" "${LAYOUT[@]}"
[ -n "$gone" ] && [ "$(fields lost cached_layers)" -lt 3 ] && [ -f "$gone" ]
ok $? "an object gone from under a record: its layer read again, the object back"
same lost "a layer whose record lost an object"
convert nocache "$S0" "${LAYOUT[@]}" --no-cache
is "$(fields nocache cached_layers)" 0 \
	"--no-cache in a store that has the records: none used"
same nocache "--no-cache in a store holding every object"
convert cold "$W/cold.store" "${LAYOUT[@]}" --no-cache
[ "$(fields cold cached_layers)" = 0 ] &&
	[ -z "$(ls -A "$W/cold.store/layers" 2>/dev/null)" ]
ok $? "cold: a new store with --no-cache reads every layer and records none"
same cold "cold (new store, --no-cache)"
rm -rf "$W/cold.store"

# --- threads ------------------------------------------------------------------
for j in 1 2 8; do
	fresh "j$j" "-j $j" "${LAYOUT[@]}" -j "$j" --no-cache
done

# Two conversions at once into one new store (two pulls of one image).
convert both1 "$W/both.store" "${LAYOUT[@]}" &
pid=$!
convert both2 "$W/both.store" "${LAYOUT[@]}"
wait "$pid"
same both1 "two at once into one store, the first"
same both2 "two at once into one store, the second"
rm -rf "$W/both.store"

# --- umask, environment -------------------------------------------------------
for u in 0000 0022 0077; do
	UMASK=$u fresh "umask$u" "umask $u" "${LAYOUT[@]}"
done

# Nothing of the environment: not the locale (the fixture has UTF-8
# names), not the time zone.
LC_ALL=C.UTF-8 TZ=Pacific/Kiritimati fresh env "LC_ALL=C.UTF-8, another TZ" \
	"${LAYOUT[@]}"

# --- gc -----------------------------------------------------------------------
# Convert, drop the ref, gc (everything goes), convert again.
G=$W/gc1.store
convert gc1a "$G" "${LAYOUT[@]}"
"$CFS_BIN/cfs-store" rm "$TAG" --store "$G" >"$TMP/gc1.log" 2>&1 &&
	"$CFS_BIN/cfs-store" gc --store "$G" >>"$TMP/gc1.log" 2>&1 &&
	[ -z "$(store_objects "$G")" ] && [ -z "$(ls -A "$G/layers")" ]
ok $? "rm and gc leave no object and no layer record" ||
	diag_file "$TMP/gc1.log"
convert gc1b "$G" "${LAYOUT[@]}"
same gc1b "converted again after rm and gc"
rm -rf "$G"
# Convert, gc with the ref kept, convert again into the same store.
G=$W/gc2.store
convert gc2a "$G" "${LAYOUT[@]}"
n=$(store_objects "$G" | wc -l)
"$CFS_BIN/cfs-store" gc --store "$G" >"$TMP/gc2.log" 2>&1 &&
	[ "$(store_objects "$G" | wc -l)" = "$n" ] && [ "$n" -gt 0 ]
ok $? "gc with the ref kept keeps all $n objects" || diag_file "$TMP/gc2.log"
convert gc2b "$G" "${LAYOUT[@]}"
is "$(fields gc2b cached_layers)" 3 \
	"after gc with the ref kept, the layers come from the cache"
same gc2b "converted again after gc with the ref kept"
rm -rf "$G"

# --- transports ---------------------------------------------------------------
skopeo --insecure-policy copy -q "oci:$FX/layout:$TAG" \
	"oci-archive:$TMP/r.oci.tar:$TAG" >"$TMP/skopeo.log" 2>&1 &&
	skopeo --insecure-policy copy -q "oci:$FX/layout:$TAG" \
		"docker-archive:$TMP/r.docker.tar:cfs/$TAG:latest" \
		>>"$TMP/skopeo.log" 2>&1 &&
	skopeo --insecure-policy copy -q "oci:$FX/layout:$TAG" \
		"dir:$TMP/r.dir" >>"$TMP/skopeo.log" 2>&1 ||
	{ diag_file "$TMP/skopeo.log"; bail "skopeo cannot copy the fixture"; }
fresh t-oci "oci:DIR:TAG" "oci:$FX/layout:$TAG" "${ACCEPT[@]}"
fresh t-ociar "oci-archive:FILE" "oci-archive:$TMP/r.oci.tar" "${ACCEPT[@]}"
fresh t-ociar-path "an oci-archive by its path" "$TMP/r.oci.tar"
fresh t-dockerar "docker-archive:FILE" "docker-archive:$TMP/r.docker.tar" \
	"${ACCEPT[@]}"
fresh t-dockerar-path "a docker-archive by its path" "$TMP/r.docker.tar"
fresh t-dir "dir:DIR" "dir:$TMP/r.dir" "${ACCEPT[@]}"
fresh t-stdin "a docker-archive on standard input" - <"$TMP/r.docker.tar"

# --- filesystems and fs-verity ------------------------------------------------
# A store where fs-verity cannot be enabled gives the same D as one where
# it is (the kernel measures large objects there, oci2cfs elsewhere).
fresh no-verity "--no-verity" "${LAYOUT[@]}" --no-verity

# ext4 with the verity feature (lib.sh's verity_fs: at TMP/vfs).
if verity_fs 64M; then
	ext4_verity=true
elif mountpoint -q "$TMP/vfs"; then
	ext4_verity=false
	diag "no fs-verity on ext4 here: $(cat "$TMP/verity.err" 2>/dev/null)"
else
	ext4_verity=
fi
if [ -n "$ext4_verity" ]; then
	convert ext4 "$TMP/vfs/store" "${LAYOUT[@]}"
	same ext4 "store on ext4 (-O verity, fs-verity $ext4_verity)"
	is "$(fields ext4 verity)" "$ext4_verity" \
		"on ext4, fs-verity used as far as the kernel allows ($ext4_verity)"
	convert ext4-nv "$TMP/vfs/store-nv" "${LAYOUT[@]}" --no-verity
	same ext4-nv "store on ext4, --no-verity"
	rm -rf "$TMP/vfs/store" "$TMP/vfs/store-nv"
else
	skip 3 "cannot mount an ext4 image"
fi

# btrfs: a 64 MiB image needs --mixed (below 109 MiB otherwise refused).
# Where btrfs is a module (Debian's kernel), the mount loads it, as any
# mount of a btrfs image does.
truncate -s 64M "$TMP/btrfs.img"
mkdir -p "$TMP/btrfs"
if mkfs.btrfs -q --mixed "$TMP/btrfs.img" >"$TMP/btrfs.log" 2>&1 &&
	mount -o loop "$TMP/btrfs.img" "$TMP/btrfs" >>"$TMP/btrfs.log" 2>&1
then
	at_exit umount "$TMP/btrfs"
	convert btrfs "$TMP/btrfs/store" "${LAYOUT[@]}"
	same btrfs "store on btrfs (fs-verity $(fields btrfs verity))"
	rm -rf "$TMP/btrfs/store"
else
	diag_file "$TMP/btrfs.log" 5
	skip 1 "cannot mount a btrfs image"
fi

if [ -n "$W_TMPFS" ]; then
	convert tmpfs "$W/store" "${LAYOUT[@]}"
	same tmpfs "store on tmpfs"
	is "$(fields tmpfs verity)" false "on tmpfs, no fs-verity"
else
	skip 2 "cannot mount a tmpfs"
fi
