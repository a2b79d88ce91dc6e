# SPDX-License-Identifier: MIT
"""Bad inputs for errors.t, derived from a good fixture.

Usage: mkbad.py OUTDIR
Reads OUTDIR/layout (tag "whiteout": two gzip layers) and OUTDIR/archives,
writes OUTDIR/bad/NAME (each a one-image layout, tag "bad", or a file) and
OUTDIR/bad.list: "NAME PATH REF KEYWORDS" per line, KEYWORDS an extended
regular expression the converter's error line must match (case-insensitive).
"""

import json
import os
import shutil
import sys

from ocilayout import MT_MANIFEST, REF_ANNOTATION, canon_json, sha256

SOURCE_TAG = "whiteout"


class Image:
    """A one-image copy of a tagged image, with helpers to damage it."""

    def __init__(self, src, tag, dst):
        self.dst = dst
        if os.path.exists(dst):
            shutil.rmtree(dst)
        os.makedirs(os.path.join(dst, "blobs", "sha256"))
        shutil.copy(os.path.join(src, "oci-layout"), dst)
        with open(os.path.join(src, "index.json")) as f:
            index = json.load(f)
        desc = [m for m in index["manifests"]
                if m["annotations"][REF_ANNOTATION] == tag][0]
        self.src = src
        self.manifest = json.loads(self._copy(desc["digest"]))
        self.config = json.loads(self._copy(self.manifest["config"]["digest"]))
        for l in self.manifest["layers"]:
            self._copy(l["digest"])
        self.manifest_bytes = None

    def _copy(self, digest):
        name = digest.split(":")[1]
        shutil.copy(os.path.join(self.src, "blobs", "sha256", name),
                    os.path.join(self.dst, "blobs", "sha256", name))
        return self.read(digest)

    def blob_path(self, digest):
        return os.path.join(self.dst, "blobs", "sha256", digest.split(":")[1])

    def read(self, digest):
        with open(self.blob_path(digest), "rb") as f:
            return f.read()

    def put(self, data):
        d = sha256(data)
        with open(self.blob_path(d), "wb") as f:
            f.write(data)
        return d, len(data)

    def write(self, config_bytes=None, manifest_bytes=None):
        """Writes config, manifest and index.json, with fresh digests."""
        if config_bytes is None:
            config_bytes = canon_json(self.config)
        d, n = self.put(config_bytes)
        self.manifest["config"]["digest"], self.manifest["config"]["size"] = d, n
        if manifest_bytes is None:
            manifest_bytes = canon_json(self.manifest)
        d, n = self.put(manifest_bytes)
        index = {"schemaVersion": 2,
                 "mediaType": "application/vnd.oci.image.index.v1+json",
                 "manifests": [{"mediaType": MT_MANIFEST, "digest": d,
                                "size": n,
                                "annotations": {REF_ANNOTATION: "bad"}}]}
        with open(os.path.join(self.dst, "index.json"), "wb") as f:
            f.write(canon_json(index))

    def replace_layer(self, i, data, fix_descriptor):
        """Puts data in place of layer i, under its old name or a new one."""
        l = self.manifest["layers"][i]
        if fix_descriptor:
            os.unlink(self.blob_path(l["digest"]))
            l["digest"], l["size"] = self.put(data)
        else:
            with open(self.blob_path(l["digest"]), "wb") as f:
                f.write(data)


def flip_deflate_byte(gz):
    """Changes the first byte of the deflate stream (right after the
    10-byte header of a gzip member without a file name) so that the first
    block has the reserved type 3: any inflater fails at once."""
    assert gz[:2] == b"\x1f\x8b" and gz[3] == 0, "gzip -n output expected"
    b = bytearray(gz)
    b[10] |= 0x06
    return bytes(b)


def flip_crc(gz):
    """Flips a bit of the CRC32 in the gzip trailer: the data inflates
    fine and the error shows only at the very end."""
    b = bytearray(gz)
    b[-8] ^= 0x01
    return bytes(b)


def main():
    out = sys.argv[1]
    layout = os.path.join(out, "layout")
    bad = os.path.join(out, "bad")
    if os.path.exists(bad):
        shutil.rmtree(bad)
    os.makedirs(bad)
    cases = []

    def case(name, keywords, path=None, ref="bad"):
        cases.append((name, path or os.path.join(bad, name), ref, keywords))
        return os.path.join(bad, name)

    img = Image(layout, SOURCE_TAG, case("truncated-blob",
                                         "truncat|short|size|eof|end"))
    l0 = img.manifest["layers"][0]
    data = img.read(l0["digest"])
    img.replace_layer(0, data[:len(data) // 2], fix_descriptor=False)
    img.write()

    img = Image(layout, SOURCE_TAG, case("corrupt-gzip", "gzip|deflate|compress|corrupt|crc"))
    l0 = img.manifest["layers"][0]
    img.replace_layer(0, flip_deflate_byte(img.read(l0["digest"])),
                      fix_descriptor=True)
    img.write()

    img = Image(layout, SOURCE_TAG, case("corrupt-gzip-crc", "gzip|crc|checksum|corrupt"))
    l1 = img.manifest["layers"][1]
    img.replace_layer(1, flip_crc(img.read(l1["digest"])), fix_descriptor=True)
    img.write()

    img = Image(layout, SOURCE_TAG, case("corrupt-gzip-bad-digest",
                                         "digest|gzip|deflate|corrupt|crc"))
    l0 = img.manifest["layers"][0]
    img.replace_layer(0, flip_deflate_byte(img.read(l0["digest"])),
                      fix_descriptor=False)
    img.write()

    img = Image(layout, SOURCE_TAG, case("bad-json-manifest", "json|manifest|pars"))
    img.write(manifest_bytes=canon_json(img.manifest)[:-7] + b'"oops,}')

    img = Image(layout, SOURCE_TAG, case("bad-json-config", "json|config|pars"))
    img.write(config_bytes=b'{"architecture": "amd64", "rootfs": [}')

    img = Image(layout, SOURCE_TAG, case("missing-blob",
                                         "no such|missing|not found|ENOENT|open"))
    img.write()
    os.unlink(img.blob_path(img.manifest["layers"][1]["digest"]))

    img = Image(layout, SOURCE_TAG, case("diffid-mismatch", "diff.?id|mismatch|digest"))
    d = img.config["rootfs"]["diff_ids"][1]
    img.config["rootfs"]["diff_ids"][1] = d[:-1] + ("0" if d[-1] != "0" else "1")
    img.write()

    img = Image(layout, SOURCE_TAG, case("diffid-count", "diff.?id|layer|count|mismatch"))
    img.config["rootfs"]["diff_ids"].pop()
    img.write()

    img = Image(layout, SOURCE_TAG, case("unsupported-media-type",
                                         "media.?type|unsupported|bzip2"))
    img.manifest["layers"][0]["mediaType"] = \
        "application/vnd.oci.image.layer.v1.tar+bzip2"
    img.write()

    src = os.path.join(out, "archives", "whiteout.oci.tar")
    with open(src, "rb") as f:
        data = f.read()
    p = case("truncated-oci-archive.tar",
             "truncat|archive|tar|eof|end|short|missing|not found",
             ref="whiteout")
    with open(p, "wb") as f:
        f.write(data[:len(data) * 2 // 3])

    with open(os.path.join(out, "bad.list"), "w") as f:
        for c in cases:
            f.write("%s %s %s %s\n" % c)


if __name__ == "__main__":
    main()
