#!/usr/bin/env python3
"""layout-config.py LAYOUT TAG: prints the hex digest of the config of the
image tagged TAG (org.opencontainers.image.ref.name) in an OCI layout."""
import json
import os
import sys


def blob(lay, digest):
    with open(os.path.join(lay, "blobs", *digest.split(":")), "rb") as f:
        return f.read()


def main():
    lay, tag = sys.argv[1:3]
    with open(os.path.join(lay, "index.json")) as f:
        idx = json.load(f)
    m = [m for m in idx["manifests"]
         if m.get("annotations", {}).get("org.opencontainers.image.ref.name")
         == tag][0]
    print(json.loads(blob(lay, m["digest"]))["config"]["digest"].split(":")[1])


if __name__ == "__main__":
    main()
