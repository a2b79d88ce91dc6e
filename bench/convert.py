#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Times oci2cfs against its peers on one OCI layout.

    bench/convert.py IMAGEDIR [--oci2cfs BIN] [--runs N] [--cold-runs N]
                     [--tmp DIR] [--no-scratch-fs] [--quick]
                     [--compare-with BIN]

IMAGEDIR is what bench/mkimage.sh printed (layout/ with tag "bench").
Each case runs N times warm (page cache holding the blobs) and N times cold
(after sync and drop_caches, root only); medians are reported.  Every run
writes into a fresh directory under one temp dir, so all cases share a
filesystem: as root, a fresh ext4 with a journal (mkfs.ext4's defaults, as
Debian installs it) on a loop device, made under --tmp by scratch-fs.sh.  Exits 1 if a command fails or two manifests differ; missed
performance targets are informational.
"""

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TAG = "bench"
MIB = 1024 * 1024


class BenchError(Exception):
    pass


def layer_blobs(layout):
    """Paths of the gzip layer blobs of LAYOUT:TAG, in order."""
    def blob(digest):
        return os.path.join(layout, "blobs", "sha256", digest.split(":")[1])

    with open(os.path.join(layout, "index.json")) as f:
        index = json.load(f)
    for desc in index["manifests"]:
        ann = desc.get("annotations", {})
        if ann.get("org.opencontainers.image.ref.name") == TAG:
            with open(blob(desc["digest"])) as f:
                manifest = json.load(f)
            return [blob(layer["digest"]) for layer in manifest["layers"]]
    raise BenchError(f"{layout}: no tag {TAG}")


def can_drop_caches():
    return os.access("/proc/sys/vm/drop_caches", os.W_OK)


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


GNU_TIME = "/usr/bin/time"


def peak_rss_wrapper(rss_path):
    """GNU time reports the peak RSS of the command alone; wait4's ru_maxrss
    would also count this Python process, which the child copies before it
    execs."""
    if os.access(GNU_TIME, os.X_OK):
        return [GNU_TIME, "-q", "-f", "%M", "-o", rss_path]
    return []


def read_peak_rss(rss_path, usage):
    """Peak RSS in bytes: GNU time's figure, else wait4's (an over-estimate
    that includes this Python process)."""
    try:
        with open(rss_path) as f:
            return int(f.read().split()[-1]) * 1024
    except (OSError, ValueError, IndexError):
        return usage.ru_maxrss * 1024


def program_files(*names):
    """The executables NAMES and the shared libraries they load: a warm
    run finds each tool itself in the page cache too, as a tool used
    daily is (a cold run starts without them)."""
    files = [f for f in ("/usr/lib/ssl/openssl.cnf",) if os.path.exists(f)]
    for name in names:
        path = shutil.which(name)
        if not path:
            continue
        files.append(os.path.realpath(path))
        ldd = subprocess.run(["ldd", path], capture_output=True, text=True)
        for line in ldd.stdout.splitlines():
            words = line.split()
            lib = words[2] if "=>" in words and len(words) > 2 else words[0]
            if lib.startswith("/") and os.path.exists(lib):
                files.append(os.path.realpath(lib))
    return sorted(set(files))


def warm_up(paths):
    """Reads files and walks directories so they are in the page cache."""
    for path in paths:
        if os.path.isdir(path):
            for root, _, names in os.walk(path):
                warm_up(os.path.join(root, n) for n in names)
        else:
            with open(path, "rb") as f:
                while f.read(MIB):
                    pass


def remove_tree(path):
    subprocess.run(["rm", "-rf", "--", path], check=True)


@contextlib.contextmanager
def scratch_fs(base):
    """Yields a directory on a fresh ext4 with a journal made in BASE by
    bench/scratch-fs.sh (see there why), or None where that cannot be made
    (not root, no loop device)."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "scratch-fs.sh")
    made = subprocess.run([script, "make", base], capture_output=True,
                          text=True)
    if made.returncode != 0:
        print(f"convert: {made.stderr.strip()}: output trees go to {base}",
              file=sys.stderr)
        yield None
        return
    mnt = made.stdout.strip()
    try:
        yield mnt
    finally:
        subprocess.run([script, "remove", mnt], check=False)


