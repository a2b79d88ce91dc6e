#!/bin/bash
# SPDX-License-Identifier: MIT
# Sealed images on the verifying side: oci2cfs converts a sealed image only
# to the digest its seal names (else writes no manifest and no ref),
# --require-seal, the seal recorded in the store, mount.composefs adding
# digest= from it (-f: what needs no fs-verity; the rest in the QEMU
# tiers), cfs-store ls and fsck. Seals are made here by
# seal-layout.py, so hostile ones too; cfs-seal's own are in seal.t.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs cfs-store mount.composefs
require_root "fixtures are built as root; the verity store is a loop mount"
require_host_tools python3 fsverity mkfs.ext4
build_fixtures
plan 31

L=$FX/layout
TAG=realistic
CS=$CFS_BIN/cfs-store
seal() { python3 "$TOP/tests/integration/seal-layout.py" "$L" "$TAG" "$@"; }
jget() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
convert() { # STORE LAYOUT [ARGS...]
	local s=$1 lay=$2
	shift 2
	run "$CFS_BIN/oci2cfs" "$lay" --ref "$TAG" --store "$s" -q \
		--sync=none "$@"
}
nothing_written() { # STORE
	[ -z "$(ls -A "$1/images" "$1/refs" 2>/dev/null)" ]
}

convert "$TMP/ref" "$L" --json
D=$(echo "$out" | jget "['digest']")
id=$(config_hex "$L" "$TAG")
is "$(echo "$out" | jget "['sealed']")" False "an unsealed image: sealed false"

# --- a good seal ----------------------------------------------------------
seal "$TMP/good" "$D"
convert "$TMP/s" "$TMP/good" --json
is "$st" 0 "a sealed image converts to the digest its seal names"
is "$(echo "$out" | jget "['digest']"),$(echo "$out" | jget "['sealed']")" \
	"$D,True" "--json: sealed, and the digest is the seal"
is "$(cat "$TMP/s/images/$id.seal")" "$D" "the store records the seal"
cmp -s "$TMP/s/images/$id.cfs" "$TMP/ref/images/$id.cfs"
ok $? "the manifest is the unsealed conversion's, byte for byte"
is "$(echo "$out" | jget "['id']")" "$id" "the image id is the config's"

# --- a seal naming another digest -----------------------------------------
other=$(printf '%064d' 7)
seal "$TMP/wrong" "$other"
convert "$TMP/w" "$TMP/wrong"
is "$st" 1 "a seal naming another digest: exit 1"
is "$(echo "$err" | wc -l)" 1 "one error line"
case $err in *"$TMP/wrong"*"$other"*"$D"*) r=0 ;; *) r=1 ;; esac
ok $r "it names the image and both digests: $err"
nothing_written "$TMP/w"
ok $? "no manifest, no seal, no ref written"
convert "$TMP/s" "$TMP/wrong"
is "$st:$(readlink "$TMP/s/refs/$TAG")" "1:../images/$id.cfs" \
	"into a store holding the image: refused, the ref and seal unchanged"

# --- malformed seals: refused before anything is fetched --------------------
for bad in "${D^^}" "${D:0:63}" "sha256:$D" ""; do
	rm -rf "$TMP/bad" "$TMP/b"
	seal "$TMP/bad" "$bad"
	convert "$TMP/b" "$TMP/bad"
	case $st:$err in 1:*"not 64 lowercase hex digits"*) r=0 ;; *) r=1 ;; esac
	ok $r "seal '${bad:0:12}...' refused: $err"
done
nothing_written "$TMP/b" && [ -z "$(ls "$TMP/b" 2>/dev/null | grep -v '^\.')" ]
ok $? "nothing stored for a malformed seal"

# --- --require-seal ----------------------------------------------------------
convert "$TMP/r" "$L" --require-seal
case $st:$err in 1:*"$L"*"not sealed"*) r=0 ;; *) r=1 ;; esac
ok $r "--require-seal refuses an unsealed image: $err"
nothing_written "$TMP/r"
ok $? "and writes nothing"
convert "$TMP/r" "$TMP/good" --require-seal
is "$st" 0 "--require-seal accepts a sealed one"
run "$CFS_BIN/cfs-podman" --store "$TMP/p" pull --require-seal "oci:$L:$TAG"
case $st:$err in 1:*"not sealed"*) r=0 ;; *) r=1 ;; esac
ok $r "cfs-podman pull --require-seal passes it on: $err"
nothing_written "$TMP/p"
ok $? "and nothing is stored"

# --- an unsealed copy does not unseal the image ------------------------------
convert "$TMP/s" "$L"
is "$st:$(cat "$TMP/s/images/$id.seal")" "0:$D" \
	"an unsealed conversion of the same image keeps its seal"
is "$("$CS" -s "$TMP/s" ls --json | jget "[0]['sealed']")" True \
	"cfs-store ls --json: sealed"
"$CS" -s "$TMP/s" ls | grep -q "^${id:0:12} .* yes  *$TAG\$"
ok $? "cfs-store ls: SEALED yes"

# --- fsck: a sealed image's manifest must still measure its seal ----------------
"$CS" -s "$TMP/s" fsck >/dev/null 2>&1
ok $? "fsck: a sealed store is clean"
cp "$TMP/s/images/$id.cfs" "$TMP/m.cfs"
printf 'x' >>"$TMP/s/images/$id.cfs"
run "$CS" -s "$TMP/s" fsck
case $st:$out in 1:*seal-mismatch*"images/$id.cfs"*"sealed for $D"*) r=0 ;; *) r=1 ;; esac
ok $r "fsck: a manifest that no longer measures its seal: $out"
printf 'junk\n' >"$TMP/s/images/$id.seal"
cp "$TMP/m.cfs" "$TMP/s/images/$id.cfs"
run "$CS" -s "$TMP/s" fsck --repair
case $st:$out in 1:*bad-seal*"images/$id.seal"*) r=0 ;; *) r=1 ;; esac
ok $r "fsck: a seal that cannot be read: $out"
[ ! -e "$TMP/s/images/$id.seal" ] && [ ! -e "$TMP/s/images/$id.cfs" ]
ok $? "--repair moved the seal aside with its manifest (no unsealed mount)"

# --- mount.composefs: a sealed image mounts only with digest= its seal -------
# Where the kernel can measure (the QEMU tiers) the digest= it passes and a
# replaced manifest are checked; here, what needs no measurement.
mkdir -p "$TMP/mnt"
convert "$TMP/u" "$TMP/good" --no-verity
run "$CFS_BIN/mount.composefs" -f -o store="$TMP/u",digest="$other" \
	"$TAG" "$TMP/mnt"
case $st:$err in 32:*"digest=$other given, but the image is sealed for $D"*) r=0 ;; *) r=1 ;; esac
ok $r "mount by name with another digest= is refused: $err"
run "$CFS_BIN/mount.composefs" -f "$TMP/u/images/$id.cfs" "$TMP/mnt"
case $st:$err in 32:*"fs-verity is not enabled on the image, so its seal cannot be checked"*) r=0 ;; *) r=1 ;; esac
ok $r "by path, without fs-verity: refused, never mounted unchecked: $err"
rm "$TMP/u/images/$id.seal"
run "$CFS_BIN/mount.composefs" -f -o store="$TMP/u" "$TAG" "$TMP/mnt"
is "$st" 0 "the same image unsealed mounts without digest="
