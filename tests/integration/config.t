#!/bin/bash
# SPDX-License-Identifier: MIT
# The default store is configured once: without --store, oci2cfs,
# cfs-store and cfs-podman take $CFS_STORE, else cfs.conf(5)'s store line
# ($CFS_CONFIG names the file here), and --store still wins. A bad file is
# one line naming file and line, exit 1, and nothing is written. The
# installed systemd unit reads the same configuration (no --store of its
# own).
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs cfs-store cfs-podman
require_host_tools python3
build_fixtures
plan 11

names() { # STORE: the ref names cfs-store ls --json lists
	"$CFS_BIN/cfs-store" ls --json --store "$1" | python3 -c '
import json, sys
print(" ".join(sorted(n for i in json.load(sys.stdin) for n in i["names"])))'
}
unset CFS_STORE
export CFS_CONFIG=$TMP/cfs.conf

E=$TMP/env-store
CFS_STORE=$E "$CFS_BIN/oci2cfs" "$FX/layout" --ref empty -q --sync=none \
	>/dev/null
ok $? "oci2cfs with CFS_STORE and no --store"
is "$(names "$E")" "empty" "the image went to \$CFS_STORE"
is "$(CFS_STORE=$E "$CFS_BIN/cfs-store" ls | awk 'NR > 1 { print $NF }')" \
	"empty" "cfs-store ls without --store lists \$CFS_STORE"

C=$TMP/conf-store
printf '# the host store\nstore = %s\n' "$C" >"$CFS_CONFIG"
"$CFS_BIN/oci2cfs" "$FX/layout" --ref shared-a -q --sync=none >/dev/null
ok $? "oci2cfs with cfs.conf's store"
is "$(names "$C")" "shared-a" "the image went to the configured store"
"$CFS_BIN/cfs-podman" list --json >"$TMP/list.json" 2>"$TMP/list.err"
ok $? "cfs-podman list without --store reads the configured store" ||
	diag_file "$TMP/list.err"
CFS_STORE=$E "$CFS_BIN/cfs-store" rm empty --store "$C" >/dev/null 2>&1
[ $? != 0 ] && [ "$(names "$E")" = empty ]
ok $? "--store wins over CFS_STORE (rm empty --store CONF finds none there)"

printf 'store = %s\nstroe = /elsewhere\n' "$C" >"$CFS_CONFIG"
bad=1
for t in oci2cfs cfs-store cfs-podman; do
	case $t in
	oci2cfs) args=("$FX/layout" --ref realistic -q) ;;
	cfs-store) args=(gc) ;;
	cfs-podman) args=(list) ;;
	esac
	run "$CFS_BIN/$t" "${args[@]}"
	bad=1
	failed_one_line "$st" "$TMP/err" "$t: $CFS_CONFIG:2: unknown key 'stroe'" ||
		break
	bad=0
done
ok $bad "a misspelt key: one line naming file and line, exit 1 ($t: $st)" ||
	diag_file "$TMP/err"
is "$(names "$C")" "shared-a" "nothing converted with a bad configuration"

D=$TMP/root
install_into "$D" >"$TMP/install.log" 2>&1
ok $? "make install" || diag_file "$TMP/install.log"
unit=$(find "$D" -name cfs-podman-sync.service)
grep -qx 'ExecStart=/usr/bin/cfs-podman sync' "$unit" &&
	grep -qx 'ConditionPathExists=|/etc/cfs/cfs.conf' "$unit"
ok $? "the systemd unit syncs the configured store" || diag_file "$unit"
