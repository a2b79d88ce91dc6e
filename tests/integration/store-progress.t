#!/bin/bash
# SPDX-License-Identifier: MIT
# cfs-store fsck on a terminal shows how far it is (objects checked of
# all), cut to the terminal's width and erased before the report; with
# stderr not a terminal (a pipe, a log) nothing but the report is printed.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs cfs-store
require_host_tools script stty
build_fixtures
plan 5

S=$TMP/store
"$CFS_BIN/oci2cfs" "$FX/layout" --ref realistic --store "$S" -q --sync=none
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
