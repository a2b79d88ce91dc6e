#!/bin/bash
# SPDX-License-Identifier: MIT
# Image names and ids resolved as podman 4.3 resolves them, alike in
# cfs-store rm, mount -t composefs NAME (mount.composefs -f) and
# cfs-podman add/remove: REPO, REPO:TAG, REGISTRY/REPO, the last path
# component, docker.io/library/ for one component, localhost/ first, a
# unique id prefix of 3 digits or more, sha256:ID; an ambiguous prefix or
# short name is refused with one line naming every candidate, and nothing
# is removed. podman itself is not run: mounts go through a fake helper
# (a bind mount) in a private mount namespace.
. "$(dirname "$0")/lib.sh"

require_root "bind mounts in a private mount namespace"
require_host_tools unshare python3
require_cfs_tools oci2cfs cfs-store cfs-podman mount.composefs
if [ -z "${NAMES_T_IN_NAMESPACE:-}" ]; then
	NAMES_T_IN_NAMESPACE=1 exec unshare -m --propagation private "$0" "$@"
fi
build_fixtures
plan 30

L=$FX/layout
S=$TMP/store
CS=$CFS_BIN/cfs-store
CP=$CFS_BIN/cfs-podman
MH=$CFS_BIN/mount.composefs
export LIBMOUNT_UTAB=$TMP/utab LIBMOUNT_FSTAB=$TMP/fstab
: >"$LIBMOUNT_FSTAB"
mkdir -p "$TMP/mnt"

# convert TAG NAME...: the layout's TAG, its ref renamed to each NAME (as
# oci2cfs docker://NAME records it: refs/NAME -> ../images/ID.cfs)
convert() {
	local tag=$1 id up n
	shift
	"$CFS_BIN/oci2cfs" "$L" --ref "$tag" --store "$S" -q --sync=none \
		>"$TMP/conv.log" 2>&1 ||
		{ diag_file "$TMP/conv.log"; bail "oci2cfs $tag failed"; }
	rm "$S/refs/$tag"
	id=$(config_hex "$L" "$tag")
	for n in "$@"; do
		up=$(printf '%s' "$n" | sed 's|[^/]||g; s|/|../|g')
		mkdir -p "$(dirname "$S/refs/$n")"
		ln -sfn "$up../images/$id.cfs" "$S/refs/$n"
	done
}
# one_line_error STATUS NAME: the last run exited STATUS, one line on stderr.
one_line_error() {
	[ "$st" -eq "$1" ] && [ "$(wc -l <"$TMP/err")" -eq 1 ]
	ok $? "$2" || { diag "status $st"; diag_file "$TMP/err"; }
}
# The shortest prefix (>= 3) of id $1 that no other id in the store shares.
unique_prefix() {
	local n=3 others
	others=$(ls "$S/images" | sed -n 's/\.cfs$//p' | grep -v "^$1$")
	while printf '%s\n' "$others" | grep -q "^${1:0:$n}"; do
		n=$((n + 1))
	done
	printf '%s' "${1:0:$n}"
}

convert realistic docker.io/cfs/realistic:latest
convert shared-a docker.io/library/shared:1 keep-a
convert shared-b localhost/shared:1
R=$(config_hex "$L" realistic)
A=$(config_hex "$L" shared-a)
B=$(config_hex "$L" shared-b)

# --- mount -t composefs NAME: the helper's fake mode shows what it mounts
mounts() { # NAME ID TEST
	run "$MH" -f -v -o ro,store="$S" "$1" "$TMP/mnt"
	is "$out" "mount.composefs: (fake) mounting $S/images/$2.cfs on $TMP/mnt: composefs ro,basedir=$S" \
		"mount.composefs: $3" || diag_file "$TMP/err"
}
mounts cfs/realistic "$R" "REPO means docker.io/REPO:latest"
mounts cfs/realistic:latest "$R" "REPO:TAG"
mounts docker.io/cfs/realistic "$R" "REGISTRY/REPO means :latest"
mounts realistic "$R" "the last path component of a name"
mounts shared:1 "$B" "localhost/ before docker.io/library/"
mounts docker.io/shared:1 "$A" "docker.io/NAME is docker.io/library/NAME"
mounts "$(unique_prefix "$R")" "$R" "a unique id prefix"
mounts "sha256:$R" "$R" "sha256:ID"
mounts keep-a "$A" "a ref as it is"

