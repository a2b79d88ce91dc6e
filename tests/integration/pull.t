#!/bin/bash
# SPDX-License-Identifier: MIT
# oci2cfs pulling through skopeo's image proxy: from a local docker-registry
# (docker://), from a private podman store (containers-storage:), through
# the other transport names; only layers missing from the store are
# fetched; the signature policy is applied; registry faults (a fake
# registry, fake-registry.py) give one error line and leave no manifest or
# ref. Nothing touches the host's /etc/containers: registries.conf, the
# policy and podman's storage are temp files.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs
require_root "fixtures are built as root; podman's overlay storage"
require_host_tools skopeo docker-registry python3 podman fsverity zstd
build_fixtures

L=$FX/layout
B=$CFS_BIN/oci2cfs

# --- a local docker-registry ------------------------------------------------
start_registry "$TMP/registry"
PORT=$REGISTRY_PORT

# --- the fake registry with faults ------------------------------------------
python3 "$TOP/tests/integration/fake-registry.py" "$L" "$TMP/fake.port" \
	"$TMP/fake.log" 2>"$TMP/fake.err" &
at_exit "kill $! 2>/dev/null; wait $! 2>/dev/null"
for i in $(seq 50); do [ -s "$TMP/fake.port" ] && break; sleep 0.1; done
FPORT=$(cat "$TMP/fake.port") || bail "fake registry did not start"

export CONTAINERS_REGISTRIES_CONF=$TMP/registries.conf
printf '[[registry]]\nlocation = "127.0.0.1:%s"\ninsecure = true\n' \
	"$PORT" "$FPORT" >"$CONTAINERS_REGISTRIES_CONF"
# podman's default file when HOME holds none: tests pass --signature-policy
echo '{"default":[{"type":"insecureAcceptAnything"}]}' >"$TMP/accept.json"
echo '{"default":[{"type":"reject"}]}' >"$TMP/reject.json"
ACCEPT=(--signature-policy "$TMP/accept.json")

R=127.0.0.1:$PORT
push() { # SRC DEST
	skopeo --insecure-policy copy -q --dest-tls-verify=false "$1" \
		"docker://$R/$2" >"$TMP/push.log" 2>&1 ||
		{ diag_file "$TMP/push.log"; bail "cannot push $2"; }
}
realistic_oci=$(awk '$1 ~ /realistic.oci.tar$/ { print $1 }' "$FX/archives.list")
push "oci-archive:$realistic_oci" cfs/realistic:1
push "oci:$L:shared-a" cfs/app:v1
push "oci:$L:shared-b" cfs/app:v2
push "oci:$L:shared-a" cfs/app:latest

blob_gets() { grep -ac "GET /v2/$1/blobs/" "$TMP/registry.log"; }
pull() { # STORE NAME [ARGS...]
	local s=$1 n=$2
	shift 2
	"$B" "$n" --store "$s" --sync=none -q "${ACCEPT[@]}" "$@"
}

# --- 1. docker:// gives the same manifest as the archive --------------------
"$B" "$realistic_oci" --store "$TMP/ref-store" --sync=none -q --no-verity \
	-o "$TMP/realistic.cfs" >/dev/null
pull "$TMP/s1" "docker://$R/cfs/realistic:1" >"$TMP/p1.out" 2>"$TMP/p1.err"
ok $? "docker:// pull succeeds" || diag_file "$TMP/p1.err"
cmp -s "$TMP/realistic.cfs" "$(head -1 "$TMP/p1.out")"
ok $? "the manifest is byte-identical to converting the oci-archive"
[ -L "$TMP/s1/refs/$R/cfs/realistic:1" ] || [ -f "$TMP/s1/refs/$R/cfs/realistic:1" ]
ok $? "the ref is the name pulled ($R/cfs/realistic:1)"
pull "$TMP/s1" "docker://$R/cfs/app" >/dev/null 2>"$TMP/p1b.err"
ok $? "a name without a tag pulls :latest" || diag_file "$TMP/p1b.err"
[ -e "$TMP/s1/refs/$R/cfs/app:latest" ]
ok $? "and records it as $R/cfs/app:latest"
case $(uname -m) in x86_64) here=amd64 other=arm64 ;; *) here=arm64 other=amd64 ;; esac
pull "$TMP/s1" "docker://$R/cfs/app:v1" --platform "linux/$here" -o "$TMP/plat.cfs" \
	>/dev/null 2>"$TMP/plat.err"
