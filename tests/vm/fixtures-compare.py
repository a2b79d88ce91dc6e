#!/usr/bin/python3
"""The fixtures section of the VM suite, and reference dumps (in the VM).

  fixtures-compare.py run FXDIR SCRATCH STORE MNTDIR
      Every image of FXDIR/fixtures.list ("TAG REFTAG") and
      FXDIR/archives.list ("FILE REF REFTAG"): oci2cfs into STORE; every new
      object (digest = its name) and the manifest (digest = the one printed)
      have fs-verity (FS_IOC_MEASURE_VERITY, as `fsverity measure`);
      `mount -t composefs -o basedir=STORE,digest=DIGEST` (mount(8), so
      through /sbin/mount.composefs) on MNTDIR/N. Then each mounted tree is
      dumped with refdump.py --normalise (attributes, xattrs, symlink
      targets, fs-verity digests of the content read through the mount,
      hard links by inode number) and compared with the reference dump of
      REFTAG; directory st_nlink is checked too (refdump prints 2 +
      subdirectories, whatever stat says). Then all are unmounted.
  fixtures-compare.py compare FXDIR SCRATCH < LIST
      the comparison alone, for lines "NAME MOUNTPOINT REFTAG".
  fixtures-compare.py ref FXDIR SCRATCH REFTAG
      prints the reference dump of REFTAG.
One TAP line per check. The reference is taken from FXDIR/refcache/, which
the host fills before boot (tests/integration/lib.sh reference_dump, key:
the tag's manifest digest, refdump.py and umoci's version, so it is never
stale); without it the tag is unpacked here with umoci, as root, under
SCRATCH. One process for everything: under TCG, and more so on the KASAN
kernel, every process started costs.
"""
import difflib
import fcntl
import hashlib
import io
import json
import os
import shutil
import stat
import struct
import subprocess
import sys
import time
import traceback

sys.dont_write_bytecode = True
REFDUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "..", "integration", "refdump.py")
OCI2CFS = os.path.join(os.environ.get("CFS_VM_BIN") or
                       os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "..", "build", "bin"), "oci2cfs")
sys.path.insert(0, os.path.dirname(REFDUMP))
import refdump  # noqa: E402
import vmtap  # noqa: E402
from vmtap import tap  # noqa: E402

