#!/bin/bash
# SPDX-License-Identifier: MIT
# Sealed and signed, end to end on the host, as a publisher and a host do
# it: the publisher's own GPG key, cfs-seal --sign-by into a local
# docker-registry with the signatures in a lookaside directory that a
# registries.d file names, and a signedBy policy on the pulling side.
# oci2cfs pulls the sealed image to exactly its digest; refuses an unsealed
# (signed) image under --require-seal, a validly signed image whose seal
# names another digest (without --require-seal too), and the sealed
# manifest pushed unsigned to another repository. No refusal leaves a ref
# or a manifest.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs cfs-seal cfs-store
require_root "fixtures are built as root"
require_host_tools skopeo docker-registry gpg gpgconf python3
build_fixtures
plan 16

L=$FX/layout
TAG=realistic
start_registry "$TMP/registry"
R=127.0.0.1:$REGISTRY_PORT
jget() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
id=$(config_hex "$L" "$TAG")

# --- the publisher's key, where signatures go, the host's policy ----------
gpg_home
FPR=$(gpg_key 'cfs publisher <pub@test.invalid>' "$TMP/pub.gpg") &&
	[ -s "$TMP/pub.gpg" ]
ok $? "the publisher's GPG key"
mkdir -p "$TMP/regd" "$TMP/sigs"
printf 'docker:\n  %s:\n    lookaside: file://%s\n    lookaside-staging: file://%s\n' \
	"$R" "$TMP/sigs" "$TMP/sigs" >"$TMP/regd/default.yaml"
printf '{"default": [{"type": "reject"}], "transports": {"docker": {"%s": [{"type": "signedBy", "keyType": "GPGKeys", "keyPath": "%s"}]}}}\n' \
	"$R" "$TMP/pub.gpg" >"$TMP/policy.json"
pull() { # STORE NAME [ARGS...]
	local s=$1 name=$2
	shift 2
	run "$CFS_BIN/oci2cfs" "docker://$R/$name" --store "$s" -q --sync=none \
		--tls-verify=false --signature-policy "$TMP/policy.json" \
		--registries.d "$TMP/regd" "$@"
}
nothing_written() { # STORE
	[ -z "$(ls -A "$1/images" "$1/refs" 2>/dev/null)" ]
}
sign_copy() { # SRC NAME: skopeo copy, signed by the publisher
	skopeo --insecure-policy --registries.d "$TMP/regd" copy -q \
		--dest-tls-verify=false --sign-by "$FPR" "$1" "docker://$R/$2" \
		>"$TMP/copy.log" 2>&1 || { diag_file "$TMP/copy.log"; false; }
}

# --- seal, sign and push; pull ---------------------------------------------
# as the README shows it: options first, an oci-archive the publisher has
archive=$(awk '$1 ~ /realistic.oci.tar$/ { print $1 }' "$FX/archives.list")
run "$CFS_BIN/cfs-seal" --sign-by "$FPR" --registries.d "$TMP/regd" \
	--tls-verify=false "oci-archive:$archive" "docker://$R/app:1"
D=$out
is "$st:$err:${#D}" "0::64" "cfs-seal --sign-by: sealed, signed, pushed"
pull "$TMP/s" app:1 --require-seal --json
is "$st" 0 "oci2cfs --require-seal pulls the signed, sealed image" ||
	diag "$err"
is "$(echo "$out" | jget "['digest']"):$(echo "$out" | jget "['sealed']")" \
	"$D:True" "its manifest measures the seal"
is "$(cat "$TMP/s/images/$id.seal")" "$D" "the seal is recorded"
python3 -c "import json,sys; a = json.load(open(sys.argv[1]))['annotations']
sys.exit(a['composefs.merged.cfs.v1.fsverity-sha256-12'] != sys.argv[2])" \
	"$TMP/s/images/$id.manifest.json" "$D"
ok $? "the stored OCI manifest is the signed one, seal and all"

# --- an unsealed image, validly signed, under --require-seal ----------------
sign_copy "oci:$L:$TAG" plain:1
ok $? "an unsealed image signed and pushed"
pull "$TMP/p" plain:1
is "$st" 0 "the signed unsealed image passes the policy"
pull "$TMP/q" plain:1 --require-seal
case $st:$err in 1:*"docker://$R/plain:1"*"not sealed"*) r=0 ;; *) r=1 ;; esac
ok $r "--require-seal refuses it: $err"
nothing_written "$TMP/q"
ok $? "no ref, no manifest"

# --- a validly signed image whose seal names another digest -----------------
other=$(printf '%064d' 5)
python3 "$TOP/tests/integration/seal-layout.py" "$L" "$TAG" "$TMP/wrong" "$other"
sign_copy "oci:$TMP/wrong:$TAG" wrong:1
pull "$TMP/w" wrong:1
case $st:$err in 1:*"$other"*"$D"*) r=0 ;; *) r=1 ;; esac
ok $r "signed, but sealed for another digest: refused without --require-seal: $err"
is "$(echo "$err" | wc -l)" 1 "in one line"
nothing_written "$TMP/w"
ok $? "no ref, no manifest"

# --- the sealed manifest pushed unsigned to another repository --------------
skopeo --insecure-policy copy -q --remove-signatures --src-tls-verify=false \
	--dest-tls-verify=false "docker://$R/app:1" "docker://$R/copy:1"
ok $? "the sealed image copied unsigned to another repository"
pull "$TMP/c" copy:1 --require-seal
case $st:$err in 1:*"docker://$R/copy:1"*) r=0 ;; *) r=1 ;; esac
ok $r "the policy refuses it: $err"
nothing_written "$TMP/c"
ok $? "no ref, no manifest"
