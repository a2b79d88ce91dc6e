# SPDX-License-Identifier: MIT
"""Hostile OCI layouts, for tests/integration/hostile.t and bench/.

Usage: hostile.py KIND OUTDIR [ARGS]
  compressed MAGIC  one image, tag "x", whose layer blob starts with the
                    magic of MAGIC (lzop, grzip, lrzip, lz4)
  names             tags, each reaching one message with a name made of a
                    newline, terminal escapes and a forged second line:
                    hardlink, symlink, notdir, EVIL (a good image whose
                    ref is hostile) and j"s\\on (the same image)
  mediatype         an index entry with a hostile media type
  replaced          tag "replaced": layer 1 has the file a, layer 2 the
                    directory a/, a/.wh..wh..opq and a/new (rm a; mkdir a)
  wide N ORDER      tag "wide": one gzip layer of N empty files in d/, in
                    ORDER asc or desc
  twotags           one nested index listed twice, refs "one" and "two"
  fanout WIDTH      index.json -> index -> ... eight levels, each listing
                    the next WIDTH times: WIDTH**8 manifests if walked
Writes OUTDIR as an OCI layout.
"""

import gzip
import os
import sys
import tarfile

from ocilayout import (MT_INDEX, MT_MANIFEST, REF_ANNOTATION, Layer, Layout,
                       canon_json)

EVIL = "x\n\x1b]0;pwned\x07\nFAKE: image converted"
JSON_REF = 'j"s\\on'  # printable, but quoted in JSON

MAGIC = {
    "lzop": b"\x89LZO\x00\r\n\x1a\n\x10\x30\x20\xa0\x09\x40\x01\x05",
    "grzip": b"GRZipII\x00\x02\x04:)\x00\x00\x00\x00",
    "lrzip": b"LRZI\x00\x06" + bytes(10),
    "lz4": b"\x04\x22\x4d\x18\x64\x40\xa7" + bytes(9),
}


def raw_image(layout, tag, blob):
    """An image whose one layer blob is BLOB, whatever it holds."""
    ldesc = layout.blob(blob, "application/vnd.oci.image.layer.v1.tar")
    cfg = {"architecture": "amd64", "os": "linux",
           "rootfs": {"type": "layers", "diff_ids": [ldesc["digest"]]}}
    cdesc = layout.blob(canon_json(cfg),
                        "application/vnd.oci.image.config.v1+json")
    man = {"schemaVersion": 2, "mediaType": MT_MANIFEST, "config": cdesc,
           "layers": [ldesc]}
    mdesc = layout.blob(canon_json(man), MT_MANIFEST)
    mdesc["annotations"] = {REF_ANNOTATION: tag}
    layout.tags[tag] = mdesc


def compressed(out, kind):
    lay = Layout(out)
    raw_image(lay, "x", MAGIC[kind] + bytes(4096))
    lay.finish()


def names(out):
    lay = Layout(out)
    l = Layer()
    l.hardlink("h", EVIL)
    lay.image("hardlink", [l])
    l = Layer()
    l.symlink(EVIL, "")
    lay.image("symlink", [l])
    l = Layer()
    l.file(EVIL, b"f")
    l.file(EVIL + "/under", b"u")
    lay.image("notdir", [l])
    l = Layer()
    l.file("ok", b"fine")
    l.file(EVIL + "2", b"named")
    lay.image(EVIL, [l])
    lay.image(JSON_REF, [l])
    lay.finish()


def mediatype(out):
    """An index whose only entry has a hostile media type."""
    lay = Layout(out)
    l = Layer()
    l.file("f", b"x")
    desc = lay.image("mediatype", [l])
    lay.tags["mediatype"] = dict(desc, mediaType=EVIL)
    lay.finish()


def replaced(out):
    lay = Layout(out)
    l1 = Layer()
    l1.file("a", b"a file")
    l1.file("keep", b"k")
    l2 = Layer()
    l2.dir("a")
    l2.opaque("a")
    l2.file("a/new", b"new")
    lay.image("replaced", [l1, l2])
    lay.finish()


def wide(out, n, order):
    """Writes the tar straight to a gzip file: a million entries in a
    BytesIO would take more memory than the converter under test."""
    lay = Layout(out)
    path = os.path.join(out, "layer.tmp")
    names = ["f%07d" % i for i in range(n)]
    if order == "desc":
        names.reverse()
    with open(path, "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1,
                           mtime=0) as gz:
            tf = tarfile.open(fileobj=gz, mode="w",
                              format=tarfile.USTAR_FORMAT)
            d = tarfile.TarInfo("d")
            d.type, d.mode, d.mtime = tarfile.DIRTYPE, 0o755, 0
            tf.addfile(d)
            ti = tarfile.TarInfo()
            ti.mode, ti.mtime = 0o644, 0
            for name in names:
                ti.name = "d/" + name
                tf.addfile(ti)
            tf.close()
    import hashlib
    h, u = hashlib.sha256(), hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                break
            h.update(b)
    with gzip.open(path, "rb") as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                break
            u.update(b)
    digest = "sha256:" + h.hexdigest()
    os.rename(path, os.path.join(out, "blobs", "sha256", h.hexdigest()))
    ldesc = {"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
             "digest": digest,
             "size": os.path.getsize(os.path.join(out, "blobs", "sha256",
                                                  h.hexdigest()))}
    cfg = {"architecture": "amd64", "os": "linux",
           "rootfs": {"type": "layers",
                      "diff_ids": ["sha256:" + u.hexdigest()]}}
    cdesc = lay.blob(canon_json(cfg),
                     "application/vnd.oci.image.config.v1+json")
    man = {"schemaVersion": 2, "mediaType": MT_MANIFEST, "config": cdesc,
           "layers": [ldesc]}
    mdesc = lay.blob(canon_json(man), MT_MANIFEST)
    mdesc["annotations"] = {REF_ANNOTATION: "wide"}
    lay.tags["wide"] = mdesc
    lay.finish()


def fanout(out, width):
    lay = Layout(out)
    l = Layer()
    l.file("f", b"x")
    desc = lay.image("leaf", [l])
    desc = {k: v for k, v in desc.items() if k != "annotations"}
    for _ in range(8):
        index = {"schemaVersion": 2, "mediaType": MT_INDEX,
                 "manifests": [desc] * width}
        desc = lay.blob(canon_json(index), MT_INDEX)
    lay.tags = {"fan": dict(desc, annotations={REF_ANNOTATION: "fan"})}
    lay.finish()


def twotags(out):
    """index.json lists one nested index twice, as "one" and "two"."""
    lay = Layout(out)
    l = Layer()
    l.file("f", b"x")
    desc = lay.image("leaf", [l])
    desc = {k: v for k, v in desc.items() if k != "annotations"}
    index = {"schemaVersion": 2, "mediaType": MT_INDEX, "manifests": [desc]}
    nested = lay.blob(canon_json(index), MT_INDEX)
    lay.tags = {t: dict(nested, annotations={REF_ANNOTATION: t})
                for t in ("one", "two")}
    lay.finish()


def main():
    kind, out = sys.argv[1], sys.argv[2]
    if kind == "compressed":
        compressed(out, sys.argv[3])
    elif kind == "names":
        names(out)
    elif kind == "mediatype":
        mediatype(out)
    elif kind == "replaced":
        replaced(out)
    elif kind == "wide":
        wide(out, int(sys.argv[3]), sys.argv[4])
    elif kind == "twotags":
        twotags(out)
    elif kind == "fanout":
        fanout(out, int(sys.argv[3]))
    else:
        sys.exit("hostile.py: unknown kind " + kind)


if __name__ == "__main__":
    main()
