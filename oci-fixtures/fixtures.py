# SPDX-License-Identifier: MIT
"""The good fixture images: one OCI layout, one tag per semantic.

Usage: fixtures.py [--hostless] OUTDIR
(writes OUTDIR/layout and OUTDIR/fixtures.list; --hostless: see busybox())

Every layer starts from explicit directory entries with fixed attributes
(including "./"), so that an unpacked tree holds no time of unpacking.
"""

import hashlib
import os
import shutil
import struct
import sys

from ocilayout import T0, Layer, Layout

FIXTURES = []
# --hostless: nothing taken from the host (busybox()), for values pinned
# in tests (tests/integration/manifests.t); the images do not run.
HOSTLESS = False
# Fixtures whose reference tree comes from a twin image that umoci can
# unpack (same tree, said another way).
REFERENCE = {
    "hardlink-later": "hardlink-later-as-ordered",
    "xattrs-libarchive": "xattrs-libarchive-as-schily",
    "zstd": "zstd-as-gzip",
}


def fixture(fn):
    FIXTURES.append(fn)
    return fn


def base(*dirs, root_mode=0o755):
    """A layer starting with ./ and the given directories."""
    l = Layer()
    l.dir("./", mode=root_mode)
    for d in dirs:
        l.dir(d)
    return l


@fixture
def whiteout(lay):
    l1 = base("a/", "d/")
    l1.file("a/keep", b"keep\n")
    l1.file("a/gone", b"gone\n")
    l1.file("gone-top", b"top\n")
    l1.file("d/x", b"x\n")
    l1.dir("d/sub/")
    l1.file("d/sub/y", b"y\n")
    l2 = Layer()
    l2.whiteout("a/gone")
    l2.whiteout("gone-top")
    l2.whiteout("d")  # a whole directory with children
    l2.whiteout("never-existed")
    lay.image("whiteout", [l1, l2])


@fixture
def opaque(lay):
    l1 = base("o/", "o/sub/", "other/")
    l1.file("o/old1", b"old1\n")
    l1.file("o/sub/old2", b"old2\n")
    l1.file("o/same-name", b"lower\n")
    l1.file("other/stays", b"stays\n")
    l2 = Layer()
    l2.dir("o/", mode=0o750, mtime=T0 + 100)
    l2.file("o/new1", b"new1\n")
    l2.file("o/same-name", b"upper\n")
    l2.dir("o/newdir/")
    l2.file("o/newdir/f", b"f\n")
    l2.opaque("o")  # after the new children: still applies first
    lay.image("opaque", [l1, l2])


@fixture
def dir_over_dir(lay):
    l1 = base()
    l1.dir("d/", mode=0o755, uid=0, gid=0, mtime=T0,
           xattrs={"user.old": b"lower", "user.both": b"lower"})
    l1.file("d/child", b"child\n")
    l2 = Layer()
    l2.dir("d/", mode=0o700, uid=1000, gid=1001, mtime=T0 + 500,
           xattrs={"user.new": b"upper", "user.both": b"upper"})
    l2.file("d/child2", b"child2\n")
    lay.image("dir-over-dir", [l1, l2])


@fixture
def replace(lay):
    l1 = base("fd/")
    l1.file("fd/c", b"c\n")
    l1.file("df", b"df was a file\n")
    l1.file("sf", b"sf was a file\n")
    l1.symlink("lf", "target-of-lf")
    l1.file("ff", b"old content\n", mode=0o600, uid=5)
    l2 = Layer()
    l2.file("fd", b"fd is now a file\n")
    l2.dir("df/")
    l2.file("df/c", b"c in df\n")
    l2.symlink("sf", "fd")
    l2.file("lf", b"lf is now a file\n")
    l2.file("ff", b"new content\n", mode=0o640, uid=7)
    lay.image("replace", [l1, l2])


@fixture
def dir_over_symlink(lay):
    # A directory entry over a symlink to a directory replaces the symlink
    # (umoci without --keep-dirlinks); an entry below the symlink that comes
    # before it goes through it.
    l1 = base("d/")
    l1.file("d/a", b"a\n")
    l1.symlink("sd", "d")
    l2 = Layer()
    l2.file("sd/through", b"through the symlink\n")
    l2.dir("sd/", mode=0o711)
    l2.file("sd/inside", b"in the new directory\n")
    lay.image("dir-over-symlink", [l1, l2])


