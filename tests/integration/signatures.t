#!/bin/bash
# SPDX-License-Identifier: MIT
# Image signatures under a containers-policy.json(5) that requires them:
# GPG simple signing (signedBy) with signatures skopeo writes into a
# lookaside directory named by a registries.d file, and sigstore
# (sigstoreSigned) attachments REPO:sha256-HEX.sig made by hand (skopeo
# 1.9 cannot make a sigstore key). oci2cfs accepts what is properly
# signed and refuses, in one line naming the image and why, leaving no
# manifest and no ref, what is unsigned, signed by another key, tampered
# with, signed for another repository. Nothing touches the host's
# /etc/containers or the user's keyring: everything is under TMP.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs cfs-podman
require_root "fixtures are built as root"
require_host_tools skopeo docker-registry python3 gpg gpgconf openssl curl
build_fixtures

L=$FX/layout
B=$CFS_BIN/oci2cfs

start_registry "$TMP/registry"
R=127.0.0.1:$REGISTRY_PORT
export CONTAINERS_REGISTRIES_CONF=$TMP/registries.conf
printf '[[registry]]\nlocation = "%s"\ninsecure = true\n' "$R" \
	>"$CONTAINERS_REGISTRIES_CONF"

# --- keys, lookaside, policy --------------------------------------------------
gpg_home
FPR=$(gpg_key 'cfs test <signer@example.org>' "$TMP/signer.gpg") &&
	FPR2=$(gpg_key 'cfs other <other@example.org>') ||
	bail "cannot make a GPG key"

SIGS=$TMP/sigstore
D=$TMP/registries.d
mkdir -p "$D" "$SIGS"
cat >"$D/lookaside.yaml" <<EOF
default-docker:
  lookaside: file://$SIGS
  lookaside-staging: file://$SIGS
EOF
cat >"$TMP/gpg-policy.json" <<EOF
{"default":[{"type":"reject"}],"transports":{"docker":{"$R/cfs":[
 {"type":"signedBy","keyType":"GPGKeys","keyPath":"$TMP/signer.gpg"}]}}}
EOF

push() { # SRC DEST [SKOPEO COPY ARGS...]
	local src=$1 dest=$2
	shift 2
	skopeo --registries.d "$D" --insecure-policy copy -q \
		--dest-tls-verify=false "$@" "$src" "docker://$R/$dest" \
		>"$TMP/push.log" 2>&1 || { diag_file "$TMP/push.log"; bail "cannot push $dest"; }
}
push "oci:$L:shared-a" cfs/signed:1 --sign-by "$FPR"
push "oci:$L:shared-a" cfs/unsigned:1
push "oci:$L:shared-a" cfs/other:1 --sign-by "$FPR2"
push "oci:$L:shared-b" cfs/tamper:1 --sign-by "$FPR"
push "oci:$L:shared-a" cfs/moved:1
digest_of() { skopeo inspect --tls-verify=false "docker://$R/$1" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["Digest"])'; }
DA=$(digest_of cfs/signed:1)
# the signature of cfs/signed, put where cfs/moved's would be
cp -r "$SIGS/cfs/signed@${DA/:/=}" "$SIGS/cfs/moved@${DA/:/=}"
DT=$(digest_of cfs/tamper:1)
python3 - "$SIGS/cfs/tamper@${DT/:/=}/signature-1" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) - 8] ^= 0x01  # in the compressed message: what gpg then sees varies
open(sys.argv[1], "wb").write(b)
EOF

pull() { # STORE NAME POLICY [ARGS...]
	local s=$1 n=$2 p=$3
	shift 3
	"$B" "$n" --store "$s" --sync=none -q --signature-policy "$p" \
		--registries.d "$D" "$@"
}
refs_and_images() { (cd "$1" 2>/dev/null && find images refs -type f -o -type l 2>/dev/null); }
# NAME IMAGE POLICY PATTERN: refused in one line naming IMAGE and /PATTERN/
refused() {
	local name=$1 img=$2 pol=$3 pat=$4 s=$TMP/s-$1 st
	pull "$s" "$img" "$pol" >/dev/null 2>"$TMP/$name.err"
	st=$?
	[ $st = 1 ] && [ "$(wc -l <"$TMP/$name.err")" = 1 ] &&
		grep -qF "$img" "$TMP/$name.err" && grep -qE "$pat" "$TMP/$name.err"
	ok $? "$name: refused in one line naming the image and /$pat/" ||
		diag_file "$TMP/$name.err"
	[ -z "$(refs_and_images "$s")" ]
	ok $? "$name: no manifest and no ref in the store"
}

