#!/bin/bash
# SPDX-License-Identifier: MIT
# Sealed images, on this host (bench/run calls it; SKIP_SEAL=1 skips it):
# the bench image (bench/mkimage.sh) is pushed to a docker-registry on
# 127.0.0.1 as it is and sealed (cfs-seal), then, RUNS times each, in turns
# (medians, ratios in this one run):
#   pull-plain / pull-sealed   oci2cfs docker:// of the unsealed and the
#                              sealed image into a new store: the seal costs
#                              one comparison of digests (target: within 3%)
#   cfs-seal                   cfs-seal oci:LAYOUT docker://...
#   convert + copy             oci2cfs of the layout into a new store, then
#                              skopeo copy of it to the registry: what
#                              sealing must do at least (target: cfs-seal
#                              within 1.2x of their sum)
# Those two push to a second registry started anew, with empty storage,
# before each: every blob is pushed (a registry that has a blob in another
# repository mounts it, and skopeo's blob-info cache knows where they are).
# Each timed command starts with nothing dirty and caches dropped, its
# inputs (the registry's blobs or the layout) and the tools read back, as in
# bench/pull.sh; stores on a fresh journaled ext4 (scratch-fs.sh).
#   bench/seal.sh IMAGEDIR [RUNS]
set -euo pipefail

image=$1
runs=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$here/../build/bin" && pwd)
oci2cfs=${OCI2CFS:-$bin/oci2cfs}
seal=${CFS_SEAL:-$bin/cfs-seal}
for t in docker-registry skopeo python3 /usr/bin/time "$seal"; do
	command -v "$t" >/dev/null || { echo "bench/seal.sh: $t missing" >&2; exit 1; }
done
if fs=$("$here/scratch-fs.sh" make /var/tmp); then
	echo "stores on a fresh ext4 with a journal (loop device)"
else
	fs=
	echo "stores on /var/tmp" >&2
fi
tmp=$(mktemp -d "${fs:-/var/tmp}/cfs-seal-bench.XXXXXX")
bench=bench/seal.sh
. "$here/lib.sh"
cleanup() {
	registry_stop
	rm -rf "$tmp"
	[ -z "$fs" ] || "$here/scratch-fs.sh" remove "$fs"
}
trap cleanup EXIT

port=$(free_port)
dport=$(free_port)
registry registry "$port"
export CONTAINERS_REGISTRIES_CONF=$tmp/registries.conf
# (printf repeats its format for the second port)
printf '[[registry]]\nlocation = "127.0.0.1:%s"\ninsecure = true\n' "$port" "$dport" \
	>"$CONTAINERS_REGISTRIES_CONF"
echo '{"default":[{"type":"insecureAcceptAnything"}]}' >"$tmp/policy.json"
R=127.0.0.1:$port
P=127.0.0.1:$dport
L=oci:$image/layout:bench
skopeo --insecure-policy copy -q --dest-tls-verify=false "$L" \
	"docker://$R/bench:plain"
export TMPDIR=$tmp
D=$("$seal" --tls-verify=false --signature-policy "$tmp/policy.json" "$L" \
	"docker://$R/bench:sealed")

tool_files "$oci2cfs" "$seal" skopeo
pull() { # LABEL TAG
	rm -rf "$tmp/s"
	settle "$tmp/registry"
	timed "$1" "$oci2cfs" "docker://$R/bench:$2" --store "$tmp/s" -q \
		--signature-policy "$tmp/policy.json"
}

for r in $(seq "$runs"); do
	# in turns, and each first every other round
	if [ $((r % 2)) = 1 ]; then
		pull pull-plain plain && pull pull-sealed sealed
	else
		pull pull-sealed sealed && pull pull-plain plain
	fi
	rm -rf "$tmp/s"
	registry dest "$dport"
	settle "$image/layout"
	timed cfs-seal "$seal" --tls-verify=false \
		--signature-policy "$tmp/policy.json" "$L" "docker://$P/seal:1"
	settle "$image/layout"
	timed convert "$oci2cfs" "$L" --store "$tmp/s" -q
	registry dest "$dport"
	settle "$image/layout"
	timed copy skopeo --insecure-policy copy -q --dest-tls-verify=false \
		"$L" "docker://$P/copy:1"
done

python3 - "$tmp/times" "$D" <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    label, sec, rss, user, system, load = line.split()
    t.setdefault(label, []).append((float(sec), int(rss), load))
med = lambda k: statistics.median(r[0] for r in t[k])
print("sealed images (medians of %d runs; s, peak RSS KiB, load averages); D %s"
      % (len(t["cfs-seal"]), sys.argv[2][:16]))
for k in ("pull-plain", "pull-sealed", "cfs-seal", "convert", "copy"):
    print("  %-12s %7.2f  %8d  load %s" % (
        k, med(k), max(r[1] for r in t[k]), " ".join(r[2] for r in t[k])))
p = med("pull-sealed") / med("pull-plain")
print("ratio sealed pull / unsealed pull      %.3f  (target <= 1.03: %s)"
      % (p, "PASS" if p <= 1.03 else "MISS"))
s = med("cfs-seal") / (med("convert") + med("copy"))
print("ratio cfs-seal / (convert + copy)      %.2f   (target <= 1.2: %s)"
      % (s, "PASS" if s <= 1.2 else "MISS"))
PY