@fixture
def same_layer(lay):
    l1 = base("e/")
    l1.file("f", b"first\n", mode=0o644)
    l1.file("f", b"second\n", mode=0o600)  # the same name again: replaces
    l1.dir("d/")
    l1.file("d", b"a file over a dir of the same layer\n")
    l1.file("e/x", b"x\n")
    l1.whiteout("e/x")  # only hides lower layers: e/x stays
    l1.file("g", b"g1\n")
    l1.hardlink("h", "g")
    l1.file("g", b"g2\n")  # h keeps the first content
    lay.image("same-layer", [l1])


@fixture
def hardlink_lower(lay):
    l1 = base("lower/")
    l1.file("lower/target", b"shared by hard links\n", mode=0o640, uid=3)
    l2 = base("upper/")
    l2.hardlink("upper/link", "lower/target")
    l2.hardlink("link-at-top", "lower/target")
    lay.image("hardlink-lower", [l1, l2])


@fixture
def hardlink_later(lay):
    l1 = base("h/")
    # The link comes before its target in the same tar.
    l1.hardlink("h/alink", "h/target")
    l1.file("h/target", b"target content\n", mode=0o600)
    l1.hardlink("h/zlink", "h/target")
    lay.image("hardlink-later", [l1])
    # umoci cannot link to a later entry: the reference has the target first.
    l2 = base("h/")
    l2.file("h/target", b"target content\n", mode=0o600)
    l2.hardlink("h/alink", "h/target")
    l2.hardlink("h/zlink", "h/target")
    lay.image("hardlink-later-as-ordered", [l2])


@fixture
def hardlinks(lay):
    l1 = base("d/", "e/")
    l1.file("d/f", b"three names\n", mode=0o755, uid=11, gid=12)
    l1.hardlink("d/g", "d/f")
    l1.hardlink("e/f", "d/f")
    l1.file("d/empty", b"")
    l1.hardlink("e/empty-link", "d/empty")
    l1.symlink("d/sym", "f")
    l1.hardlink("e/sym-link", "d/sym")
    lay.image("hardlinks", [l1])


@fixture
def symlinks(lay):
    l1 = base("etc/", "dir/", "dir/sub/")
    l1.file("etc/passwd", b"root:x:0:0::/root:/bin/sh\n")
    l1.symlink("dir/rel", "../etc/passwd")
    l1.symlink("dir/abs", "/etc/passwd")
    l1.symlink("dir/dangling", "does/not/exist")
    l1.symlink("dir/to-dir", "sub")
    l1.symlink("dir/dot", ".")
    l1.symlink("dir/spaces", "a target with spaces\tand tab")
    l1.symlink("dir/long", "x" * 1000)
    l1.symlink("dir/owned", "etc", uid=42, gid=43, mtime=T0 + 7)
    lay.image("symlinks", [l1])


@fixture
def devices(lay):
    l1 = base("dev/")
    l1.entry("dev/null", "char", mode=0o666, dev=(1, 3))
    l1.entry("dev/tty64", "char", mode=0o620, uid=0, gid=5, dev=(4, 64))
    l1.entry("dev/loop0", "block", mode=0o660, gid=6, dev=(7, 0))
    l1.entry("dev/big", "block", mode=0o600, dev=(259, 65536))
    lay.image("devices", [l1])


@fixture
def fifo(lay):
    l1 = base("run/")
    l1.entry("run/fifo", "fifo", mode=0o644)
    l1.entry("run/fifo-odd", "fifo", mode=0o600, uid=9, gid=9, mtime=T0 + 3)
    lay.image("fifo", [l1])


@fixture
def modes(lay):
    l1 = base()
    l1.dir("tmp/", mode=0o1777)
    l1.dir("sgid-dir/", mode=0o2775)
    l1.dir("closed-dir/", mode=0o000)
    l1.file("closed-dir/inside", b"in a 0000 dir\n", mode=0o644)
    l1.file("setuid", b"#!/bin/sh\n", mode=0o4755)
    l1.file("setgid", b"#!/bin/sh\n", mode=0o2755)
    l1.file("all-bits", b"s\n", mode=0o7777)
    l1.file("none", b"0000\n", mode=0o000)
    l1.file("open", b"0777\n", mode=0o777)
    l1.file("write-only", b"0222\n", mode=0o222)
    lay.image("modes", [l1])


