# SPDX-License-Identifier: MIT
"""Deterministic layer tars and OCI image layouts for the test fixtures.

Layer tars are made entry by entry with tarfile (PAX format), so the
fixtures control order, hardlinks, whiteouts, devices, xattrs and
nanosecond mtimes exactly. Layouts are written directly (oci-layout,
index.json, blobs/sha256/) with fixed timestamps, sorted JSON and
`gzip -n` / `zstd` compression, so the same inputs give the same bytes.
"""

import base64
import hashlib
import io
import json
import os
import platform
import subprocess
import tarfile

T0 = 1700000000  # default mtime of every entry (2023-11-14)
CREATED = "2024-01-01T00:00:00Z"

MT_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
MT_INDEX = "application/vnd.oci.image.index.v1+json"
MT_CONFIG = "application/vnd.oci.image.config.v1+json"
MT_LAYER = {
    "none": "application/vnd.oci.image.layer.v1.tar",
    "gzip": "application/vnd.oci.image.layer.v1.tar+gzip",
    "zstd": "application/vnd.oci.image.layer.v1.tar+zstd",
}
REF_ANNOTATION = "org.opencontainers.image.ref.name"


def go_arch():
    m = platform.machine()
    return {"x86_64": "amd64", "aarch64": "arm64", "armv7l": "arm",
            "ppc64le": "ppc64le", "s390x": "s390x",
            "riscv64": "riscv64"}.get(m, m)


def _pax_str(v):
    """tarfile takes PAX values as str; bytes go through surrogateescape."""
    if isinstance(v, bytes):
        return v.decode("utf-8", "surrogateescape")
    return v


class Layer:
    """One layer tar, built in memory in the order entries are added."""

    def __init__(self):
        self.buf = io.BytesIO()
        self.tf = tarfile.open(fileobj=self.buf, mode="w",
                               format=tarfile.PAX_FORMAT,
                               encoding="utf-8", errors="surrogateescape")
        self._data = None

    def entry(self, name, kind="file", data=b"", mode=None, uid=0, gid=0,
              mtime=T0, nsec=None, link="", dev=(0, 0), xattrs=None,
              libarchive_xattrs=None):
        ti = tarfile.TarInfo(name)
        ti.type = {"file": tarfile.REGTYPE, "dir": tarfile.DIRTYPE,
                   "symlink": tarfile.SYMTYPE, "hardlink": tarfile.LNKTYPE,
                   "char": tarfile.CHRTYPE, "block": tarfile.BLKTYPE,
                   "fifo": tarfile.FIFOTYPE}[kind]
        if mode is None:
            mode = {"dir": 0o755, "symlink": 0o777}.get(kind, 0o644)
        ti.mode = mode
        ti.uid, ti.gid = uid, gid
        ti.uname = ti.gname = ""
        ti.mtime = mtime
        ti.linkname = link
        ti.devmajor, ti.devminor = dev
        pax = {}
        if nsec is not None:
            pax["mtime"] = "%d.%09d" % (mtime, nsec)
        for k, v in sorted((xattrs or {}).items()):
            pax["SCHILY.xattr." + k] = _pax_str(v)
        for k, v in sorted((libarchive_xattrs or {}).items()):
            pax["LIBARCHIVE.xattr." + k] = base64.b64encode(v).decode()
        ti.pax_headers = pax
        if kind == "file":
            ti.size = len(data)
            self.tf.addfile(ti, io.BytesIO(data))
        else:
            ti.size = 0
            self.tf.addfile(ti)

    # Shorthands.
    def dir(self, name, **kw):
        self.entry(name, "dir", **kw)

    def file(self, name, data=b"", **kw):
        self.entry(name, "file", data=data, **kw)

    def symlink(self, name, target, **kw):
        self.entry(name, "symlink", link=target, **kw)

    def hardlink(self, name, target, **kw):
        self.entry(name, "hardlink", link=target, **kw)

    def whiteout(self, name, **kw):
        d, b = os.path.split(name)
        self.entry(os.path.join(d, ".wh." + b), "file", **kw)

    def opaque(self, dirname, **kw):
        self.entry(os.path.join(dirname, ".wh..wh..opq"), "file", **kw)

    def bytes(self):
        if self._data is None:
            self.tf.close()
            self._data = self.buf.getvalue()
        return self._data