ok $? "--platform linux/$here (the image's) pulls" || diag_file "$TMP/plat.err"
pull "$TMP/s1" "docker://$R/cfs/app:v1" --platform "linux/$other" -o "$TMP/plat2.cfs" \
	>/dev/null 2>"$TMP/plat.err"
[ $? -eq 1 ] && grep -q "not linux/$other" "$TMP/plat.err"
ok $? "--platform linux/$other is refused: the image is for linux/$here" ||
	diag_file "$TMP/plat.err"
store_mismatches "$TMP/s1" >"$TMP/bad1"
ok $? "every object is named by its fs-verity digest" || diag_file "$TMP/bad1"

# a docker schema2 image, as most registries serve them: skopeo sends its
# manifest converted to OCI, naming a converted config no registry holds
skopeo --insecure-policy copy -q --format v2s2 --dest-tls-verify=false \
	"oci:$L:realistic" "docker://$R/cfs/schema2:1" >"$TMP/push.log" 2>&1 ||
	diag_file "$TMP/push.log"
pull "$TMP/s2" "docker://$R/cfs/schema2:1" --json >"$TMP/p2.out" 2>"$TMP/p2.err"
ok $? "a docker schema2 image pulls" || diag_file "$TMP/p2.err"
cmp -s "$TMP/realistic.cfs" "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["manifest"])' <"$TMP/p2.out")"
ok $? "to the same manifest as its OCI original"

# a plain-HTTP registry without a registries.conf entry: --tls-verify=false
: >"$TMP/empty-registries.conf"
CONTAINERS_REGISTRIES_CONF=$TMP/empty-registries.conf \
	pull "$TMP/s1c" "docker://$R/cfs/app:v1" >/dev/null 2>"$TMP/p1c.err"
[ $? = 1 ] && [ "$(wc -l <"$TMP/p1c.err")" = 1 ] && grep -q "HTTPS" "$TMP/p1c.err"
ok $? "a plain-HTTP registry not marked insecure: refused in one line" ||
	diag_file "$TMP/p1c.err"
CONTAINERS_REGISTRIES_CONF=$TMP/empty-registries.conf \
	pull "$TMP/s1c" "docker://$R/cfs/app:v1" --tls-verify=false >/dev/null 2>"$TMP/p1c.err"
ok $? "--tls-verify=false pulls from it, as podman pull does" || diag_file "$TMP/p1c.err"

# --- 2. only missing layers are fetched -------------------------------------
pull "$TMP/s2" "docker://$R/cfs/app:v1" >/dev/null 2>"$TMP/p2.err"
ok $? "v1 pulled" || diag_file "$TMP/p2.err"
before=$(blob_gets cfs/app)
pull "$TMP/s2" "docker://$R/cfs/app:v2" >"$TMP/p2b.out" 2>"$TMP/p2b.err"
ok $? "v2 pulled into the same store" || diag_file "$TMP/p2b.err"
after=$(blob_gets cfs/app)
# the config and the one layer v1 lacks
is "$((after - before))" 2 "v2 (sharing 2 of 3 layers) fetches the config and one layer"
new_layer=$(python3 - "$L" <<'EOF2'
import json, os, sys
lay = sys.argv[1]
idx = json.load(open(os.path.join(lay, "index.json")))
def layers(tag):
    m = [x for x in idx["manifests"]
         if x["annotations"]["org.opencontainers.image.ref.name"] == tag][0]
    mf = json.load(open(os.path.join(lay, "blobs", *m["digest"].split(":"))))
    return [l["digest"] for l in mf["layers"]]
print(" ".join(set(layers("shared-b")) - set(layers("shared-a"))))
EOF2
)
tail -n 2 "$TMP/registry.log" >/dev/null
grep -a "GET /v2/cfs/app/blobs/" "$TMP/registry.log" | tail -n 2 |
	grep -qF "$new_layer"
ok $? "the layer fetched is the new one ($new_layer)"
"$B" "$L" --ref shared-b -o "$TMP/shared-b.cfs" --store "$TMP/ref-store" \
	--sync=none -q --no-verity >/dev/null