@fixture
def owners(lay):
    l1 = base()
    l1.dir("home/", uid=1000, gid=1000)
    l1.file("home/user", b"1000\n", uid=1000, gid=1000)
    l1.file("nobody", b"65534\n", uid=65534, gid=65534)
    l1.file("big", b"100000\n", uid=100000, gid=100000)
    l1.file("mixed", b"0:100000\n", uid=0, gid=100000)
    l1.symlink("link-owned", "nobody", uid=65534, gid=100000)
    l1.entry("fifo-owned", "fifo", uid=4242, gid=2424)
    lay.image("owners", [l1])


@fixture
def mtime_nsec(lay):
    l1 = Layer()
    l1.dir("./", nsec=1)
    l1.dir("d/", mtime=T0 + 1, nsec=999999999)
    l1.file("d/f", b"nsec\n", mtime=T0 + 2, nsec=123456789)
    l1.file("zero", b"epoch\n", mtime=0)
    l1.file("zero-nsec", b"epoch+\n", mtime=0, nsec=500)
    l1.file("far-future", b"2106+\n", mtime=4294967296 + 5, nsec=7)
    l1.symlink("link", "d/f", mtime=T0 + 3, nsec=42)
    l1.file("whole", b"no nsec\n", mtime=T0 + 4)
    lay.image("mtime-nsec", [l1])


# VFS_CAP_REVISION_2, effective bit, cap_net_bind_service (10) permitted.
CAPABILITY = struct.pack("<IIIII", 0x02000001, 1 << 10, 0, 0, 0)


@fixture
def xattrs(lay):
    l1 = base()
    l1.dir("d/", xattrs={"user.dirattr": b"on a dir"})
    l1.file("d/f", b"xattrs\n", xattrs={
        "user.plain": b"value",
        "user.eq": b"a=b c",
        "user.binary": bytes(range(0, 256, 7)),
        "user.utf8": "h\u00e9llo".encode(),
        "trusted.overlay.thing": b"y",
    })
    l1.file("ping", b"\x7fELF fake\n", mode=0o755,
            xattrs={"security.capability": CAPABILITY})
    l1.symlink("link", "d/f", xattrs={"trusted.on-symlink": b"s"})
    lay.image("xattrs", [l1])


@fixture
def xattrs_libarchive(lay):
    l1 = base()
    l1.file("f", b"libarchive\n", xattrs={"user.schily": b"s"},
            libarchive_xattrs={"user.libarchive": b"L\x00\xff=v"})
    lay.image("xattrs-libarchive", [l1])
    # umoci ignores LIBARCHIVE.xattr.*: the reference says it with SCHILY.
    l2 = base()
    l2.file("f", b"libarchive\n", xattrs={"user.schily": b"s",
                                         "user.libarchive": b"L\x00\xff=v"})
    lay.image("xattrs-libarchive-as-schily", [l2])


@fixture
def xattrs_empty_value(lay):
    # A PAX record with an empty value deletes the keyword (POSIX pax):
    # umoci (Go archive/tar) drops such an xattr.
    l1 = base()
    l1.file("f", b"empty xattr\n",
            xattrs={"user.empty": b"", "user.full": b"full"})
    lay.image("xattrs-empty-value", [l1])


@fixture
def hostile(lay):
    l1 = base("a/", "/abs/")
    l1.file("../../escape", b"tried to escape\n")
    l1.file("/abs/file", b"absolute name\n")
    l1.file("a/../../b", b"dotdot inside\n")
    l1.file("./a/./dot", b"dot parts\n")
    l1.symlink("evil", "/")
    l1.symlink("evil2", "../../..")
    l1.symlink("evil3", "/a")
    l2 = Layer()
    l2.file("evil/x", b"through an absolute symlink\n")
    l2.file("evil2/y", b"through a relative symlink\n")
    l2.file("evil3/z", b"through a symlink to a dir\n")
    lay.image("hostile", [l1, l2])


def busybox():
    """The host's static /bin/busybox: what makes realistic, shared-a and
    shared-b runnable (podman runs them). Its bytes differ between
    busybox builds, so with --hostless a stand-in of fixed bytes."""
    if HOSTLESS:
        return b"\x7fELF stand-in for busybox\n" + noise("busybox", 1 << 20)
    with open("/bin/busybox", "rb") as f:
        return f.read()


