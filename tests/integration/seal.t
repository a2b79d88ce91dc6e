#!/bin/bash
# SPDX-License-Identifier: MIT
# cfs-seal SOURCE DEST, the publisher's side of sealed images, against a
# local docker-registry: the seal on DEST's manifest is the digest oci2cfs
# gets converting the same image anywhere else; config (so the image id)
# and layers stay; a docker schema2 image keeps its config bytes; each
# image of a multi-platform index (OCI, or a docker list) is sealed with
# its own digest; --store gets objects only; a GPG
# signature made while copying lands in the lookaside and satisfies a
# signedBy policy that refuses an unsigned copy; an oci: DEST; a seal
# already there is kept when right, refused when wrong (--reseal replaces
# it); an oci: SOURCE is read in place (its blobs linked, so TMPDIR needs
# no room for them; copied from another filesystem), under the policy's
# path scopes, and a damaged one is refused; errors are one line naming
# SOURCE or DEST and leave no temp dir, nor does SIGTERM.
. "$(dirname "$0")/lib.sh"

require_cfs_tools cfs-seal oci2cfs
require_root "fixtures are built as root"
require_host_tools skopeo docker-registry gpg python3
build_fixtures
plan 63

SEAL=$CFS_BIN/cfs-seal
L=$FX/layout
export TMPDIR=$TMP/tmpdir # where cfs-seal's temp dirs go (and must go)
mkdir -p "$TMPDIR"
start_registry "$TMP/registry"
R=127.0.0.1:$REGISTRY_PORT
NOTLS=--tls-verify=false

# the digest oci2cfs gets converting IMAGE into a store of its own
d_of() { # IMAGE [OCI2CFS OPTION...]
	local img=$1
	shift
	"$CFS_BIN/oci2cfs" "$@" --json -q --no-verity --sync=none \
		--store "$TMP/other-store" --output "$TMP/other.cfs" "$img" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["digest"])'
}
raw() { # IMAGE: its manifest as the registry serves it
	skopeo inspect --raw --tls-verify=false "$1"
}
field() { # PYTHON-EXPRESSION on m (the JSON on stdin)
	python3 -c "import json, sys; m = json.load(sys.stdin); print($1)"
}
SEAL_KEY=composefs.merged.cfs.v1.fsverity-sha256-12
seal_of() { # the seal annotation of the manifest on stdin
	field "m.get('annotations', {}).get('$SEAL_KEY', '')"
}
no_tmp_left() {
	[ -z "$(ls -A "$TMPDIR")" ]
}

# --- one image, from an OCI layout to a registry ---------------------------
run "$SEAL" "$NOTLS" "oci:$L:realistic" "docker://$R/app:sealed"
is "$st:$err" "0:" "cfs-seal oci:LAYOUT:realistic docker://R/app:sealed"
D=$out
want=$(d_of "oci:$L:realistic")
is "$D" "$want" "it prints D, the digest oci2cfs gets from the source"
M=$(raw "docker://$R/app:sealed")
is "$(seal_of <<<"$M")" "$want" "the manifest in the registry carries the seal D"
is "$(field 'm["config"]["digest"]' <<<"$M")" \
	"sha256:$(config_hex "$L" realistic)" \
	"the config digest (the image id) is the source's"
src_layers=$(python3 - "$L" <<'EOF'
import json, os, sys
lay = sys.argv[1]
idx = json.load(open(os.path.join(lay, "index.json")))
d = [m for m in idx["manifests"] if m["annotations"]
     ["org.opencontainers.image.ref.name"] == "realistic"][0]["digest"]
m = json.load(open(os.path.join(lay, "blobs", *d.split(":"))))
print(" ".join(l["digest"] for l in m["layers"]))
EOF
)
is "$(field '" ".join(l["digest"] for l in m["layers"])' <<<"$M")" \
	"$src_layers" "the layers are the source's"
is "$(d_of "docker://$R/app:sealed" "$NOTLS")" "$D" \
	"converting the sealed image from the registry gives D again"