def run_timed(argv, stdout_path, cold, inputs):
    """Runs ARGV once; returns (seconds, peak RSS in bytes, CPU seconds).  Every run
    starts from dropped caches: on this VM a tree written right after
    another was deleted takes 2-5x longer than after drop_caches, which
    would swamp the tools' differences.  A warm run then reads INPUTS back
    into the page cache; a cold run leaves them on disk."""
    os.sync()
    if can_drop_caches():
        drop_caches()
    if not cold:
        warm_up(inputs)
    rss_path = stdout_path + ".rss"
    with open(stdout_path, "wb") as out:
        start = time.monotonic()
        proc = subprocess.Popen(peak_rss_wrapper(rss_path) + argv,
                                stdout=out)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise BenchError(f"{argv[0]} exited {code}: {' '.join(argv)}")
    return (elapsed, read_peak_rss(rss_path, usage),
            usage.ru_utime + usage.ru_stime)


class Case:
    """One command measured warm and cold; keeps each run's stdout."""

    def __init__(self, name, make_argv, inputs, fresh=True, collect=None):
        self.name = name
        self.inputs = inputs  # what a warm run finds in the page cache
        self.make_argv = make_argv  # (run directory) -> argv
        self.fresh = fresh  # a new, empty run directory for each run
        self.collect = collect  # (stdout bytes) -> kept before cleanup
        self.collected = []
        self.warm = []
        self.cold = []
        self.rss = []
        self.cpu = []  # user + system seconds, warm runs
        self.outputs = []

    def run_once(self, tmp, cold):
        i = len(self.outputs)
        rundir = os.path.join(tmp, f"{self.name}.{i}")
        if self.fresh:
            os.mkdir(rundir)
        out = os.path.join(tmp, f"{self.name}.{i}.out")
        secs, rss, cpu = run_timed(self.make_argv(rundir), out, cold,
                                   self.inputs)
        if not cold:
            self.cpu.append(cpu)
        (self.cold if cold else self.warm).append(secs)
        self.rss.append(rss)
        with open(out, "rb") as f:
            self.outputs.append(f.read())
        if self.collect:
            self.collected.append(self.collect(self.outputs[-1]))
        if self.fresh:
            remove_tree(rundir)

    def median(self, cold=False):
        times = self.cold if cold else self.warm
        return statistics.median(times) if times else None


def measure_rounds(cases, tmp, runs, cold_runs):
    """Round-robin over CASES, so that load from elsewhere on the machine
    spreads over every tool instead of skewing one."""
    plan = [True] * cold_runs + [False] * runs
    for n, cold in enumerate(plan, 1):
        print(f"round {n}/{len(plan)} ({'cold' if cold else 'warm'}):",
              end="", flush=True)
        for case in cases:
            case.run_once(tmp, cold)
            secs = (case.cold if cold else case.warm)[-1]
            print(f" {case.name} {secs:.2f}s", end="", flush=True)
        print(f"  [load {os.getloadavg()[0]:.2f}]", flush=True)


def oci2cfs_argv(binary, layout, *extra):
    def argv(store):
        return [binary, layout, "-r", TAG, "--store", store, "--sync=batch",
                "-q", "--json", *extra]
    return argv


def read_manifest(stdout):
    """The bytes of the manifest named by an oci2cfs --json summary."""
    with open(json.loads(stdout)["manifest"], "rb") as f:
        return f.read()


def oci2cfs_case(name, argv, inputs, fresh=True):
    return Case(name, argv, inputs, fresh, collect=read_manifest)


def summaries(case):
    return [json.loads(out) for out in case.outputs]


def manifests_identical(case, reference):
    return all(m == reference for m in case.collected)


def fmt_secs(value):
    return "-" if value is None else f"{value:8.3f}"


def fmt_ratio(num, den):
    if num is None or den is None or den == 0:
        return "-"
    return f"{num / den:6.2f}"


def print_table(first, rows):
    print(f"{'tool':<34} {'warm s':>8} {'cold s':>8} "
          f"{'oci2cfs/peer warm':>18} {'cold':>6} {'peak RSS MiB':>12} "
          f"{'CPU s':>6}")
    for label, case in rows:
        cpu = (f"{statistics.median(case.cpu):6.2f}" if case.cpu
               else f"{'-':>6}")
        print(f"{label:<34} {fmt_secs(case.median())} "
              f"{fmt_secs(case.median(cold=True))} "
              f"{fmt_ratio(first.median(), case.median()):>18} "
              f"{fmt_ratio(first.median(True), case.median(True)):>6} "
              f"{max(case.rss) / MIB:12.1f} {cpu}")
    print("(CPU s: median user + system time of the warm runs, whatever the"
          " load)")