def compress(data, how):
    if how == "none":
        return data
    cmd = {"gzip": ["gzip", "-n", "-6", "-c"],
           "zstd": ["zstd", "-q", "-3", "-c", "--no-progress"]}[how]
    return subprocess.run(cmd, input=data, stdout=subprocess.PIPE,
                          check=True).stdout


def canon_json(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def sha256(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


class Layout:
    """An OCI image layout directory holding any number of tagged images."""

    def __init__(self, path):
        self.path = path
        self.tags = {}
        self._compressed = {}
        os.makedirs(os.path.join(path, "blobs", "sha256"), exist_ok=True)
        with open(os.path.join(path, "oci-layout"), "wb") as f:
            f.write(canon_json({"imageLayoutVersion": "1.0.0"}))

    def blob(self, data, media_type):
        d = sha256(data)
        p = os.path.join(self.path, "blobs", "sha256", d[7:])
        if not os.path.exists(p):
            with open(p + ".part", "wb") as f:
                f.write(data)
            os.rename(p + ".part", p)
        return {"mediaType": media_type, "digest": d, "size": len(data)}

    def _layer_blob(self, tar, how):
        key = (hashlib.sha256(tar).digest(), how)
        if key not in self._compressed:
            self._compressed[key] = compress(tar, how)
        return self.blob(self._compressed[key], MT_LAYER[how])

    def image(self, tag, layers, config=None, compression="gzip"):
        """layers: Layer objects, or (Layer, compression) pairs."""
        descs, diff_ids, history = [], [], []
        for i, l in enumerate(layers):
            how = compression
            if isinstance(l, tuple):
                l, how = l
            tar = l.bytes()
            descs.append(self._layer_blob(tar, how))
            diff_ids.append(sha256(tar))
            history.append({"created": CREATED,
                            "created_by": "cfs fixture %s layer %d" % (tag, i + 1)})
        cfg = {
            "created": CREATED,
            "architecture": go_arch(),
            "os": "linux",
            "config": config or {},
            "rootfs": {"type": "layers", "diff_ids": diff_ids},
            "history": history,
        }
        cdesc = self.blob(canon_json(cfg), MT_CONFIG)
        manifest = {"schemaVersion": 2, "mediaType": MT_MANIFEST,
                    "config": cdesc, "layers": descs}
        mdesc = self.blob(canon_json(manifest), MT_MANIFEST)
        mdesc["annotations"] = {REF_ANNOTATION: tag}
        self.tags[tag] = mdesc
        return mdesc

    def finish(self):
        index = {"schemaVersion": 2, "mediaType": MT_INDEX,
                 "manifests": [self.tags[t] for t in sorted(self.tags)]}
        p = os.path.join(self.path, "index.json")
        with open(p + ".part", "wb") as f:
            f.write(canon_json(index))
        os.rename(p + ".part", p)


def retar(path, mtime=T0):
    """Rewrites a tar file with every member's mtime set to mtime and
    owner 0:0, keeping order and contents: makes skopeo's archives
    deterministic."""
    src = tarfile.open(path)
    buf = io.BytesIO()
    dst = tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT)
    for m in src.getmembers():
        m.mtime = mtime
        m.uid = m.gid = 0
        m.uname = m.gname = ""
        m.pax_headers = {}
        dst.addfile(m, src.extractfile(m) if m.isreg() else None)
    dst.close()
    src.close()
    with open(path + ".part", "wb") as f:
        f.write(buf.getvalue())
    os.rename(path + ".part", path)
