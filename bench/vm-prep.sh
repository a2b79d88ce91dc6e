#!/bin/bash
# SPDX-License-Identifier: MIT
# Host side of the VM benchmark: everything the VM reads but does not time,
# made once per benchmark image and cached beside it.
#
#   bench/vm-prep.sh IMAGEDIR VM-WALK     (IMAGEDIR from bench/mkimage.sh)
#
# Result, cached in IMAGEDIR/vm-KEY/root (KEY hashes this script and
# vm-walk.c), becomes the VM disk's contents (mkfs.ext4 -d):
#   image.oci.tar      the benchmark image, ref bench
#   bench2.oci.tar     a second image (tag bench2): layers 1-2 of bench plus
#                      one small layer of its own, to measure shared bases
#   layers.txt         bench's layer blob digests (hex), bottom first
#   layers/l1..l3      each layer untarred, OCI whiteouts made overlayfs
#                      whiteouts (char 0/0, trusted.overlay.opaque=y)
#   merged/            the image as applied (umoci unpack)
#   erofs.img          mkfs.erofs of merged/ (uncompressed)
# Prints the root directory on its last line.  Needs root.
set -euo pipefail

image=$1
walk=$2
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "vm-prep: $*" >&2; exit 1; }

for tool in umoci skopeo mkfs.erofs tar python3; do
	command -v "$tool" >/dev/null || die "$tool is missing"
done
key=$(cat "$0" "$here/vm-walk.c" | sha256sum | cut -c1-16)
out=$image/vm-$key
if [ -f "$out/done" ]; then
	echo "vm-prep: cached $out" >&2
	echo "$out/root"
	exit 0
fi
rm -rf "$image"/vm-*
work=$out/work
root=$out/root
mkdir -p "$work" "$root/layers"

# bench's layer blobs, bottom first
python3 - "$image/layout" bench >"$root/layers.txt" <<'EOF'
import json, sys
lay, tag = sys.argv[1:]
blob = lambda d: json.load(open(f"{lay}/blobs/sha256/{d.split(':')[1]}"))
idx = json.load(open(f"{lay}/index.json"))
m, = [m for m in idx["manifests"]
      if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == tag]
for l in blob(m["digest"])["layers"]:
    print(l["digest"].split(":")[1])
EOF

i=0
while read -r blob; do
	i=$((i + 1))
	mkdir -p "$root/layers/l$i"
	tar --xattrs --xattrs-include='*' --numeric-owner -xpzf \
		"$image/layout/blobs/sha256/$blob" -C "$root/layers/l$i"
	echo "vm-prep: layer $i: $("$walk" whiteouts "$root/layers/l$i" |
		cut -d' ' -f2) whiteouts" >&2
done <"$root/layers.txt"

umoci unpack --image "$image/layout:bench" "$work/bundle" >&2
mv "$work/bundle/rootfs" "$root/merged"
mkfs.erofs --quiet "$root/erofs.img" "$root/merged" >&2
# the archive again, with a ref (bench), so that pulls and conversions name it
skopeo --insecure-policy copy -q "oci:$image/layout:bench" \
	"oci-archive:$root/image.oci.tar:bench"

# bench2: bench's first two layers and a small layer of its own
cp -a "$image/layout" "$work/layout2"
mkdir -p "$work/own/etc"
echo "bench2" >"$work/own/etc/bench2-release"
tar -C "$work/own" --sort=name --mtime=@0 --owner=0 --group=0 \
	--numeric-owner -cf "$work/own.tar" .
python3 - "$work/layout2" "$work/own.tar" <<'EOF'
import gzip, hashlib, json, os, sys
lay, own = sys.argv[1:]
def put(data, mt):
    h = hashlib.sha256(data).hexdigest()
    open(f"{lay}/blobs/sha256/{h}", "wb").write(data)
    return {"mediaType": mt, "digest": "sha256:" + h, "size": len(data)}
get = lambda d: json.load(open(f"{lay}/blobs/sha256/{d['digest'][7:]}"))
idx = json.load(open(f"{lay}/index.json"))
md, = [m for m in idx["manifests"] if m["annotations"][
    "org.opencontainers.image.ref.name"] == "bench"]
man, = [get(md)]
cfg = get(man["config"])
raw = open(own, "rb").read()
layer = put(gzip.compress(raw, mtime=0),
            "application/vnd.oci.image.layer.v1.tar+gzip")
cfg["rootfs"]["diff_ids"] = cfg["rootfs"]["diff_ids"][:2] + [
    "sha256:" + hashlib.sha256(raw).hexdigest()]
cfg["history"] = cfg.get("history", [])[:2]
man["layers"] = man["layers"][:2] + [layer]
man["config"] = put(json.dumps(cfg).encode(), man["config"]["mediaType"])
d = put(json.dumps(man).encode(), md["mediaType"])
d["annotations"] = {"org.opencontainers.image.ref.name": "bench2"}
idx["manifests"].append(d)
os.unlink(f"{lay}/index.json")
json.dump(idx, open(f"{lay}/index.json", "w"))
EOF
skopeo --insecure-policy copy -q "oci:$work/layout2:bench2" \
	"oci-archive:$root/bench2.oci.tar:bench2"

rm -rf "$work"
touch "$out/done"
echo "vm-prep: built $out" >&2
echo "$root"