# --- signedBy -----------------------------------------------------------------
pull "$TMP/s1" "docker://$R/cfs/signed:1" "$TMP/gpg-policy.json" \
	>"$TMP/s1.out" 2>"$TMP/s1.err"
ok $? "an image signed by the policy's key is accepted" || diag_file "$TMP/s1.err"
[ -f "$(head -1 "$TMP/s1.out")" ] && [ -e "$TMP/s1/refs/$R/cfs/signed:1" ]
ok $? "and converted: its manifest and its ref are in the store"

blob_gets() { grep -ac "GET /v2/$1/blobs/" "$TMP/registry.log"; }
gets_before=$(blob_gets cfs/unsigned)
refused unsigned "docker://$R/cfs/unsigned:1" "$TMP/gpg-policy.json" \
	"signedBy: a signature was required, but no signature exists"
is "$(blob_gets cfs/unsigned)" "$gets_before" \
	"refused right after the manifest: neither its config nor a layer fetched"
refused otherkey "docker://$R/cfs/other:1" "$TMP/gpg-policy.json" \
	"signedBy: no signature accepted: .*signature-1: .*(not accepted|No public key)"
refused tampered "docker://$R/cfs/tamper:1" "$TMP/gpg-policy.json" \
	"signedBy: no signature accepted: .*signature-1: .*GPG"
# a signature made with gpg itself, uncompressed: one changed byte of the
# signed payload is a bad signature, whatever else is intact
push "oci:$L:shared-a" cfs/byhand:1
mkdir -p "$SIGS/cfs/byhand@${DA/:/=}"
BH=$SIGS/cfs/byhand@${DA/:/=}/signature-1
printf '{"critical":{"identity":{"docker-reference":"%s"},"image":{"docker-manifest-digest":"%s"},"type":"atomic container signature"},"optional":{"creator":"cfs test"}}' \
	"$R/cfs/byhand:1" "$DA" | gpg --batch -q --compress-algo none -u "$FPR" --sign >"$BH" ||
	bail "gpg --sign failed"
pull "$TMP/s1b" "docker://$R/cfs/byhand:1" "$TMP/gpg-policy.json" >/dev/null 2>"$TMP/s1b.err"
ok $? "a payload signed with gpg --sign is accepted" || diag_file "$TMP/s1b.err"
sed -i 's/cfs test/cfs tesT/' "$BH"
refused payload "docker://$R/cfs/byhand:1" "$TMP/gpg-policy.json" \
	"signature-1: invalid GPG signature \(Bad signature\)"
refused otherrepo "docker://$R/cfs/moved:1" "$TMP/gpg-policy.json" \
	"identity $R/cfs/signed:1 is not accepted"

# without --registries.d: $HOME/.config/containers/registries.d
mkdir -p "$TMP/home/.config/containers"
cp -r "$D" "$TMP/home/.config/containers/registries.d"
HOME=$TMP/home "$B" "docker://$R/cfs/signed:1" --store "$TMP/s1c" --sync=none -q \
	--signature-policy "$TMP/gpg-policy.json" >/dev/null 2>"$TMP/s1c.err"
ok $? "without --registries.d, \$HOME/.config/containers/registries.d is read" ||
	diag_file "$TMP/s1c.err"
# an http lookaside: 404 is no signature; a server that cannot be reached,
# or a URL cfs cannot place a path in, is an error, never no signature
HPORT=$(free_port)
python3 -m http.server --bind 127.0.0.1 --directory "$SIGS" "$HPORT" \
	>"$TMP/http.log" 2>&1 &