run "$SEAL" "$NOTLS" --json "oci:$L:realistic" "docker://$R/app:sealed2"
pushed=$(skopeo inspect --tls-verify=false "docker://$R/app:sealed2" |
	field 'm["Digest"]')
is "$(field '[m["images"][0]["seal"], m["digest"], m["images"][0]["config"]]' \
	<<<"$out")" "['$D', '$pushed', 'sha256:$(config_hex "$L" realistic)']" \
	"--json: the same seal, the pushed manifest's digest, the config"
no_tmp_left
ok $? "no temp dir left in TMPDIR"

# --- a docker schema2 image: skopeo alone would rewrite its config ---------
skopeo copy -q --insecure-policy --dest-tls-verify=false \
	"docker-archive:$FX/archives/realistic.docker.tar" "docker://$R/d2:src"
is "$(raw "docker://$R/d2:src" | field 'm["mediaType"]')" \
	application/vnd.docker.distribution.manifest.v2+json \
	"a docker schema2 image in the registry"
run "$SEAL" "$NOTLS" "docker://$R/d2:src" "docker://$R/d2:sealed"
M=$(raw "docker://$R/d2:sealed")
is "$st:$(field 'm["mediaType"]' <<<"$M")" \
	"0:application/vnd.oci.image.manifest.v1+json" \
	"sealed, it is an OCI manifest (schema2 has no annotations)"
is "$(field 'm["config"]["digest"]' <<<"$M")" \
	"$(raw "docker://$R/d2:src" | field 'm["config"]["digest"]')" \
	"its config keeps its bytes: the image id is the source's"
is "$(seal_of <<<"$M"):$out" "$D:$D" \
	"the same layers give the same D, printed and sealed"
is "$(d_of "docker://$R/d2:sealed" "$NOTLS")" "$D" \
	"oci2cfs of the sealed docker image gives D"

# --- a multi-platform index ------------------------------------------------
# shared-a as linux/amd64, shared-b relabelled linux/arm64 (its own config),
# and in "multi" also a build attestation (buildkit's: not an image)
MP=$TMP/multi
cp -a "$L" "$MP"
python3 - "$MP" <<'EOF'
import hashlib, json, os, sys
lay = sys.argv[1]
def blob(d):
    return open(os.path.join(lay, "blobs", *d.split(":")), "rb").read()
def put(data):
    d = "sha256:" + hashlib.sha256(data).hexdigest()
    open(os.path.join(lay, "blobs", *d.split(":")), "wb").write(data)
    return d, len(data)
def desc(mt, data):
    d, n = put(data)
    return {"mediaType": mt, "digest": d, "size": n}
MT = "application/vnd.oci.image.manifest.v1+json"
idx = json.load(open(os.path.join(lay, "index.json")))
ref = {m["annotations"]["org.opencontainers.image.ref.name"]: m
       for m in idx["manifests"]}
entries = []
for tag, arch in (("shared-a", "amd64"), ("shared-b", "arm64")):
    m = json.loads(blob(ref[tag]["digest"]))
    c = json.loads(blob(m["config"]["digest"]))
    c["architecture"] = arch
    m["config"]["digest"], m["config"]["size"] = put(
        json.dumps(c, sort_keys=True).encode())
    e = desc(MT, json.dumps(m, sort_keys=True).encode())
    e["platform"] = {"os": "linux", "architecture": arch}
    entries.append(e)
att = {"schemaVersion": 2, "mediaType": MT,
       "config": desc("application/vnd.oci.image.config.v1+json", b"{}"),
       "layers": [desc("application/vnd.in-toto+json", b'{"_type": "x"}')]}
e = desc(MT, json.dumps(att).encode())
e["platform"] = {"os": "unknown", "architecture": "unknown"}
e["annotations"] = {"vnd.docker.reference.type": "attestation-manifest",
                    "vnd.docker.reference.digest": entries[0]["digest"]}
for tag, lst in (("multi", entries + [e]), ("multi-plain", entries)):
    i = desc("application/vnd.oci.image.index.v1+json", json.dumps(
        {"schemaVersion": 2, "manifests": lst,
         "mediaType": "application/vnd.oci.image.index.v1+json"}).encode())
    i["annotations"] = {"org.opencontainers.image.ref.name": tag}
    idx["manifests"].append(i)
