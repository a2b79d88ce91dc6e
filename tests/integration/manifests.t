#!/bin/bash
# SPDX-License-Identifier: MIT
# oci2cfs output does not change by accident: every fixture image converts
# to a manifest whose fs-verity digest is the one recorded in
# manifests.expected (made by the converter before the ISA-L inflate and
# the threaded layer reader, commit eab3266). The fixtures converted here
# are built with `fixtures.py --hostless`: nothing in them comes from this
# host (a stand-in for /bin/busybox), so the digests hold on any Debian 12
# host whatever it has installed; the other tests use the runnable ones.
# A change of the format or of the fixtures changes them on purpose: then
# regenerate the file with
#   MANIFESTS_UPDATE=1 tests/integration/manifests.t
# and say why in the commit.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs
FX=$TMP/fixtures
mkdir -p "$FX"
python3 "$TOP/oci-fixtures/fixtures.py" --hostless "$FX" >"$TMP/fixtures.log" 2>&1 ||
	{ diag_file "$TMP/fixtures.log"; bail "fixtures.py --hostless failed"; }

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

plan $(($(wc -l <"$expected") * 2 + 1))

# What --hostless promises: the same layout with another busybox build and
# another set of installed docs and man pages (root: a mount namespace).
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
	skip 1 "needs root and unshare to hide the host's files"
else
	echo "another busybox" >"$TMP/busybox"
	unshare -m --propagation private bash -c '
		{ [ ! -e /bin/busybox ] || mount --bind "$1/busybox" /bin/busybox; } &&
			mount -t tmpfs doc /usr/share/doc &&
			mount -t tmpfs man /usr/share/man &&
			mkdir -p /usr/share/doc/extra-package &&
			echo more >/usr/share/doc/extra-package/README &&
			python3 "$2" --hostless "$1/fixtures2"' \
		_ "$TMP" "$TOP/oci-fixtures/fixtures.py" >"$TMP/ns.log" 2>&1 &&
		diff -r "$FX/layout" "$TMP/fixtures2/layout" >>"$TMP/ns.log" 2>&1
	ok $? "fixtures.py --hostless: the same bytes with another busybox and other docs" ||
		diag_file "$TMP/ns.log" 20
fi

while read -r name want; do
	for j in 1 2; do
		is "$(awk -v n="$name" -v j="-j$j" '$1 == n && $2 == j { print $3 }' "$got")" \
			"$want" "$name (-j $j): manifest as before"
	done
done <"$expected"