class References:
    def __init__(self, fx, scratch):
        self.fx, self.scratch = fx, scratch
        self.layout = os.path.join(fx, "layout")
        with open(os.path.join(self.layout, "index.json")) as f:
            self.index = json.load(f)
        with open(REFDUMP, "rb") as f:
            self.prefix_tail = f.read()
        self.prefix_tail += subprocess.run(["umoci", "--version"],
                                           stdout=subprocess.PIPE,
                                           check=True).stdout

    def key(self, tag):
        """The cache key of lib.sh's reference_dump."""
        digest = [m["digest"] for m in self.index["manifests"]
                  if m.get("annotations", {})
                  .get("org.opencontainers.image.ref.name") == tag][0]
        data = (digest + "\n").encode() + self.prefix_tail
        return hashlib.sha256(data).hexdigest()[:32]

    def dump(self, tag):
        cache = os.path.join(self.fx, "refcache", tag + "." + self.key(tag))
        if os.path.exists(cache):
            with open(cache) as f:
                return f.read()
        print("# no host reference for %s: umoci unpack in the VM" % tag)
        bundle = os.path.join(self.scratch, "unpack", tag)
        shutil.rmtree(bundle, ignore_errors=True)
        os.makedirs(os.path.dirname(bundle), exist_ok=True)
        res = subprocess.run(["umoci", "unpack", "--image",
                              self.layout + ":" + tag, bundle],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if res.returncode:
            raise RuntimeError("umoci unpack %s: %s" % (tag,
                               res.stdout.decode(errors="replace")[-500:]))
        out = io.StringIO()
        refdump.dump(os.path.join(bundle, "rootfs"), True, out)
        shutil.rmtree(bundle, ignore_errors=True)
        return out.getvalue()


def dir_nlink_problems(mnt):
    subdirs, nlinks = {}, {}
    for rel, _, st in refdump.walk(mnt):
        if stat.S_ISDIR(st.st_mode):
            nlinks[rel] = st.st_nlink
            if rel != b"/":
                parent = os.path.dirname(rel)
                subdirs[parent] = subdirs.get(parent, 0) + 1
    return ["%s: st_nlink %d, %d subdirectories" % (r.decode(errors="replace"),
                                                    n, subdirs.get(r, 0))
            for r, n in nlinks.items() if n != 2 + subdirs.get(r, 0)]


def compare_one(refs, name, mnt, reftag):
    try:
        want = refs.dump(reftag)
    except (RuntimeError, OSError, IndexError) as e:
        tap(False, "%s: reference dump of %s" % (name, reftag), [str(e)])
        return
    got = io.StringIO()
    try:
        refdump.dump(mnt, True, got)
    except (OSError, SystemExit, subprocess.CalledProcessError) as e:
        tap(False, "%s: dump of the mounted tree" % name, [str(e)])
        return
    a, b = want.splitlines(True), got.getvalue().splitlines(True)
    tap(a == b, "%s: mounted tree equals umoci unpack of %s (%d entries: "
        "attributes, xattrs, content digests, hard links)"
        % (name, reftag, len(a)),
        difflib.unified_diff(a, b, "reference", "mounted", n=1))
    bad = dir_nlink_problems(mnt)
    tap(not bad, "%s: directory st_nlink is 2 + subdirectories" % name, bad)


FS_IOC_MEASURE_VERITY = 0xC0046686  # _IOWR('f', 134, struct fsverity_digest)


def measure(path):
    """Hex fs-verity digest of PATH (ioctl), None without fs-verity."""
    buf = bytearray(struct.pack("HH", 0, 64) + bytes(64))
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.ioctl(fd, FS_IOC_MEASURE_VERITY, buf)
    except OSError:
        return None
    finally:
        os.close(fd)
    alg, size = struct.unpack_from("HH", buf)
    return buf[4:4 + size].hex() if alg == 1 else None


def store_objects(store):
    objs = set()
    for d in os.listdir(store):
        if len(d) == 2 and all(c in "0123456789abcdef" for c in d):
            objs.update(d + "/" + n for n in os.listdir(os.path.join(store, d))
                        if len(n) == 62)
    return objs


def mount_types():
    """Mount point -> fstype of the topmost mount there."""
    out = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, right = line.split(" - ", 1)
            out[left.split()[4]] = right.split()[0]
    return out


def run_cmd(argv):
    res = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return (res.returncode, res.stdout.decode(errors="replace"),
            res.stderr.decode(errors="replace"))


def convert_and_mount(name, src, args, store, mnt):
    """TAP for oci2cfs, fs-verity and the mount; True if mounted."""
    before = store_objects(store)
    rc, out, err = run_cmd([OCI2CFS, src] + args +
                           ["--store", store, "--sync=none", "-q"])
    lines = out.split()
    tap(rc == 0 and len(lines) == 2,
        "%s: oci2cfs converts it into the store on ext4" % name,
        (err or out).splitlines())
    if rc or len(lines) != 2:
        return False
    manifest, digest = lines
    new = sorted(store_objects(store) - before)
    bad = [o for o in new if measure(os.path.join(store, o)) !=
           o.replace("/", "")]
    got = measure(manifest)
    tap(not bad and got == digest,
        "%s: fs-verity on its %d new objects (digest = name) and on the "
        "manifest (digest = printed)" % (name, len(new)),
        ["no fs-verity or wrong digest: " + o for o in bad] +
        ["manifest %s: %s, printed %s" % (manifest, got, digest)])
    os.makedirs(mnt, exist_ok=True)
    rc, out, err = run_cmd(["mount", "-t", "composefs", "-o",
                            "basedir=%s,digest=%s" % (store, digest),
                            manifest, mnt])
    fstype = mount_types().get(mnt)
    tap(rc == 0 and fstype == "composefs",
        "%s: mount -t composefs -o basedir=,digest= (through the helper)"
        % name, ["status %d, fstype %s" % (rc, fstype)] + err.splitlines())
    return rc == 0 and fstype == "composefs"


def run_all(refs, fx, store, mntdir):
    images = []
    with open(os.path.join(fx, "fixtures.list")) as f:
        for line in f:
            tag, reftag = line.split()
            images.append((tag, reftag, refs.layout, ["--ref", tag]))
    with open(os.path.join(fx, "archives.list")) as f:
        for line in f:
            path, ref, reftag = line.split()
            images.append((os.path.basename(path), reftag, path,
                           ["--ref", ref]))
    os.makedirs(store, exist_ok=True)
    t0 = time.monotonic()
    mounted = []
    for i, (name, reftag, src, args) in enumerate(images):
        mnt = os.path.join(mntdir, str(i))
        if convert_and_mount(name, src, args, store, mnt):
            mounted.append((name, mnt, reftag))
    t1 = time.monotonic()
    print("# fixtures: %d images converted and mounted in %.0f s; %d objects"
          " in the store" % (len(images), t1 - t0, len(store_objects(store))))
    for name, mnt, reftag in mounted:
        compare_one(refs, name, mnt, reftag)
    t2 = time.monotonic()
    print("# fixtures: %d trees compared in %.0f s" % (len(mounted), t2 - t1))
    bad = [mnt for _, mnt, _ in mounted if run_cmd(["umount", mnt])[0]]
    tap(not bad, "fixtures: all %d mounts unmount" % len(mounted), bad)


def main():
    cmd, fx, scratch = sys.argv[1:4]
    refs = References(fx, scratch)
    if cmd == "ref":
        sys.stdout.write(refs.dump(sys.argv[4]))
        return 0
    if cmd == "run":
        run_all(refs, fx, *sys.argv[4:6])
        return vmtap.status()
    for line in sys.stdin:
        try:
            name, mnt, reftag = line.split()
            compare_one(refs, name, mnt, reftag)
        except Exception:  # one TAP failure, not a lost traceback
            tap(False, "fixtures-compare.py: %s" % line.strip(),
                traceback.format_exc().splitlines())
    return vmtap.status()


if __name__ == "__main__":
    sys.exit(main())