json.dump(idx, open(os.path.join(lay, "index.json"), "w"))
EOF
skopeo copy -q --all --insecure-policy --dest-tls-verify=false \
	"oci:$MP:multi" "docker://$R/multi:src"
ok $? "a two-platform index in the registry"
run "$SEAL" "$NOTLS" "docker://$R/multi:src" "docker://$R/multi:sealed"
Da=$(d_of "docker://$R/multi:src" "$NOTLS" --platform linux/amd64)
Db=$(d_of "docker://$R/multi:src" "$NOTLS" --platform linux/arm64)
[ "$Da" != "$Db" ]
ok $? "the two platforms convert to different digests"
is "$st:$out" "0:linux/amd64 $Da
linux/arm64 $Db" "it prints 'PLATFORM D' for each image of the index"
I=$(raw "docker://$R/multi:sealed")
is "$(field '[e["platform"]["architecture"] for e in m["manifests"]]' <<<"$I")" \
	"['amd64', 'arm64', 'unknown']" \
	"DEST is an index of the two platforms and the attestation"
seals=
for d in $(field '" ".join(e["digest"] for e in m["manifests"][:2])' <<<"$I"); do
	seals="$seals $(raw "docker://$R/multi@$d" | seal_of)"
done
is "$seals" " $Da $Db" "the index points at the sealed manifests, each with its own D"
is "$(field 'm["manifests"][2]["digest"]' <<<"$I")" \
	"$(raw "docker://$R/multi:src" | field 'm["manifests"][2]["digest"]')" \
	"the attestation is copied as it was"
is "$(d_of "docker://$R/multi:sealed" "$NOTLS" --platform linux/arm64)" "$Db" \
	"oci2cfs of the sealed index's arm64 image gives its D"

# the same index as a docker manifest list (skopeo rewrites the configs)
skopeo copy -q --all --format v2s2 --insecure-policy --dest-tls-verify=false \
	"oci:$MP:multi-plain" "docker://$R/mlist:src"
run "$SEAL" "$NOTLS" "docker://$R/mlist:src" "docker://$R/mlist:sealed"
I=$(raw "docker://$R/mlist:sealed")
is "$st:$(field 'm["mediaType"]' <<<"$I")" \
	"0:application/vnd.oci.image.index.v1+json" \
	"a docker manifest list is sealed as an OCI index"