at_exit "kill $! 2>/dev/null; wait $! 2>/dev/null"
wait_port "$HPORT" || bail "http.server did not start"
mkdir "$TMP/http.d"
printf 'default-docker:\n  lookaside: http://127.0.0.1:%s\n' "$HPORT" >"$TMP/http.d/a.yaml"
D_SAVED=$D
D=$TMP/http.d
pull "$TMP/s1d" "docker://$R/cfs/signed:1" "$TMP/gpg-policy.json" >/dev/null 2>"$TMP/s1d.err"
ok $? "an http lookaside: the signed image is accepted" || diag_file "$TMP/s1d.err"
grep -q "GET /cfs/signed@sha256=[0-9a-f]*/signature-2 HTTP/1.1\" 404" "$TMP/http.log"
ok $? "signature-1 read, and signature-2's 404 ends the list" || diag_file "$TMP/http.log"
refused http404 "docker://$R/cfs/unsigned:1" "$TMP/gpg-policy.json" \
	"signedBy: a signature was required, but no signature exists"
printf 'default-docker:\n  lookaside: https://127.0.0.1:%s\n' "$(free_port)" >"$TMP/http.d/a.yaml"
refused httpsdown "docker://$R/cfs/signed:1" "$TMP/gpg-policy.json" \
	"signatures \(registries.d $TMP/http.d\): https://127.0.0.1:[0-9]+/cfs/signed@sha256=[0-9a-f]{64}/signature-1: "
printf 'default-docker:\n  lookaside: https://sigs.example.org/x?token=1\n' >"$TMP/http.d/a.yaml"
refused httpquery "docker://$R/cfs/signed:1" "$TMP/gpg-policy.json" \
	"lookaside https://sigs.example.org/x\?token=1: not a file:///PATH or http\(s\) URL"
D=$D_SAVED

cat >"$TMP/keydata-policy.json" <<EOF
{"default":[{"type":"signedBy","keyType":"GPGKeys",
 "keyData":"$(base64 -w0 "$TMP/signer.gpg")"}]}
EOF
pull "$TMP/s2" "docker://$R/cfs/signed:1" "$TMP/keydata-policy.json" \
	>/dev/null 2>"$TMP/s2.err"
ok $? "keyData: the key inline in the policy accepts it too" || diag_file "$TMP/s2.err"

cat >"$TMP/repo-policy.json" <<EOF
{"default":[{"type":"signedBy","keyType":"GPGKeys","keyPath":"$TMP/signer.gpg",
 "signedIdentity":{"type":"matchRepository"}}]}
EOF
refused matchrepo "docker://$R/cfs/moved:1" "$TMP/repo-policy.json" \
	"identity $R/cfs/signed:1 is not accepted \(matchRepository\)"
cat >"$TMP/exactrepo-policy.json" <<EOF
{"default":[{"type":"signedBy","keyType":"GPGKeys","keyPath":"$TMP/signer.gpg",
 "signedIdentity":{"type":"exactRepository","dockerRepository":"$R/cfs/signed"}}]}
EOF
pull "$TMP/s3" "docker://$R/cfs/moved:1" "$TMP/exactrepo-policy.json" \
	>/dev/null 2>"$TMP/s3.err"
ok $? "exactRepository naming the signed repository accepts the moved copy" ||
	diag_file "$TMP/s3.err"
cat >"$TMP/both-policy.json" <<EOF
{"default":[{"type":"insecureAcceptAnything"},
 {"type":"signedBy","keyType":"GPGKeys","keyPath":"$TMP/signer.gpg"}]}
EOF
refused every "docker://$R/cfs/unsigned:1" "$TMP/both-policy.json" \
	"no signature exists"

# a multi-platform index, every instance signed (--all): the host's is read
python3 - "$L" "$TMP/multi" <<'EOF'
import hashlib, json, os, shutil, sys
src, dst = sys.argv[1:]
shutil.copytree(src, dst)
idx = json.load(open(os.path.join(src, "index.json")))
by_ref = {m["annotations"]["org.opencontainers.image.ref.name"]: m
          for m in idx["manifests"] if "annotations" in m}
arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(os.uname().machine, "amd64")
other = "arm64" if arch == "amd64" else "amd64"
def desc(m, a):
    return {"mediaType": m["mediaType"], "digest": m["digest"], "size": m["size"],
            "platform": {"os": "linux", "architecture": a}}