def verdict(ok):
    return "PASS" if ok else "MISS"


def print_targets(first, cached, umoci, tar, floor, files):
    limit = 100 * MIB + 300 * files
    rss = max(first.rss)
    speedup = first.median() / cached.median()
    targets = [
        ("oci2cfs faster than umoci unpack",
         f"{first.median():.3f} s vs {umoci.median():.3f} s",
         first.median() < umoci.median()),
        ("oci2cfs within 1.3x of the floor",
         f"{first.median() / floor.median():.2f}x",
         first.median() <= 1.3 * floor.median()),
        ("peak RSS under 100 MiB + 300 B/file",
         f"{rss / MIB:.1f} MiB, limit {limit / MIB:.1f} MiB "
         f"({files} files)", rss < limit),
        ("cached conversion >= 10x faster",
         f"{speedup:.1f}x", speedup >= 10),
    ]
    if tar:
        targets.insert(1, (
            "oci2cfs faster than tar -xzf of the layers",
            f"{first.median():.3f} s vs {tar.median():.3f} s",
            first.median() < tar.median()))
    print("\ntargets (warm medians):")
    for name, detail, ok in targets:
        print(f"  {verdict(ok)}  {name:<44} {detail}")
    return sum(not ok for _, _, ok in targets), len(targets)


def check_cached(cached):
    """Every cached run must have found all layers in the cache."""
    for s in summaries(cached):
        if s["cached_layers"] != s["layers"]:
            raise BenchError(f"cached run used {s['cached_layers']} of "
                             f"{s['layers']} cached layers")


