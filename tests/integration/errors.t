#!/bin/bash
# SPDX-License-Identifier: MIT
# oci2cfs on bad inputs and in bad stores: a non-zero exit, exactly one
# error line naming the input and the problem, no manifest or ref written,
# no temp files left, and a store whose objects are still all correct.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs
require_root "the ENOSPC case mounts a tmpfs; fixtures are built as root"
require_host_tools skopeo fsverity python3 zstd
build_fixtures

# A store already holding a good image, so damage to it would show.
new_store() { # DIR
	"$CFS_BIN/oci2cfs" "$FX/layout" --ref hardlinks --store "$1" \
		--sync=none -q >/dev/null 2>"$TMP/seed.err" ||
		{ diag_file "$TMP/seed.err"; bail "cannot seed a store"; }
}

# Runs oci2cfs on a bad input and checks the aftermath.
# NAME SUBJECT KEYWORDS STORE ARGS...
# SUBJECT: what the error must name (several: one per line, any will do).
expect_failure() {
	local name=$1 subject=$2 kw=$3 s=$4 st nerr
	shift 4
	local before=$TMP/$name.before after=$TMP/$name.after
	(cd "$s" && find images refs -type f -o -type l 2>/dev/null | sort) >"$before"
	"$CFS_BIN/oci2cfs" "$@" --store "$s" --sync=none -q \
		>"$TMP/$name.out" 2>"$TMP/$name.err"
	st=$?
	[ $st -ne 0 ] && [ $st -lt 128 ]
	ok $? "$name: fails with a plain non-zero status (got $st)"
	nerr=$(wc -l <"$TMP/$name.err")
	if ! is "$nerr" 1 "$name: exactly one line on stderr"; then
		diag_file "$TMP/$name.err" 10
	fi
	grep -qF -- "$subject" "$TMP/$name.err" &&
		grep -qiE -- "$kw" "$TMP/$name.err"
	ok $? "$name: the error names ${subject//$'\n'/ or } and matches /$kw/" ||
		diag_file "$TMP/$name.err" 3
	(cd "$s" && find images refs -type f -o -type l 2>/dev/null | sort) >"$after"
	diff "$before" "$after" >"$TMP/$name.diff"
	ok $? "$name: no manifest, config or ref written" ||
		diag_file "$TMP/$name.diff"
	find "$s" -path '*/.tmp/*' >"$TMP/$name.tmp"
	[ ! -s "$TMP/$name.tmp" ]
	ok $? "$name: no temp files left in the store" ||
		diag_file "$TMP/$name.tmp"
	store_mismatches "$s" >"$TMP/$name.bad"
	ok $? "$name: every object in the store is still named by its digest" ||
		diag_file "$TMP/$name.bad"
}

# 1. Damaged images made by oci-fixtures/mkbad.py.
while read -r name path ref kw; do
	s=$TMP/store-$name
	new_store "$s"
	expect_failure "$name" "$path" "$kw" "$s" "$path" --ref "$ref"
done <"$FX/bad.list"

# 2. Inputs that are not there or not images.
s=$TMP/store-misc
new_store "$s"
expect_failure no-such-path "$TMP/nonexistent" "no such|not found|exist" \
	"$s" "$TMP/nonexistent"
mkdir "$TMP/empty-dir"
expect_failure not-an-image "$TMP/empty-dir" \
	"oci-layout|index|not an|image|layout|no such" "$s" "$TMP/empty-dir"
expect_failure unknown-ref "no-such-tag" "ref|tag|not found|no image" \
	"$s" "$FX/layout" --ref no-such-tag
# A transport prefix skopeo would not know either: say so, name the image once.
expect_failure unknown-transport 'oci2cfs: foo://x: unknown transport "foo"' \
	"known: docker://, containers-storage:" "$s" foo://x
is "$(grep -o 'foo://x' "$TMP/unknown-transport.err" | wc -l)" 1 \
	"unknown-transport: the image is named once, not repeated"
expect_failure not-a-transport 'oci2cfs: xyz:tag: no such file, and "xyz" is not a transport' \
	"known: docker://" "$s" xyz:tag
printf 'not a tar at all\n' >"$TMP/garbage.tar"
expect_failure garbage-file "$TMP/garbage.tar" \
	"archive|tar|format|not an|image|unrecognized" "$s" "$TMP/garbage.tar"

# 3. A store the user cannot write to (as an unprivileged user).
if command -v setpriv >/dev/null; then
	ro=$TMP/ro
	mkdir -p "$ro"
	cp -a "$FX/layout" "$ro/layout"
	new_store "$ro/store"
	chmod -R a+rX "$TMP"
	find "$ro/store" -type d -exec chmod 0555 {} +
	at_exit "chmod -R u+w '$ro'"
	if setpriv --reuid=65534 --regid=65534 --clear-groups \
		test -x "$CFS_BIN/oci2cfs" -a -r "$ro/layout/index.json"; then
		unpriv() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
		before=$(store_objects "$ro/store" | wc -l)
		unpriv "$CFS_BIN/oci2cfs" "$ro/layout" --ref realistic \
			--store "$ro/store" --sync=none -q \
			>"$TMP/ro.out" 2>"$TMP/ro.err"
		st=$?
		[ $st -ne 0 ] && [ $st -lt 128 ]
		ok $? "read-only store: fails with a plain non-zero status (got $st)"
		is "$(wc -l <"$TMP/ro.err")" 1 "read-only store: one error line" ||
			diag_file "$TMP/ro.err" 5
		grep -qiE "permission|denied|read-only|EACCES" "$TMP/ro.err"
		ok $? "read-only store: the error says permission denied" ||
			diag_file "$TMP/ro.err" 3
		is "$(store_objects "$ro/store" | wc -l)" "$before" \
			"read-only store: unchanged"
	else
		skip 4 "uid 65534 cannot reach $CFS_BIN or the fixtures"
	fi
else
	skip 4 "setpriv is not installed"
fi

# 4. A store that runs out of space: a 64 KiB tmpfs.
tiny=$TMP/tiny
mkdir -p "$tiny"
if mount -t tmpfs -o size=64k cfs-enospc "$tiny" 2>"$TMP/mount.err"; then
	at_exit "umount '$tiny'"
	expect_failure enospc "$tiny
$FX/layout" "space|ENOSPC|quota" "$tiny" \
		"$FX/layout" --ref realistic
else
	diag_file "$TMP/mount.err"
	skip 6 "cannot mount a tmpfs"
fi

done_testing
