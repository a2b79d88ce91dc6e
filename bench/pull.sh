#!/bin/bash
# SPDX-License-Identifier: MIT
# Registry -> converted image, on this host (bench/run calls it; SKIP_PULL=1
# skips it): the bench image (bench/mkimage.sh) is pushed to a
# docker-registry on 127.0.0.1, then each way of getting it into a store is
# timed RUNS times (medians, ratios in this one run):
#   oci2cfs docker://            oci2cfs pulls through skopeo's image proxy
#   skopeo copy + oci2cfs        skopeo copy docker:// oci:DIR, then oci2cfs DIR
#   podman pull                  into a private containers-storage (overlay)
#   oci2cfs update               the same name, the top layer changed (a
#                                store holding v1 pulls v2): bytes fetched
# Every timed command starts in the same state (settle): nothing dirty in
# the page cache (sync), caches dropped, then its input read back: the
# registry's blobs, or for "then oci2cfs" the layout skopeo wrote. So no
# command pays for an earlier one's writeback (oci2cfs's final syncfs would
# flush skopeo's or podman's dirty pages too). Everything is written on a
# fresh journaled ext4 (scratch-fs.sh), as convert.py does, not on an ext4
# without a journal that skips inodes freed a moment ago (bench/README.md). Both oci2cfs rows run with the
# same flags (--sync=batch, the default). The writeback of the layout skopeo
# wrote (the second write a direct pull avoids) is timed on its own and
# left out of the target ratio. Peak RSS and CPU seconds (user + system,
# with children: skopeo) are reported. Runnable-by-podman (the composefs
# mount) needs the kernel module: that part is in the VM bench (bench/vm.sh).
# On the loopback the network costs only CPU, so fetching while converting
# (the direct pull) gains nothing over fetching first; as root, the pulls
# are timed again with the loopback shaped to LINK_RATE (default 1gbit, a
# fast LAN or a registry mirror nearby; tc's token bucket filter on lo,
# removed at exit; LINK_RATE=0 skips it). The local conversion of the
# layout does not use the network: its row is shared.
#   bench/pull.sh IMAGEDIR [RUNS]
set -euo pipefail

image=$1
runs=${2:-3}
link_rate=${LINK_RATE:-1gbit}
here=$(cd "$(dirname "$0")" && pwd)
oci2cfs=${OCI2CFS:-$here/../build/bin/oci2cfs}
for t in docker-registry skopeo podman python3 /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "bench/pull.sh: $t missing" >&2; exit 1; }
done
# stores, layouts and podman's graph on a journaled ext4, as in convert.py
if fs=$("$here/scratch-fs.sh" make /var/tmp); then
	echo "output trees on a fresh ext4 with a journal (loop device)"
else
	fs=
	echo "output trees on /var/tmp" >&2
fi
tmp=$(mktemp -d "${fs:-/var/tmp}/cfs-pull-bench.XXXXXX")
bench=bench/pull.sh
. "$here/lib.sh"
shaped=
# The loopback shaped to $link_rate, unless it has a qdisc of its own.
shape_link() {
	[ "$link_rate" != 0 ] && [ "$(id -u)" = 0 ] && command -v tc >/dev/null ||
		return 1
	tc qdisc show dev lo | grep -q '^qdisc noqueue' || return 1
	tc qdisc add dev lo root tbf rate "$link_rate" burst 512kb \
		latency 20ms 2>/dev/null || return 1
	shaped=1
}
unshape_link() {
	[ -z "$shaped" ] || tc qdisc del dev lo root 2>/dev/null || true
	shaped=
}
cleanup() {
	unshape_link
	registry_stop
	umount -R "$tmp/graph/overlay" 2>/dev/null || true
	rm -rf "$tmp"
	[ -z "$fs" ] || "$here/scratch-fs.sh" remove "$fs"
}
trap cleanup EXIT

port=$(free_port)
registry registry "$port"
export CONTAINERS_REGISTRIES_CONF=$tmp/registries.conf
printf '[[registry]]\nlocation = "127.0.0.1:%s"\ninsecure = true\n' "$port" \
	>"$CONTAINERS_REGISTRIES_CONF"
echo '{"default":[{"type":"insecureAcceptAnything"}]}' >"$tmp/policy.json"
. "$here/../scripts/podman-conf.sh"
R=127.0.0.1:$port
skopeo --insecure-policy copy -q --dest-tls-verify=false \
	"oci:$image/layout:bench" "docker://$R/bench:1"

# convert.py warms the tools too
tool_files "$oci2cfs" skopeo podman

# One round: each way from the registry to a store; SUFFIX names the link.
pull_round() {
	local sfx=$1
	rm -rf "$tmp/s" "$tmp/lay" "$tmp/s2" "$tmp/graph" "$tmp/run" "$tmp/pc"
	settle "$tmp/registry"
	timed "oci2cfs-docker$sfx" "$oci2cfs" "docker://$R/bench:1" \
		--store "$tmp/s" -q --sync=batch \
		--signature-policy "$tmp/policy.json"
	settle "$tmp/registry"
	timed "skopeo-copy$sfx" skopeo --insecure-policy \
		--registries-conf "$CONTAINERS_REGISTRIES_CONF" copy -q \
		"docker://$R/bench:1" "oci:$tmp/lay:bench"
	if [ -z "$sfx" ]; then
		timed "layout-writeback" sync -f "$tmp/lay"
		settle "$tmp/lay"
		timed "then-oci2cfs" "$oci2cfs" "$tmp/lay" --store "$tmp/s2" \
			-q --sync=batch
	fi
	podman_private_conf "$tmp/pc" "$tmp/graph" "$tmp/run"
	settle "$tmp/registry"
	timed "podman-pull$sfx" podman pull -q \
		--signature-policy "$tmp/policy.json" "docker://$R/bench:1"
	podman rmi -a -f >/dev/null 2>&1 || true
	umount -R "$tmp/graph/overlay" 2>/dev/null || true
	unset CONTAINERS_STORAGE_CONF CONTAINERS_CONF
}

