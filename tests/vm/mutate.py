#!/usr/bin/python3
"""Mount and walk hostile composefs images inside the VM; prints TAP.

  mutate.py IMAGE BASEDIR WORKDIR COUNT [SEED]

Named hostile cases (unsorted or duplicate dirents, a directory named
twice, a cycle to the root, huge counts, bad references) must be refused
at mount or read as EUCLEAN; COUNT random mutations (bit flips, field
overwrites, truncations) must never hang or crash (the host checks the
kernel log) and may fail only with EUCLEAN, or ENOENT for a file whose
backing path was hit.
"""
import collections
import errno
import os
import random
import stat
import struct
import sys

import vmtap
from vmtap import tap

SB, INO, DIRENT = 128, 96, 12


def walk(top, errs):
    """Touch every name, attribute and byte; count errnos in errs."""
    def note(fn, *a, **kw):
        try:
            return fn(*a, **kw)
        except OSError as e:
            errs[errno.errorcode.get(e.errno, str(e.errno))] += 1
            return None
    stack = [top]
    seen = 0
    while stack and seen < 5000:
        d = stack.pop()
        names = note(os.listdir, d) or []
        for n in names:
            seen += 1
            p = os.path.join(d, n)
            st = note(os.lstat, p)
            if st is None:
                continue
            for k in note(os.listxattr, p, follow_symlinks=False) or []:
                note(os.getxattr, p, k, follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                stack.append(p)
            elif stat.S_ISLNK(st.st_mode):
                note(os.readlink, p)
            elif stat.S_ISREG(st.st_mode):
                def read(p=p):
                    with open(p, 'rb') as f:
                        while f.read(1 << 16):
                            pass
                note(read)


def try_image(data, work, basedir):
    path = os.path.join(work, 'img')
    with open(path, 'wb') as f:
        f.write(data)
    mnt = os.path.join(work, 'mnt')
    os.makedirs(mnt, exist_ok=True)
    err = vmtap.mount_composefs(path, mnt, 'basedir=' + basedir)
    errs = collections.Counter()
    if err:
        return errno.errorcode.get(err, str(err)), errs
    try:
        walk(mnt, errs)
    finally:
        vmtap.umount(mnt)
    return None, errs


class Image:
    def __init__(self, data):
        self.data = bytearray(data)
        self.vdata = struct.unpack_from('<Q', data, 8)[0]
        self.n = (self.vdata - SB) // INO

    def inode(self, i):
        o = SB + i * INO
        mode, = struct.unpack_from('<I', self.data, o)
        voff, vlen = struct.unpack_from('<QI', self.data, o + 52)
        xoff, xlen = struct.unpack_from('<QI', self.data, o + 64)
        return o, mode, self.vdata + voff, vlen, self.vdata + xoff, xlen

    def dirs(self):
        return [i for i in range(self.n)
                if stat.S_ISDIR(self.inode(i)[1]) and self.inode(i)[3] >= 4
                and struct.unpack_from('<I', self.data, self.inode(i)[2])[0]
                >= 2]

    def dirent(self, chunk, k):
        return chunk + 4 + k * DIRENT


def hostile_cases(img):
    """(name, mutator) pairs; each must be refused or read as EUCLEAN."""
    cases = []
    d = img.dirs()[-1]
    _, _, chunk, _, _, _ = img.inode(d)
    first, second = img.dirent(chunk, 0), img.dirent(chunk, 1)
    root_chunk = img.inode(0)[2]

    def swap_names(m):
        a = m[first + 4:first + 10]
        m[first + 4:first + 10] = m[second + 4:second + 10]
        m[second + 4:second + 10] = a
    cases.append(('unsorted dirents', swap_names))

    def duplicate(m):
        m[second + 4:second + 10] = m[first + 4:first + 10]
    cases.append(('duplicate dirent names', duplicate))

    def cycle(m):
        struct.pack_into('<I', m, first, 0)
        m[first + 9] = 4  # DT_DIR
    cases.append(('dirent pointing at the root (cycle)', cycle))

    def huge_count(m):
        struct.pack_into('<I', m, chunk, 0xffffffff)
    cases.append(('huge n_dirents', huge_count))

    def bad_ino(m):
        struct.pack_into('<I', m, first, img.n + 5)
    cases.append(('dirent inode out of range', bad_ino))

    def bad_dtype(m):
        m[first + 9] = 14
    cases.append(('invalid d_type', bad_dtype))

    def slash_name(m):
        off, ln = struct.unpack_from('<IB', m, first + 4)
        n = struct.unpack_from('<I', m, chunk)[0]
        m[chunk + 4 + n * DIRENT + off] = ord('/')
    cases.append(('name with a slash', slash_name))

    def far_ref(m):
        struct.pack_into('<Q', m, img.inode(d)[0] + 52, 1 << 62)
    cases.append(('vdata offset far past the end', far_ref))

    def wrap_ref(m):
        struct.pack_into('<QI', m, img.inode(d)[0] + 52, (1 << 64) - 2, 8)
    cases.append(('vdata offset + len overflows', wrap_ref))

    def bad_nsec(m):
        struct.pack_into('<I', m, img.inode(d)[0] + 36, 1000000000)
    cases.append(('mtime nsec out of range', bad_nsec))

    def dir_hardlink(m):
        dirs = [i for i in range(1, img.n) if stat.S_ISDIR(img.inode(i)[1])]
        if len(dirs) >= 2:
            rn = struct.unpack_from('<I', m, root_chunk)[0]
            for k in reversed(range(rn)):  # not an ancestor of dirs[-1]
                e = img.dirent(root_chunk, k)
                if m[e + 9] == 4:
                    struct.pack_into('<I', m, e, dirs[-1])
                    break
    cases.append(('directory named twice (hard link)', dir_hardlink))

    regs = [i for i in range(img.n) if stat.S_ISREG(img.inode(i)[1])]

    def mode_high_bits(m):
        o, mode = img.inode(regs[0])[:2]
        struct.pack_into('<I', m, o, mode | 0x10000)
    cases.append(('st_mode with bits above the 16 of a mode', mode_high_bits))

    def bad_magic(m):
        m[4] ^= 1
    cases.append(('bad magic', bad_magic))

    def nonzero_unused(m):
        m[100] = 1
    cases.append(('nonzero reserved superblock bytes', nonzero_unused))

    def root_not_dir(m):
        struct.pack_into('<I', m, SB, stat.S_IFREG | 0o644)
    cases.append(('root is not a directory', root_not_dir))

    xattr_inodes = [i for i in range(img.n) if img.inode(i)[5] >= 2]
    if xattr_inodes:
        _, _, _, _, xpos, xlen = img.inode(xattr_inodes[0])

        def huge_xattrs(m):
            struct.pack_into('<H', m, xpos, 0xffff)
        cases.append(('huge n_attr', huge_xattrs))

        def xattr_len(m):
            struct.pack_into('<H', m, xpos + 4, 0xffff)
        cases.append(('xattr value past the chunk', xattr_len))
    return cases


def random_mutation(rng, data):
    m = bytearray(data)
    kind = rng.randrange(4)
    if kind == 0:
        for _ in range(rng.randint(1, 8)):
            m[rng.randrange(len(m))] ^= 1 << rng.randrange(8)
    elif kind == 1:
        o = rng.randrange(0, len(m) - 4, 4)
        struct.pack_into('<I', m, o, rng.choice(
            [0, 1, 0xffffffff, 0x7fffffff, 0x80000000, len(m),
             rng.getrandbits(32)]))
    elif kind == 2:
        m = m[:rng.randrange(len(m))]
    else:
        o = SB + rng.randrange((struct.unpack_from('<Q', m, 8)[0] - SB))
        m[o] = rng.getrandbits(8)
    return bytes(m)


def main():
    image, basedir, work, count = sys.argv[1:5]
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    data = open(image, 'rb').read()
    err, errs = try_image(data, work, basedir)
    tap(err is None and not errs, 'unmodified image mounts and walks cleanly',
        [err, dict(errs)])

    img = Image(data)
    for name, mutate in hostile_cases(img):
        m = bytearray(data)
        mutate(m)
        err, errs = try_image(bytes(m), work, basedir)
        tap(err == 'EUCLEAN' or errs['EUCLEAN'] > 0,
            f'hostile: {name}: ' + (f'mount refused ({err})' if err else
                                    f'walk errors {dict(errs)}'))

    rng = random.Random(seed)
    refused, total = collections.Counter(), collections.Counter()
    for _ in range(int(count)):
        err, errs = try_image(random_mutation(rng, data), work, basedir)
        refused[err or 'mounted'] += 1
        total.update(errs)
    # A corrupt image may only be refused (EUCLEAN) or, where a mutated
    # backing path names no object, give ENOENT for that file, or EIO
    # where it is not an object name or the size differs from the
    # object's; any other errno (EINVAL, ENOMEM, EFAULT...) is a path the
    # kernel did not mean to take.
    odd = {e: n for e, n in refused.items() if e not in ('mounted', 'EUCLEAN')}
    odd.update({e: n for e, n in total.items()
                if e not in ('EUCLEAN', 'ENOENT', 'EIO')})
    tap(not odd and refused['mounted'] < int(count),
        f'{count} random mutations: mounts {dict(refused)}, '
        f'walk errors {dict(total)}', [f'unexpected: {odd}'])
    return vmtap.status()


if __name__ == '__main__':
    sys.exit(main())
