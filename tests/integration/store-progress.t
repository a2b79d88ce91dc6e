#!/bin/bash
# SPDX-License-Identifier: MIT
# cfs-store fsck and gc on a terminal show how far they are (objects
# checked of all; object directories swept of 256), cut to the terminal's
# width and erased before the report; with stderr not a terminal (a pipe,
# a log) nothing but the report is printed.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs cfs-store
require_host_tools script stty
build_fixtures
plan 7

S=$TMP/store
"$CFS_BIN/oci2cfs" "$FX/layout" --ref realistic --store "$S" -q --sync=none \
	>/dev/null
ok $? "a store with an image"
n=$(find "$S" -mindepth 2 -maxdepth 2 -type f -regextype posix-extended \
	-regex '.*/[0-9a-f]{2}/[0-9a-f]{62}' | wc -l)

# script(1) gives the command a terminal; its output is what the user sees.
script -qc "stty cols 200; '$CFS_BIN/cfs-store' fsck -s '$S'" /dev/null \
	>"$TMP/tty.out" 2>&1
grep -Eq "fsck: objects [0-9]+/$n \([0-9]+%\)" "$TMP/tty.out"
ok $? "on a terminal: 'fsck: objects DONE/$n (P%)'" || diag_file "$TMP/tty.out"
tr '\r' '\n' <"$TMP/tty.out" | grep -q "^.\[K$n objects checked"
ok $? "the status line is erased before the report" ||
	diag_file "$TMP/tty.out"
script -qc "stty cols 12; '$CFS_BIN/cfs-store' fsck -s '$S'" /dev/null \
	>"$TMP/narrow.out" 2>&1
tr '\r' '\n' <"$TMP/narrow.out" | grep '^fsck' | sed 's/\x1b\[K//g' \
	>"$TMP/narrow.lines"
[ -s "$TMP/narrow.lines" ] &&
	awk 'length($0) > 11 { bad = 1 } END { exit bad }' "$TMP/narrow.lines"
ok $? "on a 12-column terminal the line fits in 11 columns" ||
	diag_file "$TMP/narrow.out"
"$CFS_BIN/cfs-store" fsck -s "$S" >/dev/null 2>"$TMP/pipe.err"
[ ! -s "$TMP/pipe.err" ]
ok $? "stderr not a terminal: no status line" || diag_file "$TMP/pipe.err"

script -qc "stty cols 200; '$CFS_BIN/cfs-store' gc -s '$S'" /dev/null \
	>"$TMP/gc.out" 2>&1
grep -Eq "gc: object directories [0-9]+/256 \([0-9]+%\)" "$TMP/gc.out" &&
	tr '\r' '\n' <"$TMP/gc.out" | grep -q "^.\[Kremoved 0 images"
ok $? "gc on a terminal: 'gc: object directories N/256 (P%)', then erased" ||
	diag_file "$TMP/gc.out"
"$CFS_BIN/cfs-store" gc -s "$S" >/dev/null 2>"$TMP/gc.err"
[ ! -s "$TMP/gc.err" ]
ok $? "gc with stderr not a terminal: no status line" || diag_file "$TMP/gc.err"