inner = json.dumps({"schemaVersion": 2,
                    "mediaType": "application/vnd.oci.image.index.v1+json",
                    "manifests": [desc(by_ref["shared-b"], other),
                                  desc(by_ref["shared-a"], arch)]}).encode()
h = hashlib.sha256(inner).hexdigest()
open(os.path.join(dst, "blobs/sha256", h), "wb").write(inner)
json.dump({"schemaVersion": 2, "manifests": [
    {"mediaType": "application/vnd.oci.image.index.v1+json",
     "digest": "sha256:" + h, "size": len(inner),
     "annotations": {"org.opencontainers.image.ref.name": "multi"}}]},
    open(os.path.join(dst, "index.json"), "w"))
EOF
push "oci:$TMP/multi:multi" cfs/multi:1 --all --sign-by "$FPR"
# the index's own signature goes: only the instance's can be what is read
DI=$(skopeo inspect --raw --tls-verify=false "docker://$R/cfs/multi:1" | sha256sum)
[ -d "$SIGS/cfs/multi@sha256=${DI%% *}" ] || bail "no signature of the index"
rm -r "$SIGS/cfs/multi@sha256=${DI%% *}"
pull "$TMP/s4" "docker://$R/cfs/multi:1" "$TMP/gpg-policy.json" \
	-o "$TMP/multi.cfs" >/dev/null 2>"$TMP/s4.err"
ok $? "a multi-platform index signed with --all: the host's instance is accepted" ||
	diag_file "$TMP/s4.err"
pull "$TMP/s4b" "docker://$R/cfs/signed:1" "$TMP/gpg-policy.json" \
	-o "$TMP/single.cfs" >/dev/null 2>&1
cmp -s "$TMP/multi.cfs" "$TMP/single.cfs"
ok $? "and it is the host's image (the same manifest as the single one)"

# cfs-podman pull goes through oci2cfs: the same refusal
"$CFS_BIN/cfs-podman" --store "$TMP/s-podman" pull "docker://$R/cfs/unsigned:1" \
	--signature-policy "$TMP/gpg-policy.json" --registries.d "$D" \
	>/dev/null 2>"$TMP/podman.err"
failed_one_line $? "$TMP/podman.err" "no signature exists" &&
	grep -qF "docker://$R/cfs/unsigned:1" "$TMP/podman.err"
ok $? "cfs-podman pull refuses an unsigned image in one line" ||
	diag_file "$TMP/podman.err"
[ -z "$(refs_and_images "$TMP/s-podman")" ]
ok $? "cfs-podman pull: no manifest and no ref in the store"

# a dir: image keeps its signatures beside it: only exact identities fit it
skopeo --registries.d "$D" --insecure-policy copy -q --src-tls-verify=false \
	"docker://$R/cfs/signed:1" "dir:$TMP/dirimg" >"$TMP/dir.log" 2>&1 &&
	[ -f "$TMP/dirimg/signature-1" ] || { diag_file "$TMP/dir.log"; bail "no signed dir: copy"; }
cat >"$TMP/dir-policy.json" <<EOF
{"default":[{"type":"reject"}],"transports":{"dir":{"":[
 {"type":"signedBy","keyType":"GPGKeys","keyPath":"$TMP/signer.gpg",
  "signedIdentity":{"type":"exactReference","dockerReference":"$R/cfs/signed:1"}}]}}}
EOF
pull "$TMP/s6" "dir:$TMP/dirimg" "$TMP/dir-policy.json" >/dev/null 2>"$TMP/s6.err"
ok $? "dir: its signature-1, with exactReference, is accepted" || diag_file "$TMP/s6.err"
cat >"$TMP/dir-default.json" <<EOF
{"default":[{"type":"signedBy","keyType":"GPGKeys","keyPath":"$TMP/signer.gpg"}]}
EOF
refused dirdefault "dir:$TMP/dirimg" "$TMP/dir-default.json" \
	"needs a docker reference, and the image has none"

