#!/bin/bash
# SPDX-License-Identifier: MIT
# The README's first command ends in scripts/demo: it must exit 0 (it once
# exited 141, SIGPIPE from `| head` under pipefail, with good output) and
# show what it says: a checked manifest, the first 15 entries of the image
# and a second conversion served from the layer cache.
. "$(dirname "$0")/lib.sh"

plan 4
cd "$TOP"
scripts/demo >"$TMP/out" 2>"$TMP/err"
st=$?
is "$st" 0 "scripts/demo exits 0" || diag_file "$TMP/err"
grep -q '^build/demo/store/images/[0-9a-f]\{64\}\.cfs: ok$' "$TMP/out"
ok $? "the demo's manifest passes cfs-info check"
n=$(sed -n '/^== cfs-info ls (first 15 entries)$/,/^$/p' "$TMP/out" |
	grep -c '^/')
is "$n" 15 "it lists the first 15 entries of the image"
grep -q '^  cached layers \([0-9]*\) of \1, new objects 0$' "$TMP/out"
ok $? "converting again takes every layer from the cache"
