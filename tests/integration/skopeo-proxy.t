#!/bin/bash
# SPDX-License-Identifier: MIT
# What skopeo prints never reaches the image proxy's protocol: a skopeo
# (CFS_SKOPEO) that writes warnings to stderr and stdout, podman's storage
# with a storage.conf that sets no driver (Debian 12's default: c/storage
# then logs an error line on every start), a skopeo that is missing or
# fails before it serves. Each conversion succeeds with the same manifest
# as the layout gives, or fails with one line saying why.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs
require_root "podman's overlay storage"
require_host_tools skopeo python3
build_fixtures

B=$CFS_BIN/oci2cfs
L=$FX/layout
echo '{"default":[{"type":"insecureAcceptAnything"}]}' >"$TMP/accept.json"
conv() { # STORE IMAGE [ARGS...]
	local s=$1 n=$2
	shift 2
	"$B" "$n" --store "$s" --sync=none -q --signature-policy "$TMP/accept.json" "$@"
}
no_images() { [ -z "$(ls -A "$1/images" 2>/dev/null)" ]; }

"$B" "$L" --ref shared-a -o "$TMP/want.cfs" --store "$TMP/ref" --sync=none --no-verity \
	-q >/dev/null || bail "cannot convert shared-a from the layout"
skopeo --insecure-policy copy -q "oci:$L:shared-a" "dir:$TMP/dirimg" \
	>"$TMP/copy.log" 2>&1 || { diag_file "$TMP/copy.log"; bail "skopeo copy"; }

# --- a skopeo that talks: warnings on stderr, a line on stdout ----------------
cat >"$TMP/chatty-skopeo" <<'EOF'
#!/bin/sh
echo 'time="2026-01-01T00:00:00Z" level=warning msg="a warning"' >&2
echo 'time="2026-01-01T00:00:00Z" level=error msg="an error that is not fatal"' >&2
echo 'noise on stdout'
exec skopeo "$@"
EOF
chmod +x "$TMP/chatty-skopeo"
CFS_SKOPEO=$TMP/chatty-skopeo conv "$TMP/s1" "dir:$TMP/dirimg" --no-verity \
	-o "$TMP/chatty.cfs" >"$TMP/p1.out" 2>"$TMP/p1.err"
ok $? "a skopeo that writes to stderr: the conversion succeeds" ||
	diag_file "$TMP/p1.err"
cmp -s "$TMP/want.cfs" "$TMP/chatty.cfs"
ok $? "and gives the layout's manifest"
[ ! -s "$TMP/p1.err" ] && [ "$(wc -l <"$TMP/p1.out")" = 2 ] &&
	! grep -q noise "$TMP/p1.out"
ok $? "skopeo's chatter reaches neither stderr nor oci2cfs's output" ||
	{ diag_file "$TMP/p1.err"; diag_file "$TMP/p1.out"; }

# --- podman's storage with a storage.conf without a driver --------------------
printf '[storage]\ngraphroot = "%s"\nrunroot = "%s"\n' "$TMP/graph" \
	"$TMP/run" >"$TMP/storage.conf"
export CONTAINERS_STORAGE_CONF=$TMP/storage.conf
at_exit "umount -R '$TMP/graph/overlay' 2>/dev/null"
skopeo --insecure-policy copy -q "oci:$L:shared-a" containers-storage:cfs-app \
	>"$TMP/cs.log" 2>&1 || { diag_file "$TMP/cs.log"; bail "skopeo copy to storage"; }
grep -q "driver' option must be set" "$TMP/cs.log"
ok $? "this skopeo logs a storage.conf without a driver on stderr" ||
	diag_file "$TMP/cs.log"
conv "$TMP/s2" containers-storage:cfs-app >"$TMP/p2.out" 2>"$TMP/p2.err"
ok $? "containers-storage:NAME with no driver set succeeds" || diag_file "$TMP/p2.err"
cmp -s "$TMP/want.cfs" "$(head -1 "$TMP/p2.out")"
ok $? "with the layout's manifest"
[ -e "$TMP/s2/refs/docker.io/library/cfs-app:latest" ]
ok $? "recorded as docker.io/library/cfs-app:latest"
unset CONTAINERS_STORAGE_CONF

# --- no skopeo ----------------------------------------------------------------
PATH=$TMP/empty-path conv "$TMP/s3" "dir:$TMP/dirimg" >/dev/null 2>"$TMP/p3.err"
st=$?
failed_one_line $st "$TMP/p3.err" "oci2cfs: dir:$TMP/dirimg: skopeo not found" &&
	no_images "$TMP/s3"
ok $? "no skopeo in PATH: exit $st, one line saying so, no image" ||
	diag_file "$TMP/p3.err"
CFS_SKOPEO=$TMP/no-such-skopeo conv "$TMP/s3" "dir:$TMP/dirimg" >/dev/null \
	2>"$TMP/p4.err"
st=$?
failed_one_line $st "$TMP/p4.err" "cannot run $TMP/no-such-skopeo: No such file"
ok $? "CFS_SKOPEO naming no file: exit $st, one line naming it" ||
	diag_file "$TMP/p4.err"

# --- a skopeo that warns, then fails before serving ---------------------------
cat >"$TMP/failing-skopeo" <<'EOF'
#!/bin/sh
echo 'a warning' >&2
echo 'Error: the proxy broke' >&2
exit 1
EOF
chmod +x "$TMP/failing-skopeo"
CFS_SKOPEO=$TMP/failing-skopeo conv "$TMP/s5" "dir:$TMP/dirimg" >/dev/null \
	2>"$TMP/p5.err"
st=$?
failed_one_line $st "$TMP/p5.err" "dir:$TMP/dirimg: skopeo: Error: the proxy broke" &&
	no_images "$TMP/s5"
ok $? "a skopeo that fails: exit $st, one line with its last message" ||
	diag_file "$TMP/p5.err"

done_testing
