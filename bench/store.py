#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cfs-store against its peers (part of `make bench`, issue 14).

Builds a store of 20 images (mkcfs --digest-store over generated trees:
per image OWN unique files plus a shared pool), 10 of them with a ref.
Then, each on a fresh copy of the store:
  gc    `cfs-store gc` (removes the 10 images without a ref and their
        objects) against `find DIR -type f | xargs rm` of the same number of
        object files (target: within 2x); peak RSS per million objects.
  fsck  `cfs-store fsck` (computed digests where there is no fs-verity)
        against `fsverity digest` and `sha256sum` of every object, one
        process per CPU via xargs -P (target: within 1.3x).
Prints ratios; exit 0 (the targets are reported, not asserted).
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.join(HERE, "..", "build", "bin")


def gen_tree(root, seed, count, shared, pool):
    """count unique files plus the shared pool's files."""
    os.makedirs(root)
    for i in range(count):
        d = os.path.join(root, "d%03d" % (i % 200))
        os.makedirs(d, exist_ok=True)
        data = hashlib.sha256(b"%d-%d" % (seed, i)).digest() * (1 + i % 60)
        with open(os.path.join(d, "f%d" % i), "wb") as f:
            f.write(data)
    if shared:
        shutil.copytree(pool, os.path.join(root, "shared"))


def private(store):
    """images/ and refs/ as cfs-store makes them (cfs-store(8),
    PERMISSIONS), so that fsck finds the store sound."""
    for d in ("images", "refs"):
        os.chmod(os.path.join(store, d), 0o700)


def build_store(cache, images, own, pool_files):
    key = "store-%d-%d-%d" % (images, own, pool_files)
    store = os.path.join(cache, key)
    if os.path.exists(os.path.join(store, ".done")):
        private(store)
        return store
    shutil.rmtree(store, ignore_errors=True)
    work = tempfile.mkdtemp(dir=cache)
    pool = os.path.join(work, "pool")
    gen_tree(pool, 999, pool_files, False, None)
    os.makedirs(os.path.join(store, "images"))
    os.makedirs(os.path.join(store, "refs"))
    for n in range(images):
        tree = os.path.join(work, "t%d" % n)
        gen_tree(tree, n, own, True, pool)
        ident = hashlib.sha256(b"image %d" % n).hexdigest()
        base = os.path.join(store, "images", ident)
        subprocess.run([os.path.join(BIN, "mkcfs"), "--sync=none",
                        "--digest-store", store, tree, base + ".cfs"],
                       check=True, stdout=subprocess.DEVNULL)
        for suffix in (".json", ".manifest.json"):
            with open(base + suffix, "w") as f:
                f.write("{}")
        if n % 2 == 0:
            os.symlink("../images/%s.cfs" % ident,
                       os.path.join(store, "refs", "img%d" % n))
        shutil.rmtree(tree)
    shutil.rmtree(work)
    private(store)
    open(os.path.join(store, ".done"), "w").close()
    return store


def fresh_copy(store, tmp):
    dst = tempfile.mkdtemp(dir=tmp)
    os.rmdir(dst)
    subprocess.run(["cp", "-a", store, dst], check=True)
    os.unlink(os.path.join(dst, ".done"))
    return dst


def timed(cmd, shell=False):
    """(seconds, peak RSS KiB, stdout) of one run under /usr/bin/time."""
    full = ["/usr/bin/time", "-f", "%M", "-o", "/tmp/cfs-bench-time"]
    full += ["sh", "-c", cmd] if shell else cmd
    t = time.monotonic()
    out = subprocess.run(full, check=True, stdout=subprocess.PIPE).stdout
    elapsed = time.monotonic() - t
    with open("/tmp/cfs-bench-time") as f:
        rss = int(f.read().split()[-1])
    return elapsed, rss, out


def objects_of(store):
    out = []
    for b in range(256):
        d = os.path.join(store, "%02x" % b)
        if os.path.isdir(d):
            out += [os.path.join(d, n) for n in os.listdir(d)]
    return out


def bench_gc(store, tmp, runs):
    cs = os.path.join(BIN, "cfs-store")
    gc_t, base_t, rss, removed, total = [], [], 0, 0, 0
    for _ in range(runs):
        s = fresh_copy(store, tmp)
        total = len(objects_of(s))
        subprocess.run(["sync"])
        e, r, out = timed([cs, "-s", s, "gc", "--json"])
        rep = json.loads(out)
        removed = rep["objects"]
        gc_t.append(e)
        rss = max(rss, r)
        shutil.rmtree(s)
        # the peer: the same number of object files, find | xargs rm
        s = fresh_copy(store, tmp)
        subprocess.run(["sync"])
        e, _, _ = timed("find %s -mindepth 2 -maxdepth 2 -type f "
                        "-path '*/[0-9a-f][0-9a-f]/*' | head -n %d | "
                        "xargs rm" % (s, removed), shell=True)
        base_t.append(e)
        shutil.rmtree(s)
    g, b = min(gc_t), min(base_t)
    print("gc: %d of %d objects removed: cfs-store gc %.2f s, "
          "find | xargs rm %.2f s: ratio %.2f (target <= 2)"
          % (removed, total, g, b, g / b))
    print("gc: peak RSS %d KiB, %.0f MiB per million objects in the store"
          % (rss, rss / 1024 / (total / 1e6)))


def bench_fsck(store, runs):
    cs = os.path.join(BIN, "cfs-store")
    n = os.cpu_count() or 1
    results = {}
    peers = {
        "cfs-store fsck": None,
        "fsverity digest": "find %s -mindepth 2 -maxdepth 2 -type f "
        "-path '*/[0-9a-f][0-9a-f]/*' -print0 | xargs -0 -P %d -n 2000 "
        "fsverity digest >/dev/null" % (store, n),
        "sha256sum": "find %s -mindepth 2 -maxdepth 2 -type f "
        "-path '*/[0-9a-f][0-9a-f]/*' -print0 | xargs -0 -P %d -n 2000 "
        "sha256sum >/dev/null" % (store, n),
    }
    for name, cmd in peers.items():
        best = None
        for _ in range(runs):
            if cmd is None:
                e, _, out = timed([cs, "-s", store, "fsck", "--json"])
                rep = json.loads(out)
                assert not rep["problems"], rep["problems"][:3]
            else:
                e, _, _ = timed(cmd, shell=True)
            best = e if best is None else min(best, e)
        results[name] = best
    f = results["cfs-store fsck"]
    print("fsck: %d objects (warm cache, %d CPUs): cfs-store fsck %.2f s, "
          "fsverity digest %.2f s (ratio %.2f, target <= 1.3), "
          "sha256sum %.2f s (ratio %.2f)"
          % (len(objects_of(store)), n, f, results["fsverity digest"],
             f / results["fsverity digest"], results["sha256sum"],
             f / results["sha256sum"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=os.environ.get(
        "CFS_BENCH_CACHE", "/var/cache/cfs-bench"))
    ap.add_argument("--tmp", default="/var/tmp")
    ap.add_argument("--images", type=int, default=20)
    ap.add_argument("--own", type=int, default=5000,
                    help="unique files per image")
    ap.add_argument("--pool", type=int, default=2500,
                    help="files every image shares")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    os.makedirs(a.cache, exist_ok=True)
    store = build_store(a.cache, a.images, a.own, a.pool)
    bench_gc(store, a.tmp, a.runs)
    bench_fsck(store, a.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
