#!/bin/bash
# SPDX-License-Identifier: MIT
# oci2cfs output does not change by accident: every fixture image converts
# to a manifest whose fs-verity digest is the one recorded in
# manifests.expected (made by the converter before the ISA-L inflate and
# the threaded layer reader, commit eab3266). A change of the format or of
# the fixtures changes them on purpose: then regenerate the file with
#   MANIFESTS_UPDATE=1 tests/integration/manifests.t
# and say why in the commit.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs
build_fixtures

expected=$TOP/tests/integration/manifests.expected
got=$TMP/manifests
while read -r name ref; do
	for j in 1 2; do
		rm -rf "$TMP/store"
		digest=$("$CFS_BIN/oci2cfs" "$FX/layout" --ref "$ref" -j $j \
			--store "$TMP/store" --sync=none -q --json 2>"$TMP/err" |
			sed -n 's/^ *"digest": *"\([0-9a-f]*\)".*/\1/p')
		echo "$name -j$j ${digest:-failed}"
	done
done <"$FX/fixtures.list" >"$got"
if [ -n "${MANIFESTS_UPDATE:-}" ]; then
	grep ' -j1 ' "$got" | sed 's/ -j1 / /' >"$expected"
	echo "# wrote $expected" >&2
fi

plan $(($(wc -l <"$expected") * 2))
while read -r name want; do
	for j in 1 2; do
		is "$(awk -v n="$name" -v j="-j$j" '$1 == n && $2 == j { print $3 }' "$got")" \
			"$want" "$name (-j $j): manifest as before"
	done
done <"$expected"
