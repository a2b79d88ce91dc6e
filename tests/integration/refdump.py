#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent reference for composefs-dump(5): dumps a directory tree.

Usage: refdump.py [--normalise] ROOTFS
       refdump.py --normalise-dump [FILE]   (normalise an existing dump)

Walks ROOTFS (e.g. BUNDLE/rootfs of `umoci unpack`) depth first, pre-order,
children sorted by name bytes, and prints one line per file:
  PATH SIZE MODE NLINK UID GID RDEV MTIME PAYLOAD CONTENT DIGEST [KEY=VALUE...]
- MODE is octal; a hard link seen before (same inode) gets "@" before MODE
  and PAYLOAD = the absolute path of the first name met in walk order; its
  other fields (DIGEST and xattrs too) are those of that inode, as in the
  example of composefs-dump(5).
- MTIME is SECONDS.NANOSECONDS, nanoseconds not zero-padded ("1.1" is one
  second and one nanosecond).
- Regular files of size > 0: DIGEST = hex fs-verity digest (sha256, 4 KiB
  blocks, no salt, from `fsverity digest --compact`), PAYLOAD = DIGEST
  split after 2 characters ("xx/yyyy..."); size 0: both "-".
- Symlinks: PAYLOAD = target. CONTENT is always "-".
- Directories: SIZE 0, NLINK = 2 + number of subdirectories.
- Escaping: "\\" -> "\\\\", bytes outside 0x21..0x7e -> "\\xXY" (lowercase),
  "=" -> "\\x3d" in xattr keys and values, a field equal to "-" -> "\\x2d";
  an empty field is "-".

Normalisation (--normalise, applied to both sides by convert.t):
- directory SIZE is printed as 0 (composefs stores its dirent chunk size);
- xattrs that a host adds on its own are dropped: HOST_XATTRS below.
Nothing else is normalised: modes, owners, mtimes (with nsec), nlink, rdev,
payloads, digests and other xattrs are compared as they are.
"""

import os
import stat
import subprocess
import sys

HOST_XATTRS = (b"security.selinux", b"system.posix_acl_access",
               b"system.posix_acl_default", b"security.ima",
               b"security.evm")
FSVERITY_BATCH = 200


def escape(b, in_xattr=False):
    if b == b"-":
        return "\\x2d"
    if b == b"":
        return "-"
    out = []
    for c in b:
        if c == 0x5C:
            out.append("\\\\")
        elif c < 0x21 or c > 0x7E or (in_xattr and c == 0x3D):
            out.append("\\x%02x" % c)
        else:
            out.append(chr(c))
    return "".join(out)


def walk(root):
    """Yields (path bytes relative "/...", full path, lstat) in dump order."""
    root = os.fsencode(root)

    def rec(rel, full):
        st = os.lstat(full)
        yield rel, full, st
        if stat.S_ISDIR(st.st_mode):
            for name in sorted(os.listdir(full)):
                yield from rec((rel.rstrip(b"/") + b"/" + name), full + b"/" + name)

    yield from rec(b"/", root)


def verity_digests(paths):
    """Maps full path -> hex fs-verity digest, with batched fsverity calls."""
    out = {}
    for i in range(0, len(paths), FSVERITY_BATCH):
        batch = paths[i:i + FSVERITY_BATCH]
        res = subprocess.run(["fsverity", "digest", "--compact",
                              "--hash-alg=sha256", "--block-size=4096", "--"]
                             + batch, stdout=subprocess.PIPE, check=True)
        lines = res.stdout.split(b"\n")[:len(batch)]
        if len(lines) != len(batch):
            sys.exit("refdump: fsverity digest printed %d lines for %d files"
                     % (len(lines), len(batch)))
        for p, d in zip(batch, lines):
            out[p] = d.decode().strip()
    return out


def xattrs_of(full, normalise):
    try:
        keys = os.listxattr(full, follow_symlinks=False)
    except OSError:
        return []
    items = []
    for k in keys:
        kb = os.fsencode(k)
        if normalise and kb in HOST_XATTRS:
            continue
        v = os.getxattr(full, k, follow_symlinks=False)
        items.append((kb, v))
    items.sort()
    return [escape(k, True) + "=" + escape(v, True) for k, v in items]


def dump(root, normalise, out):
    entries = list(walk(root))
    regs = [full for _, full, st in entries
            if stat.S_ISREG(st.st_mode) and st.st_size > 0]
    digests = verity_digests(regs)
    subdirs = {}
    for rel, _, st in entries:
        if stat.S_ISDIR(st.st_mode) and rel != b"/":
            parent = os.path.dirname(rel)
            subdirs[parent] = subdirs.get(parent, 0) + 1
    first_name = {}
    for rel, full, st in entries:
        mode = st.st_mode
        nlink = st.st_nlink
        size = st.st_size
        payload = b""
        digest = ""
        hard = ""
        if stat.S_ISDIR(mode):
            size = 0
            nlink = 2 + subdirs.get(rel, 0)
        elif stat.S_ISREG(mode) or stat.S_ISLNK(mode) or nlink > 1:
            key = (st.st_dev, st.st_ino)
            if key in first_name:
                hard = "@"
                payload = first_name[key]
            else:
                first_name[key] = rel
        if stat.S_ISREG(mode) and size > 0:
            digest = digests[full]
        if not hard:
            if digest:
                payload = (digest[:2] + "/" + digest[2:]).encode()
            elif stat.S_ISLNK(mode):
                payload = os.readlink(full)
        rdev = st.st_rdev if (stat.S_ISCHR(mode) or stat.S_ISBLK(mode)) else 0
        fields = [escape(rel), str(size), hard + "%o" % mode, str(nlink),
                  str(st.st_uid), str(st.st_gid), str(rdev),
                  "%d.%d" % divmod(st.st_mtime_ns, 10**9),
                  escape(payload), "-", digest or "-"]
        fields += xattrs_of(full, normalise)
        out.write(" ".join(fields) + "\n")


def normalise_dump(inp, out):
    """Applies the same normalisation to a dump made by another tool."""
    for line in inp:
        f = line.rstrip("\n").split(" ")
        mode = f[2].lstrip("@")
        if stat.S_ISDIR(int(mode, 8)):
            f[1] = "0"
        keep = f[:11]
        for x in f[11:]:
            key = x.split("=", 1)[0]
            if key.encode() not in HOST_XATTRS:
                keep.append(x)
        out.write(" ".join(keep) + "\n")


def main():
    args = sys.argv[1:]
    if args and args[0] == "--normalise-dump":
        inp = open(args[1]) if len(args) > 1 else sys.stdin
        normalise_dump(inp, sys.stdout)
        return
    normalise = False
    if args and args[0] == "--normalise":
        normalise = True
        args = args[1:]
    if len(args) != 1:
        sys.exit(__doc__.split("\n\n")[1])
    dump(args[0], normalise, sys.stdout)


if __name__ == "__main__":
    main()
