#!/bin/bash
# SPDX-License-Identifier: MIT
# The registry options podman users type, against a local docker-registry
# that serves TLS (a certificate from a CA this test makes) and wants
# htpasswd basic auth: oci2cfs IMAGE --cert-dir, --tls-verify=false,
# --creds, --authfile, REGISTRY_AUTH_FILE and the file `podman login`
# writes; cfs-podman pull passes them on. No, wrong or unverifiable
# credentials and certificates give one line and leave no manifest or ref.
# Nothing touches the host's /etc/containers or /run/containers.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs cfs-podman
require_root "podman's overlay storage, bind mounts"
require_host_tools skopeo docker-registry podman openssl htpasswd python3 unshare
if [ -z "${REGISTRY_T_IN_NAMESPACE:-}" ]; then
	REGISTRY_T_IN_NAMESPACE=1 exec unshare -m --propagation private "$0" "$@"
fi
build_fixtures

B=$CFS_BIN/oci2cfs
L=$FX/layout
U=cfs-user
PW=s3cret-pw
# podman's own settings, never the host's
. "$TOP/scripts/podman-conf.sh"
podman_private_conf "$TMP/pconf" "$TMP/graph" "$TMP/run" ||
	bail "podman conf"
export XDG_RUNTIME_DIR=$TMP/xdg
unset REGISTRY_AUTH_FILE
mkdir -p "$XDG_RUNTIME_DIR"
echo '{"default":[{"type":"insecureAcceptAnything"}]}' >"$TMP/accept.json"
export CONTAINERS_REGISTRIES_CONF=$TMP/registries.conf
: >"$CONTAINERS_REGISTRIES_CONF"

# --- a CA, a server certificate for 127.0.0.1, an htpasswd file -------------
mkdir -p "$TMP/certs" "$TMP/pki"
(
	cd "$TMP/pki" &&
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
			-nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=cfs-test-ca &&
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
			-keyout srv.key -out srv.csr -subj /CN=127.0.0.1 &&
		printf 'subjectAltName=IP:127.0.0.1\n' >ext &&
		openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key \
			-CAcreateserial -out srv.crt -days 2 -extfile ext
) >"$TMP/pki.log" 2>&1 || { diag_file "$TMP/pki.log"; bail "openssl"; }
cp "$TMP/pki/ca.crt" "$TMP/certs/ca.crt"
htpasswd -Bbn "$U" "$PW" >"$TMP/htpasswd" || bail "htpasswd"

start_registry "$TMP/registry" "  tls:
    certificate: $TMP/pki/srv.crt
    key: $TMP/pki/srv.key" "auth:
  htpasswd:
    realm: cfs-test
    path: $TMP/htpasswd"
R=127.0.0.1:$REGISTRY_PORT
skopeo --insecure-policy copy -q --dest-cert-dir "$TMP/certs" \
	--dest-creds "$U:$PW" "oci:$L:shared-a" "docker://$R/cfs/app:v1" \
	>"$TMP/push.log" 2>&1 || { diag_file "$TMP/push.log"; diag_file "$TMP/registry.log"; bail "cannot push"; }
IMG=docker://$R/cfs/app:v1
"$B" "$L" --ref shared-a -o "$TMP/want.cfs" --store "$TMP/ref" --sync=none --no-verity \
	-q >/dev/null || bail "cannot convert shared-a from the layout"

n=0
# pulls IMAGE [OPTIONS...] into a new store: $st, $s, $TMP/out, $TMP/err
pull() {
	n=$((n + 1))
	s=$TMP/s$n
	"$B" "$@" --store "$s" --sync=none -q --signature-policy "$TMP/accept.json" \
		>"$TMP/out" 2>"$TMP/err"
	st=$?
}
pulled() { # NAME
	[ $st = 0 ] && cmp -s "$TMP/want.cfs" "$(head -1 "$TMP/out")" &&
		[ -e "$s/refs/$R/cfs/app:v1" ]
	ok $? "$1" || diag_file "$TMP/err"
}
refused() { # NAME PATTERN
	failed_one_line $st "$TMP/err" "oci2cfs: $IMG: " &&
		grep -qiE -- "$2" "$TMP/err" &&
		[ -z "$(ls -A "$s/images" "$s/refs" 2>/dev/null)" ]
	ok $? "$1: exit $st, one line, no manifest or ref" || diag_file "$TMP/err"
}

# --- each option works --------------------------------------------------------
pull "$IMG" --cert-dir "$TMP/certs" --creds "$U:$PW"
pulled "--cert-dir DIR --creds USER:PASSWORD: the layout's manifest, the ref"
pull "$IMG" --tls-verify=false --creds "$U:$PW"
pulled "--tls-verify=false (an unknown CA) --creds USER:PASSWORD"
podman login -u "$U" -p "$PW" --cert-dir "$TMP/certs" --authfile "$TMP/auth.json" \
	"$R" >"$TMP/login.log" 2>&1 && [ -s "$TMP/auth.json" ]