def small_rootfs(l, mtime=T0):
    """/bin/busybox (busybox()) with some applet links, /etc."""
    for d in ("bin/", "etc/", "root/", "tmp/", "usr/", "usr/bin/", "var/"):
        l.dir(d, mtime=mtime, mode=0o1777 if d == "tmp/" else 0o755)
    l.file("bin/busybox", busybox(), mode=0o755, mtime=mtime)
    for a in ("sh", "ls", "cat", "echo", "id", "stat", "true"):
        l.symlink("bin/" + a, "busybox", mtime=mtime)
    l.hardlink("usr/bin/env", "bin/busybox")
    l.file("etc/passwd", b"root:x:0:0:root:/root:/bin/sh\n"
           b"nobody:x:65534:65534:nobody:/:/bin/false\n", mtime=mtime)
    l.file("etc/group", b"root:x:0:\nnogroup:x:65534:\n", mtime=mtime)
    l.file("etc/hostname", b"cfs\n", mtime=mtime)
    l.file("etc/os-release", b"NAME=cfs-fixture\nID=cfs\n", mtime=mtime)


@fixture
def zstd(lay):
    l1 = base("z/")
    l1.file("z/text", b"compressed with zstd\n" * 100)
    l1.file("z/empty", b"")
    l2 = Layer()
    l2.file("z/second", b"second layer, zstd too\n")
    l2.whiteout("z/empty")
    lay.image("zstd", [(l1, "zstd"), (l2, "zstd")])
    # The same tars, gzip-compressed: umoci 0.4.7 has no zstd.
    lay.image("zstd-as-gzip", [l1, l2])


@fixture
def plain_tar(lay):
    l1 = base("p/")
    l1.file("p/uncompressed", b"a layer with media type .tar\n")
    lay.image("plain-tar", [(l1, "none")])


@fixture
def empty(lay):
    l1 = base("emptydir/", "d/")
    l1.file("empty", b"")
    l1.file("d/empty2", b"", mode=0o600, uid=1)
    l1.file("d/nonempty", b"x")
    lay.image("empty", [l1])
    lay.image("no-layers", [])


def noise(seed, size):
    """size bytes that look random, the same on every host."""
    out = bytearray()
    i = 0
    while len(out) < size:
        out += hashlib.sha256(b"%s:%d" % (seed.encode(), i)).digest()
        i += 1
    return bytes(out[:size])


WORDS = (b"the of and to in is that for it as with be on by this are from "
         b"license software copyright debian package files program may "
         b"any without warranty see upstream version changes source").split()