configs() { # IMAGE: the config digest of each image of its index
	local d
	for d in $(raw "$1" | field '" ".join(e["digest"] for e in m["manifests"])'); do
		raw "${1%:*}@$d" | field 'm["config"]["digest"]'
	done
}
src_configs=$(configs "docker://$R/mlist:src")
[ "$(grep -c '^sha256:' <<<"$src_configs")" = 2 ] &&
	[ "$(configs "docker://$R/mlist:sealed")" = "$src_configs" ]
ok $? "each of its two images keeps its config"

# --- --store: a store of the user's gets objects, nothing else --------------
run "$SEAL" --store "$TMP/mystore" "oci:$L:realistic" "oci:$TMP/ociout3:x"
is "$st:$out" "0:$D" "--store DIR: the same D"
[ -n "$(store_objects "$TMP/mystore")" ] &&
	[ -z "$(ls -A "$TMP/mystore/refs" "$TMP/mystore/images" 2>/dev/null)" ]
ok $? "the store holds the objects, and no manifest or ref"

# --- signing while copying -------------------------------------------------
gpg_home
FPR=$(gpg_key 'cfs seal test <seal@test.invalid>' "$TMP/pub.gpg") &&
	[ -s "$TMP/pub.gpg" ]
ok $? "a GPG key to sign with"
mkdir -p "$TMP/regd" "$TMP/sigs"
cat >"$TMP/regd/default.yaml" <<EOF
docker:
  $R:
    lookaside: file://$TMP/sigs
    lookaside-staging: file://$TMP/sigs
EOF
cat >"$TMP/policy.json" <<EOF
{"default": [{"type": "reject"}],
 "transports": {"docker": {"$R": [{"type": "signedBy", "keyType": "GPGKeys",
                                   "keyPath": "$TMP/pub.gpg"}]}}}
EOF
run "$SEAL" "$NOTLS" --sign-by "$FPR" --registries.d "$TMP/regd" \
	"oci:$L:realistic" "docker://$R/signed:v1"
is "$st:$err:$out" "0::$D" "--sign-by FPR --registries.d DIR: sealed and signed"
[ -n "$(find "$TMP/sigs" -path '*signed*' -name 'signature-1')" ]
ok $? "the signature is in the lookaside directory"
skopeo --policy "$TMP/policy.json" --registries.d "$TMP/regd" copy -q \
	--src-tls-verify=false "docker://$R/signed:v1" "dir:$TMP/pulled" \
	>"$TMP/pull.log" 2>&1
ok $? "skopeo with a signedBy policy accepts the sealed image" ||
	diag_file "$TMP/pull.log"
is "$(seal_of <"$TMP/pulled/manifest.json")" "$D" "and what it got carries the seal"
skopeo --insecure-policy copy -q --remove-signatures --src-tls-verify=false \
	--dest-tls-verify=false "docker://$R/signed:v1" "docker://$R/unsigned:v1" &&
	! skopeo --policy "$TMP/policy.json" --registries.d "$TMP/regd" copy -q \
		--src-tls-verify=false "docker://$R/unsigned:v1" \
		"dir:$TMP/pulled2" >"$TMP/pull2.log" 2>&1
ok $? "an unsigned copy of it in another repository is refused"
run "$SEAL" "$NOTLS" --sign-by "$FPR" --registries.d "$TMP/regd" \
	"docker://$R/multi:src" "docker://$R/msigned:v1"
I=$(raw "docker://$R/msigned:v1")
want=$( (skopeo inspect --tls-verify=false "docker://$R/msigned:v1" |
	field 'm["Digest"]'
	field '"\n".join(e["digest"] for e in m["manifests"])' <<<"$I") |
	sed 's/:/=/' | sort)
got=$(cd "$TMP/sigs" && ls -d msigned@*/signature-1 | sed 's|^msigned@||; s|/.*||' | sort)
is "$st:$(wc -l <<<"$got"):$got" "0:4:$want" \
	"a signed index: one signature for it and one for each of its manifests"

run "$SEAL" --sign-by "$FPR" "oci:$L:realistic" "dir:$TMP/sdir"
is "$st:$(head -n1 "$TMP/err")" \
	"2:cfs-seal: signing dir:$TMP/sdir needs --sign-identity" \
	"signing a DEST without a docker reference needs --sign-identity"
run "$SEAL" --sign-by "$FPR" --sign-identity "$R/signed:v1" \
	"oci:$L:realistic" "dir:$TMP/sdir"
skopeo standalone-verify "$TMP/sdir/manifest.json" "$R/signed:v1" "$FPR" \
	"$TMP/sdir/signature-1" >"$TMP/verify.log" 2>&1
ok $? "with it, dir: DEST gets a signature of the sealed manifest" ||
	{ diag "$st: $err"; diag_file "$TMP/verify.log"; }

# --- SOURCE an oci-archive, as the README seals one (skopeo unpacks it in
# its --tmpdir, which must exist) ---------------------------------------------
archive=$(awk '$1 ~ /realistic.oci.tar$/ { print $1 }' "$FX/archives.list")
run "$SEAL" "oci-archive:$archive" "oci:$TMP/fromarchive:x"
is "$st:$err:$out" "0::$D" "SOURCE oci-archive:FILE: the same D"

# --- DEST as an OCI layout -------------------------------------------------
run "$SEAL" "oci:$L:realistic" "oci:$TMP/ociout:sealed"
is "$st:$out" "0:$D" "DEST oci:DIR:TAG"
is "$(d_of "oci:$TMP/ociout:sealed")" "$D" "oci2cfs of that layout gives D"
is "$(python3 - "$TMP/ociout" <<'EOF'
import json, os, sys
lay = sys.argv[1]
idx = json.load(open(os.path.join(lay, "index.json")))
d = idx["manifests"][0]["digest"]
m = json.load(open(os.path.join(lay, "blobs", *d.split(":"))))
print(m["annotations"]["composefs.merged.cfs.v1.fsverity-sha256-12"],
      m["config"]["digest"])
EOF
)" "$D sha256:$(config_hex "$L" realistic)" \
	"its manifest carries the seal, with the source's config"

