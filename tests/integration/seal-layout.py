#!/usr/bin/env python3
"""seal-layout.py SRC TAG DEST VALUE: copies the OCI layout SRC to DEST with
the manifest of the image tagged TAG annotated as cfs-seal(1) seals it:
composefs.merged.cfs.v1.fsverity-sha256-12 = VALUE (any string, so that
tests can also make hostile seals). Only the manifest blob and the index
entry change; the config and layers stay as they are."""
import hashlib
import json
import os
import shutil
import sys

SEAL = "composefs.merged.cfs.v1.fsverity-sha256-12"
TAG = "org.opencontainers.image.ref.name"


def blob_path(lay, digest):
    return os.path.join(lay, "blobs", *digest.split(":"))


def main():
    src, tag, dest, value = sys.argv[1:5]
    shutil.copytree(src, dest)
    with open(os.path.join(dest, "index.json")) as f:
        idx = json.load(f)
    entry = [m for m in idx["manifests"]
             if m.get("annotations", {}).get(TAG) == tag][0]
    with open(blob_path(dest, entry["digest"]), "rb") as f:
        manifest = json.load(f)
    manifest.setdefault("annotations", {})[SEAL] = value
    data = json.dumps(manifest, separators=(",", ":")).encode()
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    with open(blob_path(dest, digest), "wb") as f:
        f.write(data)
    entry["digest"], entry["size"] = digest, len(data)
    with open(os.path.join(dest, "index.json"), "w") as f:
        json.dump(idx, f)


if __name__ == "__main__":
    main()
