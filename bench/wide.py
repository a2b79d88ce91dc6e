#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Files per second of oci2cfs on one wide directory, by entry order.

    bench/wide.py [--oci2cfs BIN] [--files N] [--runs N] [--cache DIR]

Builds (once, cached) two OCI layouts whose one gzip layer holds N empty
files in one directory, in ascending and in descending name order
(oci-fixtures/hostile.py wide), converts each --runs times to a manifest
file and reports the median files per second.  Target: descending within
1.5x of ascending (building a directory is n log n whatever the order).
Exits 1 if a conversion fails or the two manifests differ; a missed
target is informational, like the rest of the bench.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
HOSTILE = os.path.join(HERE, "..", "oci-fixtures", "hostile.py")
TARGET = 1.5


def layout(cache, files, order):
    path = os.path.join(cache, f"wide-{files}-{order}")
    if not os.path.exists(os.path.join(path, "index.json")):
        shutil.rmtree(path, ignore_errors=True)
        subprocess.run([sys.executable, HOSTILE, "wide", path, str(files),
                        order], check=True,
                       env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    return path


def convert(binary, src, out, store):
    start = time.monotonic()
    subprocess.run([binary, src, "--ref", "wide", "--store", store,
                    "--output", out, "--sync=none", "-q"], check=True,
                   stdout=subprocess.DEVNULL)
    return time.monotonic() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oci2cfs",
                    default=os.path.join(HERE, "..", "build", "bin",
                                         "oci2cfs"))
    ap.add_argument("--files", type=int, default=300000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cache", default=os.environ.get(
        "CFS_BENCH_CACHE", "/var/cache/cfs-bench"))
    a = ap.parse_args()
    os.makedirs(a.cache, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="cfs-bench-wide.", dir="/var/tmp")
    try:
        rate, manifests = {}, {}
        for order in ("asc", "desc"):
            src = layout(a.cache, a.files, order)
            out = os.path.join(tmp, order + ".cfs")
            secs = [convert(a.oci2cfs, src, out, os.path.join(tmp, "store"))
                    for _ in range(a.runs)]
            rate[order] = a.files / statistics.median(secs)
            with open(out, "rb") as f:
                manifests[order] = f.read()
            print(f"{order:5} {a.files} files: "
                  f"{statistics.median(secs):7.3f} s, "
                  f"{rate[order]:10.0f} files/s", flush=True)
        ratio = rate["asc"] / rate["desc"]
        print(f"descending / ascending time: {ratio:.2f}x "
              f"(target <= {TARGET}x): "
              f"{'met' if ratio <= TARGET else 'MISSED'}")
        if manifests["asc"] != manifests["desc"]:
            print("wide: the two orders gave different manifests")
            return 1
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