# An image under another id that shares the first digits of R: a prefix
# of both is ambiguous (the manifest is a copy, its content does not matter
# to names).
FAKE=${R:0:3}$(printf '%s' "${R:3}" | tr 0-9a-f 1-9a-f0)
cp "$S/images/$R.cfs" "$S/images/$FAKE.cfs"
run "$MH" -f -v -o ro,store="$S" "${R:0:3}" "$TMP/mnt"
one_line_error 32 "mount.composefs: an ambiguous prefix fails (32), one line"
grep -q "${R:0:12}" "$TMP/err" && grep -q "${FAKE:0:12}" "$TMP/err" &&
	grep -q ambiguous "$TMP/err"
ok $? "... naming both images" || diag_file "$TMP/err"
run "$MH" -f -o ro,store="$S" nosuch "$TMP/mnt"
one_line_error 32 "mount.composefs: an unknown name fails (32), one line"

# --- cfs-store rm
ls -R "$S/refs" "$S/images" >"$TMP/before"
run "$CS" rm --store "$S" "${R:0:3}"
one_line_error 1 "cfs-store rm: an ambiguous prefix fails, one line"
grep -q "${R:0:12}" "$TMP/err" && grep -q "${FAKE:0:12}" "$TMP/err"
ok $? "... naming both images" || diag_file "$TMP/err"
ls -R "$S/refs" "$S/images" | cmp -s - "$TMP/before"
ok $? "... and removes nothing"
rm -f "$S/images/$FAKE.cfs"

run "$CS" rm --store "$S" shared:1
is "$out" "removed $B" "cfs-store rm NAME: localhost/NAME:TAG, its only ref"
[ ! -e "$S/refs/localhost/shared:1" ] && [ ! -e "$S/images/$B.cfs" ] &&
	[ -e "$S/images/$A.cfs" ]
ok $? "... its ref and manifest are gone, the other image stays"
run "$CS" rm --store "$S" docker.io/shared:1
is "$out" "untagged docker.io/library/shared:1" \
	"cfs-store rm docker.io/NAME:TAG untags docker.io/library/NAME:TAG"
[ ! -e "$S/refs/docker.io/library/shared:1" ] && [ -e "$S/refs/keep-a" ]
ok $? "... and keeps the image's other ref"
run "$CS" rm --store "$S" "$(unique_prefix "$A")"
is "$out" "removed $A" "cfs-store rm with a short unique id prefix"
run "$CS" rm --store "$S" cfs/realistic
is "$out" "removed $R" "cfs-store rm REPO (docker.io/REPO:latest)"
run "$CS" rm --store "$S" realistic
one_line_error 1 "cfs-store rm of a name no longer there: one line"

# --- cfs-podman add and remove
fake_podman_mounts "$S/podman"
convert realistic docker.io/cfs/realistic:latest
convert shared-a docker.io/library/shared:1

names_of() { # ID: the names cfs-podman list shows for it
	"$CP" --store "$S" list | awk -v id="${1:0:12}" '$1 == id { print $NF }'
}
run "$CP" --store "$S" add cfs/realistic
is "$out" "$R" "cfs-podman add REPO registers the image the name resolves to"
is "$(names_of "$R")" docker.io/cfs/realistic:latest \
	"... under its full name, not localhost/REPO" || diag_file "$TMP/err"
run "$CP" --store "$S" add "$(unique_prefix "$A")"
is "$out" "$A" "cfs-podman add ID-PREFIX"
is "$(names_of "$A")" "<none>" "... names nothing" || diag_file "$TMP/err"
run "$CP" --store "$S" remove realistic
ok "$st" "cfs-podman remove NAME (the last path component)" ||
	diag_file "$TMP/err"
[ -z "$(names_of "$R")" ]
ok $? "... unregisters it"
run "$CP" --store "$S" remove "${A:0:3}"
ok "$st" "cfs-podman remove with a 3-digit id prefix" || diag_file "$TMP/err"
run "$CP" --store "$S" list
is "$(printf '%s\n' "$out" | wc -l)" 1 "... and nothing is registered"

done_testing