# --- a source that is sealed already ---------------------------------------
# Sealed layouts whose JSON another tool wrote (python's separators, not
# json-c's): from ociout (one image) and from the sealed index; in BAD the
# image's seal is wrong.
run "$SEAL" "$NOTLS" "docker://$R/multi:sealed" "oci:$TMP/mout:m"
ok $? "the sealed index into a layout"
GOOD=$TMP/goodseal GOODI=$TMP/mout-py BAD=$TMP/badseal
python3 - "$TMP/ociout" "$GOOD" "$BAD" "$TMP/mout" "$GOODI" <<'EOF'
import hashlib, json, os, shutil, sys
src, good, bad, msrc, mgood = sys.argv[1:6]
KEY = "composefs.merged.cfs.v1.fsverity-sha256-12"
def redo(lay, edit):
    idx = json.load(open(os.path.join(lay, "index.json")))
    e = idx["manifests"][0]
    m = json.load(open(os.path.join(lay, "blobs", *e["digest"].split(":"))))
    edit(m)
    data = json.dumps(m).encode()
    e["digest"] = "sha256:" + hashlib.sha256(data).hexdigest()
    e["size"] = len(data)
    open(os.path.join(lay, "blobs", *e["digest"].split(":")), "wb").write(data)
    json.dump(idx, open(os.path.join(lay, "index.json"), "w"))
for dst, edit in ((good, lambda m: None),
                  (bad, lambda m: m["annotations"].update({KEY: "0" * 64}))):
    shutil.copytree(src, dst)
    redo(dst, edit)
shutil.copytree(msrc, mgood)
redo(mgood, lambda m: None)
EOF
top() { # LAYOUT: the digest index.json points at
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1] + "/index.json"))["manifests"][0]["digest"])' "$1"
}
run "$SEAL" "oci:$GOOD:sealed" "oci:$TMP/goodout:x"
is "$st:$out:$(top "$TMP/goodout")" "0:$D:$(top "$GOOD")" \
	"a seal equal to D: the manifest is copied byte for byte"
run "$SEAL" "oci:$GOODI:m" "oci:$TMP/goodiout:x"
is "$st:$out:$(top "$TMP/goodiout")" "0:linux/amd64 $Da
linux/arm64 $Db:$(top "$GOODI")" \
	"a sealed index: it and its manifests are copied byte for byte"
run "$SEAL" "oci:$BAD:sealed" "oci:$TMP/ociout2:x"
failed_one_line "$st" "$TMP/err" "cfs-seal: oci:$BAD:sealed: " &&
	grep -qF "sealed with $(printf '0%.0s' {1..64}), but converts to $D" "$TMP/err" &&
	[ ! -e "$TMP/ociout2" ]
ok $? "a wrong seal on SOURCE is refused, naming both digests; nothing written" ||
	diag "$st: $err"
run "$SEAL" --reseal "oci:$BAD:sealed" "oci:$TMP/ociout2:x"
is "$st:$out:$(d_of "oci:$TMP/ociout2:x")" "0:$D:$D" "--reseal replaces it with D"

