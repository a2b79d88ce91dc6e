#!/bin/bash
# SPDX-License-Identifier: MIT
# oci2cfs prints the manifest's fs-verity digest for mount -o digest=;
# where the manifest has no fs-verity the kernel refuses that mount, so
# oci2cfs says so on stderr (one line naming the manifest), and stays
# quiet where the digest is usable (a store on ext4 with -O verity: the
# printed digest is the one the kernel measures) or --no-verity was asked.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs
require_root "a loop-mounted ext4 with fs-verity"
require_host_tools fsverity mkfs.ext4
build_fixtures

B=$CFS_BIN/oci2cfs
L=$FX/layout
conv() { "$B" "$L" --ref shared-a --sync=none -q "$@"; }
WARN="mount -o digest= cannot use the digest printed"

mkdir -p "$TMP/plain"
echo probe >"$TMP/plain/probe"
if fsverity enable "$TMP/plain/probe" 2>/dev/null; then
	skip 5 "TMP's filesystem has fs-verity"
else
	conv --store "$TMP/plain/s" >"$TMP/p.out" 2>"$TMP/p.err"
	ok $? "a store without fs-verity: the conversion succeeds" ||
		diag_file "$TMP/p.err"
	m=$(head -1 "$TMP/p.out")
	[ "$(wc -l <"$TMP/p.err")" = 1 ] &&
		grep -qF "oci2cfs: warning: $m: no fs-verity" "$TMP/p.err" &&
		grep -qF "$WARN" "$TMP/p.err"
	ok $? "one line on stderr: the digest cannot be used with digest=" ||
		diag_file "$TMP/p.err"
	is "$(wc -l <"$TMP/p.out")" 2 "stdout still holds the path and the digest"
	conv --store "$TMP/plain/s" --no-verity >/dev/null 2>"$TMP/nv.err"
	is "$(cat "$TMP/nv.err")" "" "--no-verity: no warning (asked for)"
	conv --store "$TMP/plain/s" -o "$TMP/plain/out.cfs" >/dev/null 2>"$TMP/o.err"
	[ "$(wc -l <"$TMP/o.err")" = 1 ] &&
		grep -qF "oci2cfs: warning: $TMP/plain/out.cfs: no fs-verity" "$TMP/o.err"
	ok $? "--output FILE: the warning names that file" || diag_file "$TMP/o.err"
fi

if verity_fs 64M; then
	conv --store "$TMP/vfs/s" >"$TMP/v.out" 2>"$TMP/v.err"
	ok $? "a store with fs-verity: the conversion succeeds" ||
		diag_file "$TMP/v.err"
	is "$(cat "$TMP/v.err")" "" "no warning"
	m=$(head -1 "$TMP/v.out")
	is "$(fsverity measure "$m" | awk '{ print substr($1, 8) }')" \
		"$(sed -n 2p "$TMP/v.out")" "the digest printed is the one the kernel measures"
else
	skip 3 "no ext4 with fs-verity here: $(cat "$TMP/verity.err" 2>/dev/null)"
fi

done_testing