cmp -s "$TMP/shared-b.cfs" "$(head -1 "$TMP/p2b.out")"
ok $? "v2's manifest equals the local conversion of shared-b"
before=$(blob_gets cfs/app)
pull "$TMP/s2" "docker://$R/cfs/app:v2" >/dev/null 2>&1
is "$(($(blob_gets cfs/app) - before))" 1 "pulling v2 again fetches only its config"

# progress on a terminal: bytes per layer, and which layers were cached
if command -v script >/dev/null; then
	pull "$TMP/s2b" "docker://$R/cfs/app:v1" >/dev/null 2>&1
	script -qec "'$B' docker://$R/cfs/app:v2 --store '$TMP/s2b' --sync=none \
		--signature-policy '$TMP/accept.json'" /dev/null \
		>"$TMP/tty2.out" 2>&1
	tr '\r' '\n' <"$TMP/tty2.out" >"$TMP/tty2.txt"
	grep -q "^.*layer 1/3 sha256:[0-9a-f]*: cached" "$TMP/tty2.txt" &&
		grep -q "layer 2/3 sha256:[0-9a-f]*: cached" "$TMP/tty2.txt" &&
		grep -qE "layer 3/3 sha256:[0-9a-f]*: [0-9.]+ (B|KiB|MiB) fetched" \
			"$TMP/tty2.txt"
	ok $? "progress on a terminal names cached layers and bytes fetched" ||
		diag_file "$TMP/tty2.txt"
else
	skip 1 "no script(1) to make a terminal"
fi

# --- 3. other transports ----------------------------------------------------
pull "$TMP/s3" "oci:$L:shared-a" -o "$TMP/t-oci.cfs" >/dev/null 2>"$TMP/t.err"
ok $? "oci:DIR:TAG" || diag_file "$TMP/t.err"
"$B" "$L" --ref shared-a -o "$TMP/shared-a.cfs" --store "$TMP/ref-store" \
	--sync=none -q --no-verity >/dev/null
cmp -s "$TMP/t-oci.cfs" "$TMP/shared-a.cfs"
ok $? "oci:DIR:TAG gives the same manifest as the plain path"
pull "$TMP/s3" "oci-archive:$realistic_oci" -o "$TMP/t-oa.cfs" >/dev/null 2>"$TMP/t.err"
ok $? "oci-archive:FILE" || diag_file "$TMP/t.err"
cmp -s "$TMP/t-oa.cfs" "$TMP/realistic.cfs"
ok $? "oci-archive:FILE gives the same manifest"
skopeo --insecure-policy copy -q "oci:$L:shared-a" "dir:$TMP/dirimg" >/dev/null 2>&1
pull "$TMP/s3" "dir:$TMP/dirimg" -o "$TMP/t-dir.cfs" >/dev/null 2>"$TMP/t.err"
ok $? "dir:DIR (through the proxy)" || diag_file "$TMP/t.err"
cmp -s "$TMP/t-dir.cfs" "$TMP/shared-a.cfs"
ok $? "dir:DIR gives the same manifest"
docker_ar=$(awk '$1 ~ /realistic.docker.tar$/ { print $1 }' "$FX/archives.list")
pull "$TMP/s3" "docker-archive:$docker_ar" -o "$TMP/t-da.cfs" >/dev/null 2>"$TMP/t.err"
ok $? "docker-archive:FILE" || diag_file "$TMP/t.err"

# --- 4. containers-storage: from a private podman store ---------------------
. "$TOP/scripts/podman-conf.sh"
podman_private_conf "$TMP/pconf" "$TMP/graph" "$TMP/run" || bail "podman conf"
at_exit "podman --log-level=error unshare true >/dev/null 2>&1; umount -R '$TMP/graph/overlay' 2>/dev/null"
skopeo --insecure-policy copy -q "oci:$L:shared-a" containers-storage:cfs-app \
	>"$TMP/cs.log" 2>&1 || diag_file "$TMP/cs.log"
mkdir -p "$TMP/tmpdir" && : >"$TMP/cs.mark" && sleep 1
TMPDIR=$TMP/tmpdir pull "$TMP/s4" containers-storage:cfs-app >"$TMP/p4.out" 2>"$TMP/p4.err"
ok $? "containers-storage:NAME" || diag_file "$TMP/p4.err"
# skopeo spools each layer it serves from containers-storage to a temp file
# (c/image names them by number) that its proxy never removes
left=$(find /var/tmp -maxdepth 1 -newer "$TMP/cs.mark" -regex '.*/[0-9]+' | wc -l)
is "$left $(ls -A "$TMP/tmpdir" | wc -l)" "0 0" \
	"containers-storage: no temp file left in /var/tmp or \$TMPDIR"
