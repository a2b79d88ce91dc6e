#!/bin/bash
# SPDX-License-Identifier: MIT
# oci2cfs's progress on a terminal fits its width: on a 50-column and a
# 72-column terminal (script(1) makes one, stty sets its size) no line of
# the display is wider than the terminal less one column, so a carriage
# return always goes back over the whole line; the per-layer lines are
# still there.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs
require_host_tools script stty python3
build_fixtures

B=$CFS_BIN/oci2cfs
L=$FX/layout

# the display's lines as a terminal shows them: split at CR and LF,
# erase-line sequences removed
lines() { sed 's/\x1b\[K//g' "$1" | tr '\r' '\n' | grep -v '^$'; }

for cols in 50 72; do
	script -qec "stty cols $cols; '$B' '$L' --ref realistic -j 2 \
		--store '$TMP/s$cols' --sync=none --no-verity \
		-o '$TMP/out$cols.cfs'" /dev/null >"$TMP/tty$cols" 2>&1
	ok $? "$cols columns: the conversion succeeds" || diag_file "$TMP/tty$cols"
	lines "$TMP/tty$cols" | grep -v "^$TMP/out$cols.cfs\$" |
		grep -vE '^[0-9a-f]{64}$' >"$TMP/lines$cols"
	grep -q '^layers ' "$TMP/lines$cols" &&
		[ "$(grep -c '^layer [0-9]/3 ' "$TMP/lines$cols")" = 3 ]
	ok $? "$cols columns: a status line and a line per layer" ||
		diag_file "$TMP/lines$cols"
	wide=$(awk -v max=$((cols - 1)) 'length($0) > max' "$TMP/lines$cols")
	is "$wide" "" "$cols columns: no progress line is wider than $((cols - 1))"
done

done_testing