# --- an oci: SOURCE is read in place: its blobs are linked, not copied -----
run "$SEAL" "$NOTLS" "oci:$MP:multi" "docker://$R/multi-local:sealed"
is "$st:$out" "0:linux/amd64 $Da
linux/arm64 $Db" "an OCI index read in place: each image sealed with its D"
[ "$(raw "docker://$R/multi-local:sealed")" = "$(raw "docker://$R/multi:sealed")" ]
ok $? "the same sealed index as through skopeo's copy of it (docker://)"
# the layout and TMPDIR on one tmpfs with room for one copy of the layers
# and not two: a copy into TMPDIR would not fit
skopeo copy -q --insecure-policy "oci:$L:realistic" "oci:$TMP/one:realistic" ||
	bail "a layout of one image"
bytes=$(du -sb "$TMP/one" | cut -f1)
mkdir -p "$TMP/small" "$TMP/other"
mount -t tmpfs -o "size=$((bytes * 3 / 2 / 4096 * 4096 + 65536))" tmpfs "$TMP/small" &&
	mount -t tmpfs tmpfs "$TMP/other" || bail "tmpfs"
at_exit "umount '$TMP/small' '$TMP/other'"
cp -a "$TMP/one" "$TMP/small/one" && mkdir "$TMP/small/tmp" || bail "cp"
TMPDIR=$TMP/small/tmp run "$SEAL" --store "$TMP/store-small" \
	"oci:$TMP/small/one:realistic" "oci:$TMP/out-small:x"
is "$st:$err:$out" "0::$D" \
	"TMPDIR with the layout on a filesystem too small for a copy of it: D"
mkdir "$TMP/other/tmp"
TMPDIR=$TMP/other/tmp run "$SEAL" --store "$TMP/store-small" \
	"oci:$TMP/one:realistic" "oci:$TMP/out-other:x"
is "$st:$err:$out:$(top "$TMP/out-other")" "0::$D:$(top "$TMP/out-small")" \
	"TMPDIR on another filesystem than the layout (copies): the same image"
[ -z "$(ls -A "$TMP/small/tmp")$(ls -A "$TMP/other/tmp")" ] &&
	[ "$(find "$TMP/small/one/blobs" -type f -links +1 | wc -l)" = 0 ]
ok $? "no temp dir left, and no link to the layout's blobs" ||
	{ ls -A "$TMP/small/tmp" "$TMP/other/tmp"; find "$TMP/small/one/blobs" -type f -links +1; } >&2
# the policy's scopes for oci: are the layout's path and those above it
printf '{"default":[{"type":"insecureAcceptAnything"}],"transports":{"oci":{"%s":[{"type":"reject"}]}}}' \
	"$(realpath "$TMP/one")" >"$TMP/reject-one.json"
run "$SEAL" --signature-policy "$TMP/reject-one.json" \
	"oci:$TMP/one:realistic" "oci:$TMP/out-rej:x"
failed_one_line "$st" "$TMP/err" "cfs-seal: oci:$TMP/one:realistic: rejected by signature policy" &&
	[ ! -e "$TMP/out-rej" ]
ok $? "a policy rejecting the layout's path refuses it: one line, nothing written" ||
	diag "$st: $err"
n=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["manifests"]))' "$MP/index.json")
run "$SEAL" "oci:$MP" "oci:$TMP/out-e:x"
failed_one_line "$st" "$TMP/err" "index.json has $n images: name one, oci:DIR:REF"
ok $? "oci:DIR of a layout of several images: one line asking for one" ||
	diag "$st: $err"
run "$SEAL" "oci:$L:no-such" "oci:$TMP/out-e:x"
failed_one_line "$st" "$TMP/err" "no image named 'no-such' in $L/index.json"
ok $? "oci:DIR:REF naming no image: one line" || diag "$st: $err"
# hostile or damaged layouts: a manifest that is not what index.json says
# or larger, a layer missing or out of the layout, a FIFO, a layer's bytes
# changed
bad_layout() { # NAME PYTHON (on manifest m, layer path lp)
	rm -rf "$TMP/$1" && cp -a "$TMP/one" "$TMP/$1" && python3 - "$TMP/$1" <<EOF
import json, os, sys
lay = sys.argv[1]
d = json.load(open(os.path.join(lay, "index.json")))["manifests"][0]["digest"]
mp = os.path.join(lay, "blobs", *d.split(":"))
m = json.load(open(mp))
lp = os.path.join(lay, "blobs", *m["layers"][0]["digest"].split(":"))
$2
EOF
}
# refused NAME PYTHON STRING DESCRIPTION: a layout damaged by PYTHON is
# refused at once (a FIFO is not waited on), in one line holding STRING,
# and nothing is written
refused() {
	bad_layout "$1" "$2"
	run timeout 60 "$SEAL" "oci:$TMP/$1:realistic" "oci:$TMP/out-e:x"
	failed_one_line "$st" "$TMP/err" "$3" && [ ! -e "$TMP/out-e" ]
	ok $? "$4" || diag "$st: $err"
}
refused badm 'b = open(mp, "rb").read().replace(b"\"layers\"", b"\"Layers\"", 1); open(mp, "wb").write(b)' \
	"does not match its descriptor" \
	"a manifest whose bytes are not its descriptor's"