for r in $(seq "$runs"); do
	pull_round ""
done
if shape_link; then
	for r in $(seq "$runs"); do
		pull_round "@link"
	done
	unshape_link
elif [ "$link_rate" != 0 ]; then
	echo "bench/pull.sh: loopback not shaped (needs root, tc and no qdisc on lo): no $link_rate rows" >&2
fi

# the update: v2 = v1 with its top layer replaced by a small new one
new_blobs=$(python3 - "$image/layout" "$tmp/v2" <<'PY'
import gzip, hashlib, io, json, os, shutil, sys, tarfile
src, dst = sys.argv[1:3]
shutil.copytree(src, dst)
b = lambda d: os.path.join(dst, "blobs", *d.split(":"))
idx = json.load(open(os.path.join(dst, "index.json")))
m = [x for x in idx["manifests"] if x.get("annotations", {}).get(
    "org.opencontainers.image.ref.name") == "bench"][0]
man = json.load(open(b(m["digest"])))
cfg = json.load(open(b(man["config"]["digest"])))
raw = io.BytesIO()
with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
    data = b"update\n" * 100000
    ti = tarfile.TarInfo("etc/cfs-update"); ti.size = len(data); ti.mtime = 1700000000
    t.addfile(ti, io.BytesIO(data))
tar = raw.getvalue(); gz = gzip.compress(tar, mtime=0)
def put(data):
    d = "sha256:" + hashlib.sha256(data).hexdigest()
    open(b(d), "wb").write(data)
    return d
man["layers"][-1] = {"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                     "digest": put(gz), "size": len(gz)}
cfg["rootfs"]["diff_ids"][-1] = "sha256:" + hashlib.sha256(tar).hexdigest()
c = json.dumps(cfg).encode(); man["config"] = dict(man["config"], digest=put(c), size=len(c))
mb = json.dumps(man).encode(); m["digest"] = put(mb); m["size"] = len(mb)
json.dump(idx, open(os.path.join(dst, "index.json"), "w"))
print(len(gz), len(c))
PY
)
skopeo --insecure-policy copy -q --dest-tls-verify=false "oci:$tmp/v2:bench" \
	"docker://$R/bench:2"
rm -rf "$tmp/s"
"$oci2cfs" "docker://$R/bench:1" --store "$tmp/s" -q \
	--signature-policy "$tmp/policy.json" >/dev/null
before=$(wc -l <"$tmp/registry.log")
settle "$tmp/registry"
timed "oci2cfs-update" "$oci2cfs" "docker://$R/bench:2" --store "$tmp/s" -q \
	--signature-policy "$tmp/policy.json"
# blob requests of the update and the bytes served (access log: status, size)
fetched=$(tail -n +"$((before + 1))" "$tmp/registry.log" |
	awk '/"GET \/v2\/bench\/blobs\// { n++; b += $(NF - 2) } END { print n + 0, b + 0 }')

python3 - "$tmp/times" "$fetched" "$link_rate" "$new_blobs" <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    label, sec, rss, user, system, load = line.split()
    t.setdefault(label, []).append(
        (float(sec), int(rss), float(user) + float(system), load))
med = lambda k: statistics.median(r[0] for r in t[k])
cpu = lambda k: statistics.median(r[2] for r in t[k])
rss = lambda k: max(r[1] for r in t[k])
print("registry -> converted (medians of %d runs; s, CPU s, peak RSS KiB, load averages)"
      % len(t["oci2cfs-docker"]))
for k in ("oci2cfs-docker", "skopeo-copy", "layout-writeback", "then-oci2cfs",
          "podman-pull", "oci2cfs-update", "oci2cfs-docker@link",
          "skopeo-copy@link", "podman-pull@link"):
    if k in t:
        print("  %-19s %7.2f  cpu %5.2f  %8d  load %s" % (
            k, med(k), cpu(k), rss(k), " ".join(r[3] for r in t[k])))
cfs = med("oci2cfs-docker")
two = med("skopeo-copy") + med("then-oci2cfs")
print("ratio podman pull / oci2cfs docker://          %.2fx (target >= 2.5x)" % (med("podman-pull") / cfs))
print("ratio skopeo copy + oci2cfs / oci2cfs docker:// %.2fx (target > 1; %.2fx with the layout's writeback)"
      % (two / cfs, (two + med("layout-writeback")) / cfs))
if "oci2cfs-docker@link" in t:
    cfs = med("oci2cfs-docker@link")
    print("on a %s link (then-oci2cfs shared): podman pull %.2fx, skopeo copy + oci2cfs %.2fx"
          % (sys.argv[3], med("podman-pull@link") / cfs,
             (med("skopeo-copy@link") + med("then-oci2cfs")) / cfs))
n, got = map(int, sys.argv[2].split())
layer, config = map(int, sys.argv[4].split())
print("update (top layer changed): %d blob requests, %d bytes (the new layer %d + its config %d = %d), %.2f s = %.0f%% of a full pull"
      % (n, got, layer, config, layer + config, med("oci2cfs-update"),
         100 * med("oci2cfs-update") / med("oci2cfs-docker")))
PY
