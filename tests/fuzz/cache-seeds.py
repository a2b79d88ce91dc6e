# SPDX-License-Identifier: MIT
"""Seeds for fuzz-layer-cache (run by tests/fuzz/make-corpus).

Usage: cache-seeds.py CORPUSDIR   writes CORPUSDIR/layer-cache/*
Each seed is a layer cache record (format at the top of
src/lib/layer/cache.c) without its trailing sha256, which the harness
appends, so that the fuzzer explores the decoder, not the checksum.
"""

import hashlib
import os
import stat
import sys

NODE, HARDLINK, WHITEOUT, OPAQUE = range(4)


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def blob(b):
    return varint(len(b)) + b


def entry(kind, path, mode=0, size=0, link=None, digest=None, xattrs=(),
          mtime=1000, nsec=0, uid=0, gid=0, rdev=0):
    flags = (1 if link is not None else 0) | (2 if digest else 0)
    out = bytes([kind, flags]) + blob(path.encode())
    for v in (mode, uid, gid, rdev, size):
        out += varint(v)
    out += varint(((mtime << 1) ^ (mtime >> 63)) & (2**64 - 1))  # zigzag
    out += varint(nsec)
    if link is not None:
        out += blob(link.encode())
    if digest:
        out += digest
    out += varint(len(xattrs))
    for k, v in sorted(xattrs):
        out += blob(k.encode()) + blob(v)
    return out


def record(entries):
    diff_id = hashlib.sha256(repr(entries).encode()).digest()
    content = sum(e[1] for e in entries)
    out = b"CFSLAYR\n" + (1).to_bytes(4, "little") + diff_id
    out += varint(content) + varint(len(entries))
    for _, _, e in entries:
        out += e
    return out


def reg(path, size, **kw):
    digest = hashlib.sha256(path.encode()).digest() if size else None
    return (NODE, size, entry(NODE, path, stat.S_IFREG | 0o644, size,
                              digest=digest, **kw))


def node(path, mode, **kw):
    return (NODE, 0, entry(NODE, path, mode, **kw))


SEEDS = {
    "empty": [],
    "tree": [
        node("", stat.S_IFDIR | 0o755),
        node("etc", stat.S_IFDIR | 0o755, xattrs=[("user.a", b"1")]),
        reg("etc/passwd", 1200, mtime=-5, nsec=999999999),
        reg("etc/empty", 0, uid=1000, gid=1000),
        (NODE, 0, entry(NODE, "etc/l", stat.S_IFLNK | 0o777, 6,
                        link="passwd")),
        (HARDLINK, 0, entry(HARDLINK, "etc/h", link="etc/passwd")),
        node("dev/null", stat.S_IFCHR | 0o666, rdev=0x103),
        node("run/p", stat.S_IFIFO | 0o600),
    ],
    "whiteouts": [
        node("d", stat.S_IFDIR | 0o755,
             xattrs=[("trusted.x", b""), ("user.b", b"\0\xff")]),
        (OPAQUE, 0, entry(OPAQUE, "d")),
        (WHITEOUT, 0, entry(WHITEOUT, "d/gone")),
        reg("d/new", 3),
    ],
}


def main():
    dst = os.path.join(sys.argv[1], "layer-cache")
    os.makedirs(dst, exist_ok=True)
    for name, entries in SEEDS.items():
        with open(os.path.join(dst, name), "wb") as f:
            f.write(record(entries))


main()