def run_all(args, tmp):
    layout = os.path.join(args.image, "layout")
    blobs = layer_blobs(layout)
    o2c = args.oci2cfs

    print(f"image: {layout}:{TAG}, {len(blobs)} gzip layers, "
          f"{sum(os.path.getsize(b) for b in blobs) / MIB:.1f} MiB; "
          f"{args.runs} warm + {args.cold_runs} cold runs each, in {tmp}; "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)

    # The cached case converts again into a store that already holds every
    # layer; this untimed first conversion fills it and gives the reference
    # manifest.
    store = os.path.join(tmp, "cached-store")
    o2c_argv = oci2cfs_argv(o2c, layout)
    warmup = oci2cfs_case("warmup", lambda _: o2c_argv(store), [],
                          fresh=False)
    warmup.run_once(tmp, cold=False)
    reference = warmup.collected[0]
    before = None
    if args.compare_with:
        # Another build (e.g. the converter before a change): its manifest
        # of the same image must be the same bytes.
        other = oci2cfs_case(
            "other", oci2cfs_argv(os.path.abspath(args.compare_with),
                                  layout), [])
        other.run_once(tmp, cold=False)
        before = other.collected[0] == reference
    store_meta = [os.path.join(store, d) for d in ("layers", "images")]

    # what every run of a case finds warm besides its inputs
    run_with = program_files("time", "sh")
    o2c_files = blobs + run_with + program_files(o2c)
    first = oci2cfs_case("first", o2c_argv, o2c_files)
    cached = oci2cfs_case("cached", lambda _: o2c_argv(store),
                          o2c_files + store_meta, fresh=False)
    single = oci2cfs_case("j1", oci2cfs_argv(o2c, layout, "-j", "1"),
                          o2c_files)
    unsynced = oci2cfs_case(
        "nosync", oci2cfs_argv(o2c, layout, "--sync=none"), o2c_files)
    umoci = Case("umoci", lambda d: [
        "umoci", "unpack", "--image", f"{layout}:{TAG}",
        os.path.join(d, "bundle")], blobs + run_with + program_files("umoci"))
    tar = Case("tar", lambda d: [
        "sh", "-c", 'd=$1; shift; for b; do tar -C "$d" -xzf "$b" || exit; '
        'done', "sh", d, *blobs],
        blobs + run_with + program_files("tar", "gzip"))
    bound = Case("zcat", lambda _: [
        "sh", "-c", 'zcat "$@" | sha256sum', "sh", *blobs],
        blobs + run_with + program_files("zcat", "gzip", "sha256sum"),
        fresh=False)
    # The floor: the fastest inflate and SHA-256 on this machine (ISA-L,
    # OpenSSL with SHA-NI where the CPU has it), on two cores.
    floor = Case("floor", lambda _: [
        "sh", "-c", 'igzip -dc "$@" | openssl dgst -sha256', "sh", *blobs],
        blobs + run_with + program_files("igzip", "openssl"), fresh=False)
    cases = [first, cached, single, unsynced, umoci, tar, floor, bound]
    if args.quick:
        cases = [first, cached, umoci, floor, bound]
    measure_rounds(cases, tmp, args.runs, args.cold_runs)
    check_cached(cached)

    s = summaries(first)[0]
    print(f"\noci2cfs: {s['files']} files ({s['regular_files']} regular), "
          f"{s['bytes'] / MIB:.1f} MiB, {s['new_objects']} objects, "
          f"verity {s['verity']}")
    print()
    rows = [
        ("oci2cfs (first, -j default)", first),
        ("oci2cfs (all layers cached)", cached),
        ("oci2cfs -j 1", single),
        ("oci2cfs --sync=none (info)", unsynced),
        ("umoci unpack", umoci),
        ("tar -xzf each layer", tar),
        ("igzip | openssl dgst (floor)", floor),
        ("zcat | sha256sum", bound),
    ]
    print_table(first, [(label, c) for label, c in rows if c in cases])
    if not os.access(GNU_TIME, os.X_OK):
        print("(no /usr/bin/time: peak RSS includes the Python parent)")

    same = {
        "repeated first runs": manifests_identical(first, reference),
        "cached run vs first": manifests_identical(cached, reference),
    }
    if before is not None:
        same[f"{args.compare_with} vs this build"] = before
    if not args.quick:
        same["-j 1 vs default"] = manifests_identical(single, reference)
        same["--sync=none vs batch"] = manifests_identical(unsynced,
                                                           reference)
    print("\nmanifests byte-identical:")
    for name, ok in same.items():
        print(f"  {'yes' if ok else 'NO '}  {name}")
    missed, total = print_targets(first, cached, umoci,
                                  None if args.quick else tar, floor,
                                  s["files"])
    print(f"\nsummary: {total - missed}/{total} targets met; manifests "
          f"{'identical' if all(same.values()) else 'DIFFER'}; "
          f"load average {os.getloadavg()[0]:.2f}")
    return 0 if all(same.values()) else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("image")
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--oci2cfs", default=os.path.join(
        here, "..", "build", "bin", "oci2cfs"))
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--cold-runs", type=int, default=None)
    p.add_argument("--tmp", default="/var/tmp")
    p.add_argument("--no-scratch-fs", action="store_true",
                   help="write the output trees in --tmp itself, not on a "
                   "fresh journaled ext4 (see scratch-fs.sh)")
    p.add_argument("--compare-with", metavar="BIN",
                   help="another oci2cfs whose manifest must be identical")
    p.add_argument("--quick", action="store_true",
                   help="only oci2cfs first and cached, umoci and the two "
                   "bounds; no cold runs unless --cold-runs is given")
    args = p.parse_args()
    if args.quick and args.cold_runs is None:
        args.cold_runs = 0
    elif args.cold_runs is None:
        args.cold_runs = 3
    if args.cold_runs and not can_drop_caches():
        print("convert: cannot drop caches (not root): warm runs only",
              file=sys.stderr)
        args.cold_runs = 0
    args.oci2cfs = os.path.abspath(args.oci2cfs)
    try:
        with contextlib.ExitStack() as stack:
            fs = None
            if not args.no_scratch_fs:
                fs = stack.enter_context(scratch_fs(args.tmp))
            print("output trees on " + (
                "a fresh ext4 with a journal (loop device)" if fs else
                f"the filesystem of {args.tmp}"), flush=True)
            tmp = tempfile.mkdtemp(prefix="cfs-bench.", dir=fs or args.tmp)
            stack.callback(remove_tree, tmp)
            return run_all(args, tmp)
    except (BenchError, OSError, KeyError, ValueError,
            subprocess.CalledProcessError) as e:
        print(f"convert: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