refused bigm 'open(mp, "ab").write(b" " * 100000)' \
	"larger than its descriptor says" \
	"a manifest larger than its descriptor says (not read)"
refused nolayer 'os.unlink(lp)' ": missing" "a layer missing"
refused outside 'import shutil; out = os.path.join(os.path.dirname(lay), "outside-blob"); shutil.move(lp, out); os.symlink(out, lp)' \
	"outside the image directory" \
	"a layer that is a symlink out of the layout (to the right bytes)"
refused fifo 'os.unlink(mp); os.mkfifo(mp)' "not a regular file" \
	"a manifest that is a FIFO"
refused flipped 'b = bytearray(open(lp, "rb").read()); b[len(b) // 2] ^= 1; open(lp, "wb").write(b)' \
	"cfs-seal: oci:$TMP/flipped:realistic: " \
	"a layer whose bytes changed (oci2cfs checks its digest)"

# --- errors: one line naming SOURCE or DEST, no temp dir left ---------------
run "$SEAL" "$NOTLS" "docker://$R/nothing:here" "docker://$R/x:y"
failed_one_line "$st" "$TMP/err" "cfs-seal: docker://$R/nothing:here: "
ok $? "a SOURCE that is not there: one line naming it" || diag "$st: $err"
touch "$TMP/afile"
run "$SEAL" "oci:$L:realistic" "oci:$TMP/afile/sub:x"
failed_one_line "$st" "$TMP/err" "cfs-seal: oci:$TMP/afile/sub:x: "
ok $? "an unwritable DEST: one line naming it" || diag "$st: $err"
run "$SEAL" "oci:$L:realistic" "docker-archive:$TMP/d.tar"
failed_one_line "$st" "$TMP/err" "cfs-seal: docker-archive:$TMP/d.tar: " &&
	[ ! -s "$TMP/d.tar" ]
ok $? "a DEST that cannot carry the seal (docker-archive:) is refused" ||
	diag "$st: $err"
run "$SEAL" --bogus "oci:$L:realistic" "oci:$TMP/o3:x"
is "$st:$(head -n1 "$TMP/err")" "2:cfs-seal: unrecognized option '--bogus'" \
	"an unknown option is a usage error"
run "$SEAL" --sign-passphrase-file "$TMP/none" --sign-by x "$NOTLS" \
	"oci:$L:realistic" "docker://$R/o3:x"
failed_one_line "$st" "$TMP/err" "--sign-passphrase-file $TMP/none" &&
	! skopeo inspect --tls-verify=false "docker://$R/o3:x" >/dev/null 2>&1
ok $? "a missing passphrase file is named before anything is copied"
no_tmp_left
ok $? "no temp dir left in TMPDIR after the failures" || ls -A "$TMPDIR" >&2

# SIGTERM to cfs-seal alone, while it works: it stops, and cleans up
"$SEAL" "oci:$L:realistic" "oci:$TMP/intr:x" >/dev/null 2>"$TMP/intr.err" &
pid=$!
for _ in $(seq 200); do
	[ -n "$(ls -A "$TMPDIR")" ] && break
	sleep 0.02
done
kill -TERM "$pid"
wait "$pid"
st=$?
[ "$st" = 143 ] && [ "$(wc -l <"$TMP/intr.err")" = 1 ] &&
	grep -q "interrupted by signal 15" "$TMP/intr.err" && no_tmp_left
ok $? "SIGTERM: exit 143, one line, no temp dir left" ||
	diag "$st: $(cat "$TMP/intr.err")"