TMPDIR=$TMP/no-such-dir pull "$TMP/s4b" containers-storage:cfs-app \
	>/dev/null 2>"$TMP/p4b.err"
st=$?
[ $st = 1 ] && [ "$(wc -l <"$TMP/p4b.err")" = 1 ] &&
	grep -qF "$TMP/no-such-dir: No such file" "$TMP/p4b.err" &&
	[ -z "$(ls -A "$TMP/s4b/images" 2>/dev/null)" ]
ok $? "a TMPDIR that cannot hold skopeo's files: exit $st, one line naming it" ||
	diag_file "$TMP/p4b.err"
cmp -s "$TMP/shared-a.cfs" "$(head -1 "$TMP/p4.out")"
ok $? "containers-storage: gives the same manifest as the layout"
[ -e "$TMP/s4/refs/docker.io/library/cfs-app:latest" ]
ok $? "recorded as podman names it: docker.io/library/cfs-app:latest"
unset CONTAINERS_STORAGE_CONF CONTAINERS_CONF

# --- 5. signature policy ----------------------------------------------------
"$B" "docker://$R/cfs/app:v1" --store "$TMP/s5" --sync=none -q \
	--signature-policy "$TMP/reject.json" >/dev/null 2>"$TMP/p5.err"
st=$?
[ $st -eq 1 ] && [ "$(wc -l <"$TMP/p5.err")" -eq 1 ] &&
	grep -q "docker://$R/cfs/app:v1: rejected by signature policy" "$TMP/p5.err"
ok $? "a reject policy refuses the pull with one line naming the image" ||
	diag_file "$TMP/p5.err"
[ ! -e "$TMP/s5/images" ] || [ -z "$(ls -A "$TMP/s5/images")" ]
ok $? "nothing written"
echo '{"default":[{"type":"reject"}],"transports":{"docker":{"'"$R"'/cfs":[{"type":"insecureAcceptAnything"}]}}}' >"$TMP/scoped.json"
"$B" "docker://$R/cfs/app:v1" --store "$TMP/s5" --sync=none -q \
	--signature-policy "$TMP/scoped.json" >/dev/null 2>"$TMP/p5.err"
ok $? "insecureAcceptAnything for the repository's namespace accepts it" ||
	diag_file "$TMP/p5.err"
echo '{"default":[{"type":"insecureAcceptAnything"}],"transports":{"docker":{"'"$R"'/cfs/app:v2":[{"type":"signedBy","keyType":"GPGKeys","keyPath":"/nonexistent"}]}}}' >"$TMP/signed.json"
"$B" "docker://$R/cfs/app:v2" --store "$TMP/s5" --sync=none -q \
	--signature-policy "$TMP/signed.json" >/dev/null 2>"$TMP/p5.err"
[ $? -eq 1 ] && [ "$(wc -l <"$TMP/p5.err")" -eq 1 ] &&
	grep -q "signedBy: /nonexistent: No such file" "$TMP/p5.err"
ok $? "an image that must be signed is refused when the policy's key is missing" ||
	diag_file "$TMP/p5.err"
mkdir -p "$TMP/home/.config/containers"
cp "$TMP/reject.json" "$TMP/home/.config/containers/policy.json"
HOME=$TMP/home "$B" "docker://$R/cfs/app:v1" --store "$TMP/s5b" --sync=none \
	-q >/dev/null 2>"$TMP/p5.err"
[ $? -eq 1 ] && grep -q "rejected" "$TMP/p5.err"
ok $? "without the flag, \$HOME/.config/containers/policy.json applies" ||
	diag_file "$TMP/p5.err"
# oci:, oci-archive: and dir: scopes: the image's path, symlinks resolved,
# else a directory above it; the transport's "" scope and "default" after
Lreal=$(realpath "$L")
ln -s "$Lreal" "$TMP/layout-link"
printf '{"default":[{"type":"insecureAcceptAnything"}],"transports":{"oci":{"%s":[{"type":"reject"}]}}}' \
	"$(dirname "$Lreal")" >"$TMP/oci-above.json"
