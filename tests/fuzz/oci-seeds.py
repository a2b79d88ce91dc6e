# SPDX-License-Identifier: MIT
"""Seeds for fuzz-oci and fuzz-layer (run by tests/fuzz/make-corpus).

Usage: oci-seeds.py CORPUSDIR   writes CORPUSDIR/oci/* and CORPUSDIR/layer/*
fuzz-oci inputs are index.json and blobs 1..8 joined by lines "--"; "@i"
and "#i" stand for blob i's digest and size (see fuzz-oci.c).
"""

import gzip
import hashlib
import io
import os
import subprocess
import sys
import tarfile

EVIL = "x\n\x1b]0;pwned\x07\nFAKE: image converted"
MT_I = "application/vnd.oci.image.index.v1+json"
MT_M = "application/vnd.oci.image.manifest.v1+json"
MT_C = "application/vnd.oci.image.config.v1+json"
MT_L = "application/vnd.oci.image.layer.v1.tar"


def tar(entries):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for name, kind, arg in entries:
            ti = tarfile.TarInfo(name)
            ti.mtime = 0
            if kind == "dir":
                ti.type, ti.mode = tarfile.DIRTYPE, 0o755
                tf.addfile(ti)
            elif kind == "link":
                ti.type, ti.linkname = tarfile.LNKTYPE, arg
                tf.addfile(ti)
            elif kind == "sym":
                ti.type, ti.linkname = tarfile.SYMTYPE, arg
                tf.addfile(ti)
            else:
                ti.size = len(arg)
                tf.addfile(ti, io.BytesIO(arg))
    return buf.getvalue()


LAYERS = {
    "plain": tar([("etc", "dir", None), ("etc/f", "file", b"hello\n"),
                  ("etc/h", "link", "etc/f"), ("l", "sym", "/etc")]),
    "names": tar([(EVIL, "file", b"x"), ("h", "link", EVIL),
                  ("s", "sym", EVIL)]),
    "replaced": tar([("a", "dir", None), ("a/.wh..wh..opq", "file", b""),
                     ("a/new", "file", b"n"), (".wh.gone", "file", b"")]),
    "wide-desc": tar([("d/f%03d" % i, "file", b"") for i in
                      range(20, 0, -1)]),
}


def gz(data):
    return gzip.compress(data, mtime=0)


def zst(data):
    return subprocess.run(["zstd", "-q", "-c"], input=data,
                          stdout=subprocess.PIPE, check=True).stdout


def image(layer, diff_id, mt=MT_L, ref="x"):
    index = ('{"schemaVersion":2,"manifests":[{"mediaType":"%s","digest":'
             '"@1","size":#1,"annotations":{"org.opencontainers.image.ref.'
             'name":"%s"}}]}' % (MT_M, ref.replace("\n", "\\n")
                                 .replace("\x1b", "\\u001b")
                                 .replace("\x07", "\\u0007")))
    manifest = ('{"schemaVersion":2,"mediaType":"%s","config":{"mediaType":'
                '"%s","digest":"@2","size":#2},"layers":[{"mediaType":"%s",'
                '"digest":"@3","size":#3}]}' % (MT_M, MT_C, mt))
    config = ('{"architecture":"amd64","os":"linux","rootfs":{"type":'
              '"layers","diff_ids":["%s"]}}' % diff_id)
    return b"\n--\n".join([index.encode(), manifest.encode(),
                           config.encode(), layer])


def fanout(width):
    idx = '{"schemaVersion":2,"manifests":[%s]}'
    entry = '{"mediaType":"%s","digest":"@%d","size":#%d}'
    parts = [idx % ",".join([entry % (MT_I, 1, 1)] * width)]
    for level in range(1, 4):
        parts.append(idx % ",".join([entry % (MT_I, level + 1, level + 1)]
                                    * width))
    parts.append(idx % (entry % (MT_M, 5, 5)))
    parts.append('{"schemaVersion":2,"config":{"mediaType":"%s","digest":'
                 '"@6","size":#6},"layers":[]}' % MT_C)
    parts.append('{"architecture":"amd64","os":"linux","rootfs":'
                 '{"type":"layers","diff_ids":[]}}')
    return "\n--\n".join(parts).encode()


def sha(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def main():
    top = sys.argv[1]
    os.makedirs(os.path.join(top, "oci"), exist_ok=True)
    os.makedirs(os.path.join(top, "layer"), exist_ok=True)
    seeds = {
        "plain": image(LAYERS["plain"], "@3"),
        "gzip": image(gz(LAYERS["plain"]), sha(LAYERS["plain"]),
                      MT_L + "+gzip"),
        "zstd": image(zst(LAYERS["plain"]), sha(LAYERS["plain"]),
                      MT_L + "+zstd"),
        "names": image(LAYERS["names"], "@3", ref=EVIL),
        "fanout": fanout(4),
        "lzop": image(b"\x89LZO\x00\r\n\x1a\n" + bytes(64), "@3"),
    }
    for name, data in seeds.items():
        with open(os.path.join(top, "oci", name), "wb") as f:
            f.write(data)
    for name, data in LAYERS.items():
        for how, fn in (("tar", lambda d: d), ("gz", gz), ("zst", zst)):
            with open(os.path.join(top, "layer", f"{name}.{how}"), "wb") as f:
                f.write(fn(data))
    for name, magic in (("lzop", b"\x89LZO\x00\r\n\x1a\n"),
                        ("grzip", b"GRZipII\x00\x02\x04:)")):
        with open(os.path.join(top, "layer", name), "wb") as f:
            f.write(magic + bytes(64))


if __name__ == "__main__":
    main()