ok $? "podman login --authfile FILE writes the file" || diag_file "$TMP/login.log"
pull "$IMG" --authfile "$TMP/auth.json" --cert-dir "$TMP/certs"
pulled "--authfile FILE (written by podman login)"
REGISTRY_AUTH_FILE=$TMP/auth.json pull "$IMG" --cert-dir "$TMP/certs"
pulled "REGISTRY_AUTH_FILE=FILE"
podman login -u "$U" -p "$PW" --cert-dir "$TMP/certs" "$R" >"$TMP/login.log" 2>&1 &&
	[ -s "$XDG_RUNTIME_DIR/containers/auth.json" ]
ok $? "podman login writes \$XDG_RUNTIME_DIR/containers/auth.json" ||
	diag_file "$TMP/login.log"
pull "$IMG" --cert-dir "$TMP/certs"
pulled "without options, the file podman login wrote is used"
printf '[[registry]]\nlocation = "%s"\ninsecure = true\n' "$R" \
	>"$CONTAINERS_REGISTRIES_CONF"
pull "$IMG" --tls-verify --creds "$U:$PW"
refused "--tls-verify overrides an insecure registry in registries.conf" \
	"x509|certificate"
: >"$CONTAINERS_REGISTRIES_CONF"
rm -f "$XDG_RUNTIME_DIR/containers/auth.json"

# --- refused: no, wrong credentials; an unknown CA -----------------------------
pull "$IMG" --cert-dir "$TMP/certs"
refused "no credentials" "unauthorized|authentication"
pull "$IMG" --cert-dir "$TMP/certs" --creds "$U:wrong"
refused "a wrong password" "unauthorized|authentication"
pull "$IMG" --creds "$U:$PW"
refused "a certificate from an unknown CA" "x509|certificate"
pull "$IMG" --cert-dir "$TMP/certs" --authfile "$TMP/no-such.json"
refused "--authfile naming no file" "--authfile $TMP/no-such.json: No such file"
REGISTRY_AUTH_FILE=$TMP/no-such.json pull "$IMG" --cert-dir "$TMP/certs"
refused "REGISTRY_AUTH_FILE naming no file" "REGISTRY_AUTH_FILE $TMP/no-such.json: No such file"
pull "$IMG" --cert-dir "$TMP/no-such-dir" --creds "$U:$PW"
refused "--cert-dir naming no directory" "--cert-dir $TMP/no-such-dir: No such file"
"$B" "$IMG" --tls-verify=maybe --store "$TMP/s-usage" >/dev/null 2>"$TMP/err"
st=$?
[ $st = 2 ] && grep -q "^oci2cfs: --tls-verify: 'maybe' is neither true nor false" \
	"$TMP/err" && [ ! -e "$TMP/s-usage" ]
ok $? "--tls-verify=maybe: a usage error (exit $st)" || diag_file "$TMP/err"

# --- cfs-podman pull passes them on -----------------------------------------------
cat >"$TMP/fake-mount" <<'EOF'
#!/bin/sh
mkdir -p "$FAKE_TREE" && exec mount --bind "$FAKE_TREE" "$2"
EOF
chmod +x "$TMP/fake-mount"
export CFS_MOUNT_HELPER=$TMP/fake-mount FAKE_TREE=$TMP/tree
at_exit 'findmnt -rn -o TARGET | grep "^$TMP/" | sort -r | xargs -r -d "\n" umount -l'
"$CFS_BIN/cfs-podman" pull "$IMG" --cert-dir "$TMP/certs" --store "$TMP/cs" \
	--signature-policy "$TMP/accept.json" >"$TMP/err" 2>&1
st=$?
[ $st = 1 ] && grep -qiE "unauthorized|authentication" "$TMP/err" &&
	[ -z "$(ls -A "$TMP/cs/refs" 2>/dev/null)" ]
ok $? "cfs-podman pull without credentials: refused (exit $st), no ref" ||
	diag_file "$TMP/err"
"$CFS_BIN/cfs-podman" pull "$IMG" --cert-dir "$TMP/certs" --creds "$U:$PW" \
	--tls-verify=true --authfile "$TMP/auth.json" --store "$TMP/cs" \
	--signature-policy "$TMP/accept.json" >"$TMP/out" 2>"$TMP/err"
ok $? "cfs-podman pull IMAGE --cert-dir --creds --tls-verify --authfile" ||
	diag_file "$TMP/err"
"$CFS_BIN/cfs-podman" list --store "$TMP/cs" >"$TMP/list" 2>&1
grep -qF "$R/cfs/app:v1" "$TMP/list"
ok $? "and registers the image under the name pulled" || diag_file "$TMP/list"
"$CFS_BIN/cfs-podman" list --creds "$U:$PW" --store "$TMP/cs" >/dev/null 2>"$TMP/err"
st=$?
[ $st = 2 ] && grep -q "creds" "$TMP/err"
ok $? "a registry option is refused outside pull (exit $st)" || diag_file "$TMP/err"

done_testing