# --- sigstoreSigned -------------------------------------------------------------
openssl ecparam -name prime256v1 -genkey -noout -out "$TMP/cosign.key" 2>/dev/null &&
	openssl ec -in "$TMP/cosign.key" -pubout -out "$TMP/cosign.pub" 2>/dev/null &&
	openssl ecparam -name prime256v1 -genkey -noout -out "$TMP/wrong.key" 2>/dev/null &&
	openssl ec -in "$TMP/wrong.key" -pubout -out "$TMP/wrong.pub" 2>/dev/null ||
	bail "cannot make EC keys"
push "oci:$L:shared-a" cfs/cosign:1
DC=$(digest_of cfs/cosign:1)
printf '{"critical":{"identity":{"docker-reference":"%s"},"image":{"docker-manifest-digest":"%s"},"type":"cosign container image signature"},"optional":null}' \
	"$R/cfs/cosign:1" "$DC" >"$TMP/payload.json"
openssl dgst -sha256 -sign "$TMP/cosign.key" -out "$TMP/payload.sig" "$TMP/payload.json"
# the attachment: an OCI image whose one layer is the payload
python3 - "$TMP/att" "$TMP/payload.json" "$(base64 -w0 "$TMP/payload.sig")" <<'EOF'
import hashlib, json, os, sys
dst, payload, sig = sys.argv[1], open(sys.argv[2], "rb").read(), sys.argv[3]
os.makedirs(os.path.join(dst, "blobs/sha256"))
def blob(b):
    h = hashlib.sha256(b).hexdigest()
    open(os.path.join(dst, "blobs/sha256", h), "wb").write(b)
    return "sha256:" + h
cfg = b"{}"
m = json.dumps({"schemaVersion": 2,
    "mediaType": "application/vnd.oci.image.manifest.v1+json",
    "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
               "digest": blob(cfg), "size": len(cfg)},
    "layers": [{"mediaType": "application/vnd.dev.cosign.simplesigning.v1+json",
                "digest": blob(payload), "size": len(payload),
                "annotations": {"dev.cosignproject.cosign/signature": sig}}]}).encode()
json.dump({"schemaVersion": 2, "manifests": [
    {"mediaType": "application/vnd.oci.image.manifest.v1+json",
     "digest": blob(m), "size": len(m),
     "annotations": {"org.opencontainers.image.ref.name": "att"}}]},
    open(os.path.join(dst, "index.json"), "w"))
open(os.path.join(dst, "oci-layout"), "w").write('{"imageLayoutVersion": "1.0.0"}')
EOF
push "oci:$TMP/att:att" "cfs/cosign:${DC/:/-}.sig" --preserve-digests
cat >"$D/attachments.yaml" <<EOF
docker:
  $R/cfs/cosign:
    use-sigstore-attachments: true
  $R/cfs/unsigned:
    use-sigstore-attachments: true
EOF
cat >"$TMP/cosign-policy.json" <<EOF
{"default":[{"type":"sigstoreSigned","keyPath":"$TMP/cosign.pub"}]}
EOF
cat >"$TMP/wrong-policy.json" <<EOF
{"default":[{"type":"sigstoreSigned","keyPath":"$TMP/wrong.pub"}]}
EOF
pull "$TMP/s5" "docker://$R/cfs/cosign:1" "$TMP/cosign-policy.json" \
	>"$TMP/s5.out" 2>"$TMP/s5.err"
ok $? "a sigstore attachment signed by the policy's key is accepted" ||
	diag_file "$TMP/s5.err"
[ -e "$TMP/s5/refs/$R/cfs/cosign:1" ]
ok $? "and the image is converted"
refused wrongkey "docker://$R/cfs/cosign:1" "$TMP/wrong-policy.json" \
	"sigstoreSigned: no signature accepted: .*verification failed"
refused nosigstore "docker://$R/cfs/signed:1" "$TMP/cosign-policy.json" \
	"sigstoreSigned: a signature was required, but no signature exists$"
refused noattachment "docker://$R/cfs/unsigned:1" "$TMP/cosign-policy.json" \
	"no signature exists \(no sigstore attachment docker://$R/cfs/unsigned:sha256-[0-9a-f]{64}\.sig: "

done_testing
