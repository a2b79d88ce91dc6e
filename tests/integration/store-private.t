#!/bin/bash
# SPDX-License-Identifier: MIT
# The store is private to its owner: objects carry no mode of their own,
# so an image's 0600 file (here the realistic fixture's /root/.profile)
# must not be readable by another local user in the store. A new store's
# root is 0711 (others pass through to podman/ only, which rootless podman
# reads) and every directory holding objects, manifests, refs or records
# 0700, whatever the umask; fsck reports a loose store and --repair
# tightens it.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs cfs-info cfs-store mkcfs
require_root "another user's access is tried with setpriv"
require_host_tools setpriv python3
build_fixtures
plan 14

L=$FX/layout
CS=$CFS_BIN/cfs-store
mode() { stat -c %a "$1"; }
other() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

S=$TMP/a/b/store
(umask 000 && "$CFS_BIN/oci2cfs" "$L" --ref realistic --store "$S" -q \
	--sync=none >/dev/null)
ok $? "oci2cfs makes a store under umask 000"
is "$(mode "$S")" 711 "the new store's root is 0711"
loose=$(find "$S" -mindepth 1 -maxdepth 1 -type d ! -perm 0700 -printf '%P ')
is "$loose" "" "every directory in it is 0700"
is "$(mode "$TMP/a/b")" 755 "its missing parents are made 0755 (searchable)"

profile=$("$CFS_BIN/cfs-info" dump "$S/images/$(config_hex "$L" realistic).cfs" |
	awk '$1 == "/root/.profile" { print $9 }')
[ -n "$profile" ] && [ -f "$S/$profile" ]
ok $? "the image's 0600 /root/.profile is an object ($profile)"
chmod a+rx "$TMP" "$TMP/a" "$TMP/a/b"
other cat "$S/$profile" >"$TMP/other.out" 2>&1
st=$?
[ $st -ne 0 ] && grep -q "Permission denied" "$TMP/other.out"
ok $? "another user cannot read that object in the store (exit $st)" ||
	diag_file "$TMP/other.out"
other ls "$S" >/dev/null 2>&1
ok $((!$?)) "another user cannot list the store"
other ls "$S/images" "$S/refs" "$S/layers" >/dev/null 2>&1
ok $((!$?)) "nor its manifests, refs or layer records"
other stat "$S/.cfs-store" >/dev/null
ok $? "but can pass through the root (to podman/, for rootless podman)" 3

M=$TMP/mk
mkdir -p "$TMP/tree/d" && echo secret >"$TMP/tree/d/f"
(umask 022 && "$CFS_BIN/mkcfs" "$TMP/tree" "$TMP/mk.cfs" --digest-store "$M")
is "$(mode "$M"):$(find "$M" -mindepth 1 -maxdepth 1 -type d ! -perm 0700 | wc -l)" \
	711:0 "mkcfs --digest-store makes a private store too"

# A store on a filesystem's own root (mkfs makes it 0755), as the README
# sets one up: others may list the names in it, nothing more.
chmod 0755 "$S"
"$CS" fsck --store "$S" >"$TMP/fsck0.out" 2>&1
ok $? "a 0755 root over 0700 directories is not loose" ||
	diag_file "$TMP/fsck0.out" 5

# A store made by an earlier version (every directory 0755), or one others
# may write to.
chmod 0757 "$S"
chmod 0755 "$S"/images "$S"/[0-9a-f][0-9a-f]
"$CS" fsck --store "$S" >"$TMP/fsck.out" 2>&1
st=$?
[ $st = 1 ] &&
	grep -q "^loose: \.: \. is mode 0757, and [0-9]* more directories: other users can read or change" \
		"$TMP/fsck.out"
ok $? "fsck reports a loose store in one line, exit 1 (got $st)" ||
	diag_file "$TMP/fsck.out" 5
"$CS" fsck --repair --store "$S" >"$TMP/repair.out" 2>&1
grep -q "^loose: .*\[repair: made private\]" "$TMP/repair.out" &&
	[ "$(mode "$S")" = 755 ] &&
	[ -z "$(find "$S" -mindepth 1 -maxdepth 1 -type d ! -perm 0700)" ]
ok $? "fsck --repair takes write off the root and makes its directories 0700" ||
	diag_file "$TMP/repair.out" 5
"$CS" fsck --store "$S" >"$TMP/fsck2.out" 2>&1
ok $? "fsck then finds nothing" || diag_file "$TMP/fsck2.out" 5