"$B" "oci:$TMP/layout-link:shared-a" --store "$TMP/s5c" --sync=none -q \
	--signature-policy "$TMP/oci-above.json" >/dev/null 2>"$TMP/p5.err"
[ $? -eq 1 ] && [ "$(wc -l <"$TMP/p5.err")" -eq 1 ] &&
	grep -q "^oci2cfs: oci:$TMP/layout-link:shared-a: rejected by signature policy" "$TMP/p5.err" &&
	[ ! -e "$TMP/s5c/images" ]
ok $? "oci: a reject scope on a directory above the layout (through a symlink) refuses it" ||
	diag_file "$TMP/p5.err"
printf '{"default":[{"type":"reject"}],"transports":{"oci":{"%s":[{"type":"insecureAcceptAnything"}]},"dir":{"%s":[{"type":"insecureAcceptAnything"}]}}}' \
	"$Lreal" "$(realpath "$TMP/dirimg")" >"$TMP/own-path.json"
"$B" "oci:$TMP/layout-link:shared-a" --store "$TMP/s5c" --sync=none -q \
	--signature-policy "$TMP/own-path.json" >/dev/null 2>"$TMP/p5.err"
ok $? "oci: the layout's own path as a scope accepts it under a reject default" ||
	diag_file "$TMP/p5.err"
"$B" "dir:$TMP/dirimg" --store "$TMP/s5c" --sync=none -q \
	--signature-policy "$TMP/own-path.json" >/dev/null 2>"$TMP/p5.err"
ok $? "dir: the directory's path as a scope accepts it" || diag_file "$TMP/p5.err"
"$B" "oci-archive:$realistic_oci" --store "$TMP/s5c" --sync=none -q \
	--signature-policy "$TMP/own-path.json" >/dev/null 2>"$TMP/p5.err"
[ $? -eq 1 ] && grep -q "rejected by signature policy" "$TMP/p5.err"
ok $? "oci-archive: outside every scope, the reject default applies" ||
	diag_file "$TMP/p5.err"

# --- 6. faults ----------------------------------------------------------------
F=127.0.0.1:$FPORT
seed() { pull "$1" "oci:$L:hardlinks" >/dev/null 2>&1 || bail "cannot seed $1"; }
refs_and_images() { (cd "$1" && find images refs -type f -o -type l 2>/dev/null | sort); }
# NAME IMAGE KEYWORDS
expect_fault() {
	local name=$1 img=$2 kw=$3 s=$TMP/f-$1 st
	seed "$s"
	refs_and_images "$s" >"$TMP/$name.before"
	pull "$s" "$img" >/dev/null 2>"$TMP/$name.err"
	st=$?
	[ $st -ne 0 ] && [ $st -lt 128 ] && [ "$(wc -l <"$TMP/$name.err")" -eq 1 ] &&
		grep -qF "$img" "$TMP/$name.err" && grep -qiE "$kw" "$TMP/$name.err" &&
		[ "$(grep -oF "$img" "$TMP/$name.err" | wc -l)" -eq 1 ] &&
		! grep -qE 'layer sha256:[0-9a-f]{64}: .*blob sha256:' "$TMP/$name.err"
	ok $? "$name: exit $st, one line naming the image and the layer once each, and /$kw/" ||
		diag_file "$TMP/$name.err" 5
	refs_and_images "$s" | diff "$TMP/$name.before" - >/dev/null
	ok $? "$name: no new manifest or ref"
}
expect_fault unreachable "docker://127.0.0.1:$(free_port)/cfs/app:v1" "connection refused"
expect_fault unknown-image "docker://$R/cfs/nope:v1" "manifest unknown|not found"
expect_fault auth "docker://$F/auth/cfs:shared-a" "unauthorized|authentication"
expect_fault corrupt-blob "docker://$F/corrupt/cfs:shared-a" "corrupt|digest"
expect_fault short-blob "docker://$F/short/cfs:shared-a" "corrupt|digest|size|bytes"
expect_fault cut "docker://$F/cut/cfs:shared-a" "EOF|connection|reset"
before=$(grep -ac "GET /v2/cut/cfs/blobs/" "$TMP/fake.log")
pull "$TMP/f-cut" "docker://$F/cut/cfs:shared-a" >/dev/null 2>"$TMP/retry.err"
ok $? "a retry after the cut succeeds" || diag_file "$TMP/retry.err"
is "$(($(grep -ac "GET /v2/cut/cfs/blobs/" "$TMP/fake.log") - before))" 2 \
	"the retry fetches only the config and the layer that was cut"