def text(seed, size):
    """size bytes of lines of words: compressible like documentation."""
    words = [WORDS[b % len(WORDS)] for b in noise(seed, size // 4 + 1)]
    lines = [b" ".join(words[i:i + 11]) for i in range(0, len(words), 11)]
    return (b"\n".join(lines) + b"\n")[:size]


def doc_tree(l, mtime):
    """A /usr/share/doc in the shape of a Debian system's: a directory per
    package with a copyright file (a few licence texts shared by many:
    objects deduplicated), a compressed changelog, some READMEs and
    examples (some of 64 bytes or less: inline), directories that are
    symlinks to another package's, and hardlinks."""
    licences = [text("licence-%d" % i, 900 + 4000 * i) for i in range(6)]
    l.dir("usr/share/doc/", mtime=mtime)
    for i in range(300):
        pkg = "usr/share/doc/pkg%03d" % i
        if i % 10 == 9:
            l.symlink(pkg, "pkg%03d" % (i - 1), mtime=mtime)
            continue
        l.dir(pkg + "/", mtime=mtime)
        l.file(pkg + "/copyright", licences[i % 6], mtime=mtime)
        l.file(pkg + "/changelog.Debian.gz",
               noise("changelog-%d" % i, 200 + (i * 977) % 9000), mtime=mtime)
        if i % 3 == 0:
            l.file(pkg + "/README", text("readme-%d" % i, 40 + i * 31),
                   mtime=mtime)
        if i % 7 == 0:
            l.dir(pkg + "/examples/", mtime=mtime)
            l.file(pkg + "/examples/run.sh", b"#!/bin/sh\nexec pkg%03d\n" % i,
                   mode=0o755, mtime=mtime)
            l.file(pkg + "/examples/empty.conf", b"", mtime=mtime)
            l.file(pkg + "/examples/data.bin", noise("data-%d" % i, 5000 + i),
                   mtime=mtime)
        if i % 25 == 1:
            l.hardlink(pkg + "/NEWS.Debian.gz", pkg + "/changelog.Debian.gz",
                       mtime=mtime)


def man_tree(l, section, pages, mtime):
    """usr/share/man/manSECTION: gzip-sized pages, some symlinked aliases."""
    d = "usr/share/man/man%d/" % section
    l.dir(d, mtime=mtime)
    for i in range(pages):
        name = "cmd%03d.%d.gz" % (i, section)
        l.file(d + name, noise("man%d-%d" % (section, i), 300 + (i * 613) % 7000),
               mtime=mtime)
        if i % 9 == 4:
            l.symlink(d + "alias%03d.%d.gz" % (i, section), name, mtime=mtime)


@fixture
def realistic(lay):
    l1 = base()
    small_rootfs(l1)
    l2 = Layer()
    l2.dir("usr/share/", mtime=T0 + 10)
    l2.dir("usr/share/man/", mtime=T0 + 10)
    doc_tree(l2, T0 + 10)
    man_tree(l2, 1, 400, T0 + 10)
    man_tree(l2, 5, 60, T0 + 10)
    l3 = Layer()
    l3.file("etc/hostname", b"changed\n", mtime=T0 + 20)
    l3.file("etc/motd", b"welcome to a cfs fixture\n", mtime=T0 + 20)
    l3.whiteout("etc/os-release")
    l3.whiteout("bin/echo")
    l3.dir("usr/share/man/man5/", mtime=T0 + 20)
    l3.file("usr/share/man/man5/only.5", b".TH ONLY 5\n", mtime=T0 + 20)
    l3.opaque("usr/share/man/man5")
    l3.dir("root/", mode=0o700, mtime=T0 + 20)
    l3.file("root/.profile", b"export PS1='# '\n", mode=0o600, mtime=T0 + 20)
    config = {
        "Entrypoint": ["/bin/busybox"],
        "Cmd": ["sh", "-c", "echo hello from cfs"],
        "Env": ["PATH=/usr/bin:/bin", "LANG=C.UTF-8"],
        "WorkingDir": "/root",
        "User": "0:0",
        "Labels": {"org.example.fixture": "realistic"},
    }
    lay.image("realistic", [l1, l2, l3], config=config)


@fixture
def shared_base(lay):
    """Two images sharing their first two layers, for dedup tests."""
    l1 = base()
    small_rootfs(l1)
    l2 = Layer()
    l2.dir("srv/")
    for i in range(20):
        l2.file("srv/shared-%02d" % i, b"shared object %d\n" % i * (i + 1))
    la = Layer()
    la.file("srv/only-a", b"only in image a\n")
    la.file("srv/shared-00", b"a's own version of shared-00\n")
    lb = Layer()
    lb.file("srv/only-b", b"only in image b\n")
    lb.file("srv/also-in-a", b"only in image a\n")  # same content as only-a
    lay.image("shared-a", [l1, l2, la])
    lay.image("shared-b", [l1, l2, lb])


def shuffled(names, seed):
    """names in an order fixed by their hash, not sorted: a tar's order."""
    return sorted(names, key=lambda n: hashlib.sha256(
        (seed + n).encode()).digest())


@fixture
def reproducible(lay):
    """The image whose manifest digest tests/integration/determinism.t
    pins: all a manifest records, in bytes that no host, date, umask or
    user changes (no busybox()). Three layers (gzip, gzip, plain tar);
    770 small files in 16 directories, in no sorted order, with names
    that sort differently by byte and by locale, duplicates and empty
    files; files at the store's small/large object limit (256 KiB) and
    large ones (several Merkle tree levels), one large content in two
    layers; xattrs on files, directories and symlinks; hard links in a
    layer, to a lower layer and to a name a later layer replaces;
    whiteouts of a file, a directory and one name of a hard link; an
    opaque directory; dir over dir; devices, a FIFO, nanosecond mtimes,
    owners."""
    big = noise("reproducible-big", (2 << 20) + 123)
    l1 = base("etc/", "usr/", "usr/lib/", "usr/share/", "data/", "dev/",
              "run/", "opt/")
    for d in range(16):
        dirname = "usr/lib/m%02d/" % d
        l1.dir(dirname, mtime=T0 + d, nsec=d * 1000 + 1,
               mode=0o750 if d % 5 == 4 else 0o755)
        names = ["f%03d" % i for i in range(40)]
        names += ["A", "a", "a.b", "a-b", "B~", "_x", "\u00e9t\u00e9", "Z"]
        for i, name in enumerate(shuffled(names, dirname)):
            kw = {"mode": (0o644, 0o755, 0o600)[i % 3],
                  "uid": (i % 4) * 1000, "gid": (i % 3) * 100,
                  "mtime": T0 + 1000 + i, "nsec": (i * 7919) % 10**9}
            if i % 11 == 0:
                kw["xattrs"] = {"user.idx": b"%d/%d" % (d, i)}
            if i % 13 == 0:
                data = b""
            elif i % 5 == 0:
                data = b"the same in many files\n"
            else:
                data = text("m%d-%s" % (d, name), 1 + (i * 37 + d) % 700)
            l1.file(dirname + name, data, **kw)
    l1.file("data/big.bin", big, xattrs={"user.big": b"\x00\x01 big"})
    l1.hardlink("data/big.link", "data/big.bin")
    for name, size in (("under-256k", 262143), ("exact-256k", 262144),
                       ("over-256k", 262145)):
        l1.file("data/" + name, noise("reproducible-" + name, size))
    l1.file("data/zeros", bytes(768 << 10), mode=0o600)
    l1.dir("etc/", mode=0o755, xattrs={"user.dir": b"lower",
                                       "trusted.both": b"lower"})
    l1.file("etc/hl-a", b"two names\n", uid=5, gid=6)
    l1.hardlink("etc/hl-b", "etc/hl-a")
    l1.symlink("etc/alt", "../usr/lib/m00/f000",
               xattrs={"trusted.on-symlink": b"1"})
    l1.symlink("etc/abs", "/data/big.bin", mtime=T0 + 5, nsec=5)
    l1.file("opt/tool", b"\x7fELF not really\n", mode=0o4755,
            xattrs={"security.capability": CAPABILITY,
                    "trusted.overlay.x": b"y"})
    l1.dir("opt/plugins/")
    for i in range(5):
        l1.file("opt/plugins/p%d" % i, b"plugin %d\n" % i)
    l1.entry("dev/null", "char", mode=0o666, dev=(1, 3))
    l1.entry("dev/loop0", "block", mode=0o660, gid=6, dev=(7, 0))
    l1.entry("run/ctl", "fifo", mode=0o620, uid=9, gid=9)

    l2 = Layer()
    l2.whiteout("usr/lib/m03")
    l2.whiteout("usr/lib/m04/f010")
    l2.dir("etc/", mode=0o711, mtime=T0 + 50, nsec=999999999,
           xattrs={"user.new": b"upper", "trusted.both": b"upper"})
    l2.whiteout("etc/hl-a")  # etc/hl-b stays, one name left
    l2.dir("usr/lib/m05/", mtime=T0 + 51)
    l2.file("usr/lib/m05/new", b"only this after the opaque marker\n")
    l2.opaque("usr/lib/m05")
    l2.symlink("usr/lib/m06/f001", "f002")  # a file becomes a symlink
    l2.dir("usr/share/again/")
    l2.hardlink("usr/share/again/big", "data/big.bin")  # the lower inode
    l2.file("usr/share/again/big.copy", big)  # one object for both
    l2.file("data/big.bin", noise("reproducible-big2", (1 << 20) + 7),
            mode=0o640)  # big.link and again/big keep the old content
    for i in range(40):
        l2.file("usr/share/again/n%02d" % i, text("again-%d" % i, 100 + i))

    l3 = Layer()
    l3.whiteout("data/zeros")
    l3.file("usr/lib/m07/f007", b"new xattrs\n",
            xattrs={"user.z": b"z", "user.a": b"a"})
    l3.file("usr/share/again/n00", text("again-1", 101))  # = n01
    l3.dir("opt/plugins/", mode=0o700, mtime=T0 + 60)
    l3.file("opt/plugins/p9", b"the one plugin left\n")
    l3.opaque("opt/plugins")  # after p9: only p9 is left
    lay.image("reproducible", [l1, l2, (l3, "none")])


def main():
    global HOSTLESS
    args = sys.argv[1:]
    if args and args[0] == "--hostless":
        HOSTLESS = True
        args = args[1:]
    if len(args) != 1:
        sys.exit("usage: fixtures.py [--hostless] OUTDIR")
    out = args[0]
    path = os.path.join(out, "layout")
    if os.path.exists(path):
        shutil.rmtree(path)
    lay = Layout(path)
    for fn in FIXTURES:
        fn(lay)
    lay.finish()
    with open(os.path.join(out, "fixtures.list"), "w") as f:
        for tag in sorted(lay.tags):
            if "-as-" in tag:
                continue
            f.write("%s %s\n" % (tag, REFERENCE.get(tag, tag)))


if __name__ == "__main__":
    main()
