#!/bin/bash
# SPDX-License-Identifier: MIT
# Source style and documentation: every userspace C file (tools, tests,
# bench) is clang-format clean with the repo's .clang-format, every line
# of a tool's --help text is one string literal ending in \n (so that
# clang-format never splits a phrase mid-word: issue #33 point 5), and every
# option oci2cfs --help lists is in its man page (the other tools' tests
# check theirs).
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs
require_host_tools clang-format git
plan 4

cd "$TOP"
bad=$(git ls-files 'src/*.[ch]' 'tests/*.[ch]' 'bench/*.[ch]' |
	while read -r f; do
		clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"
	done)
is "$bad" "" "all userspace C files are clang-format clean"

split=$(git ls-files 'src/*/*.c' | grep -v '^src/lib/' | xargs awk '
	/^static const char [a-z_]*usage[a-z_]*\[\] =/ { p = 1; next }
	p && /"/ && !/\\n";?$/ { print FILENAME ":" FNR ": " $0 }
	p && /;$/ { p = 0 }')
is "$split" "" "every --help line is one literal ending in \\n"

missing=$("$CFS_BIN/oci2cfs" --help | grep -o -- '--[a-z][a-z-]*' | sort -u |
	while read -r opt; do
		grep -q -- "$(echo "$opt" | sed 's/-/\\\\-/g')" man/oci2cfs.1 ||
			echo "$opt"
	done)
is "$missing" "" "every oci2cfs option is documented in oci2cfs(1)"

# Every man page carries the packaged version (debian/changelog's, which
# --version prints) and one date, so `man` shows which release it documents.
version=$(awk -F'[()]' 'NR == 1 { sub(/-[^-]*$/, "", $2); print $2 }' \
	debian/changelog)
stale=$(for f in man/*.[0-9]; do
	grep -m1 '^\.TH ' "$f" | grep -q " \"cfs $version\" " || echo "$f"
done)
dates=$(grep -h -m1 '^\.TH ' man/*.[0-9] | awk '{ print $4 }' | sort -u | wc -l)
[ -z "$stale" ] && [ "$dates" = 1 ]
ok $? "every man page names cfs $version and one date${stale:+ (not: $stale)}"