store_mismatches "$TMP/f-cut" >"$TMP/bad6"
ok $? "every object in that store is named by its digest" || diag_file "$TMP/bad6"

# a fault in one of two layers fetched at once (two skopeo proxies): the
# top layer is corrupt while the bottom one is still coming in slowly
s=$TMP/f-mixed
seed "$s"
refs_and_images "$s" >"$TMP/mixed.before"
top=$(python3 - "$L" <<'EOF2'
import json, os, sys
idx = json.load(open(os.path.join(sys.argv[1], "index.json")))
m = [x for x in idx["manifests"]
     if x["annotations"]["org.opencontainers.image.ref.name"] == "shared-a"][0]
mf = json.load(open(os.path.join(sys.argv[1], "blobs", *m["digest"].split(":"))))
print(mf["layers"][-1]["digest"])
EOF2
)
pull "$s" "docker://$F/mixed/cfs:shared-a" -j 2 >/dev/null 2>"$TMP/mixed.err"
st=$?
[ $st -eq 1 ] && [ "$(wc -l <"$TMP/mixed.err")" -eq 1 ] &&
	grep -qF "docker://$F/mixed/cfs:shared-a" "$TMP/mixed.err" &&
	grep -qF "$top" "$TMP/mixed.err" && grep -qiE "corrupt|digest" "$TMP/mixed.err"
ok $? "one of two concurrent fetches corrupt: exit $st, one line naming the image and that layer" ||
	diag_file "$TMP/mixed.err"
refs_and_images "$s" | diff "$TMP/mixed.before" - >/dev/null
ok $? "concurrent fault: no new manifest or ref"
[ -z "$(ls -A "$s/.tmp" 2>/dev/null)" ]
ok $? "concurrent fault: nothing half-written left in .tmp" || diag "$(ls "$s/.tmp")"
store_mismatches "$s" >"$TMP/bad-mixed"
ok $? "concurrent fault: every object is named by its digest" || diag_file "$TMP/bad-mixed"
before=$(grep -ac "GET /v2/good/cfs/blobs/" "$TMP/fake.log")
pull "$s" "docker://$F/good/cfs:shared-a" >/dev/null 2>"$TMP/mixed2.err"
ok $? "a retry from an intact registry succeeds" || diag_file "$TMP/mixed2.err"
got=$(grep -a "GET /v2/good/cfs/blobs/" "$TMP/fake.log" | tail -n +$((before + 1)))
[ "$(echo "$got" | wc -l)" -eq 2 ] && echo "$got" | grep -qF "$top"
ok $? "the retry fetches only the config and the corrupt layer: the slow one, read meanwhile, was kept" ||
	diag "$got"

# SIGINT mid-pull
s=$TMP/f-int
seed "$s"
refs_and_images "$s" >"$TMP/int.before"
"$B" "docker://$F/slow/cfs:shared-a" --store "$s" --sync=none -q "${ACCEPT[@]}" \
	>/dev/null 2>"$TMP/int.err" &
pid=$!
for i in $(seq 100); do
	grep -q "GET /v2/slow/cfs/blobs/" "$TMP/fake.log" && break
	sleep 0.1
done
sleep 0.5
kill -INT $pid
wait $pid
st=$?
[ $st -eq 130 ] && [ "$(wc -l <"$TMP/int.err")" -eq 1 ] &&
	grep -q "slow/cfs:shared-a: .*interrupted" "$TMP/int.err"
ok $? "SIGINT mid-pull: exit $st, one line naming the image" ||
	diag_file "$TMP/int.err"
refs_and_images "$s" | diff "$TMP/int.before" - >/dev/null
ok $? "SIGINT mid-pull: no new manifest or ref"

# --- 7. a bad name is reported once -------------------------------------------
"$B" "nosuch:thing" --store "$TMP/s7" -q 2>"$TMP/p7.err"
[ "$(grep -o "nosuch:thing" "$TMP/p7.err" | wc -l)" -eq 1 ]
ok $? "an unknown name is named once in the error" || diag_file "$TMP/p7.err"

done_testing
