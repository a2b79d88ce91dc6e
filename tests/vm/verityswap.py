#!/usr/bin/python3
"""The descriptor swap of issue 31 point 1; prints TAP.

  verityswap.py MKCFS WORKDIR MNT

On an ext4 with fs-verity in a loop file under WORKDIR, GOOD and EVIL
have the same size and fs-verity.  With EVIL kept open (fs-verity keeps
the file digest it computed at open), EVIL's descriptor is overwritten on
the device with GOOD's and EVIL's cached pages are dropped, so a re-read
of the descriptor answers GOOD's while fs-verity still verifies EVIL's
data against EVIL's root hash.  A manifest that records digest(GOOD) for
EVIL's object must then fail to open (EIO), not read EVIL's bytes: the
digest composefs compares must be the one fs-verity enforces.

composefs reads that digest through its copy of Linux 6.1's private
struct fsverity_info (kernel/fs/composefs/verity-descriptor.c); where the
running kernel describes its own in BTF (/sys/kernel/btf/vmlinux, as
Debian's does), the offsets of the members the copy uses must match.
"""
import errno
import hashlib
import os
import struct
import subprocess
import sys

import vmtap
from vmtap import libc, tap

SIZE = 3 * 4096 + 100


# The byte offsets composefs's copy of struct fsverity_info reads (x86_64).
COPY = {'tree_params.digest_size': 16, 'tree_params.block_size': 20,
        'tree_params.log_blocksize': 28, 'file_digest': 184, 'inode': 248}
BTF_STRUCT, BTF_UNION = 4, 5
# bytes after the 12-byte btf_type: fixed, and per vlen item
BTF_EXTRA = {1: (4, 0), 3: (12, 0), 4: (0, 12), 5: (0, 12), 6: (0, 8),
             13: (0, 8), 14: (4, 0), 15: (0, 12), 17: (4, 0), 19: (0, 12)}


def btf_types(blob):
    """{type id: (name, kind, [(member name, type id, bit offset)])}."""
    hdr_len, = struct.unpack_from('<I', blob, 4)
    toff, tlen, soff = struct.unpack_from('<III', blob, 8)
    types, strs = blob[hdr_len + toff:hdr_len + toff + tlen], hdr_len + soff

    def name(off):
        return blob[strs + off:blob.index(b'\0', strs + off)].decode()
    out, pos, tid = {}, 0, 1
    while pos < len(types):
        name_off, info, _ = struct.unpack_from('<III', types, pos)
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        fixed, each = BTF_EXTRA.get(kind, (0, 0))
        members = []
        if kind in (BTF_STRUCT, BTF_UNION):
            for i in range(vlen):
                m_name, m_type, m_off = struct.unpack_from(
                    '<III', types, pos + 12 + 12 * i)
                if (info >> 31) & 1:  # kind_flag: bitfield size on top
                    m_off &= 0xffffff
                members.append((name(m_name), m_type, m_off))
        out[tid] = (name(name_off), kind, members)
        pos += 12 + fixed + each * vlen
        tid += 1
    return out


def btf_offsets(blob, struct_name):
    """{'member' or 'member.sub': byte offset} of STRUCT_NAME, or None."""
    types = btf_types(blob)
    top = [t for t in types.values()
           if t[0] == struct_name and t[1] == BTF_STRUCT and t[2]]
    if not top:
        return None
    out = {}
    for m_name, m_type, m_off in top[0][2]:
        out[m_name] = m_off // 8
        sub = types.get(m_type)
        if sub and sub[1] == BTF_STRUCT:
            for s_name, _, s_off in sub[2]:
                out[f'{m_name}.{s_name}'] = (m_off + s_off) // 8
    return out


def layout_matches():
    try:
        blob = open('/sys/kernel/btf/vmlinux', 'rb').read()
    except OSError:
        print('# no /sys/kernel/btf/vmlinux: struct fsverity_info not '
              'compared')
        return
    got = btf_offsets(blob, 'fsverity_info')
    have = {k: got.get(k) for k in COPY} if got else None
    tap(have == COPY, 'verity swap: this kernel\'s BTF lays out struct '
        'fsverity_info as composefs\'s copy reads it',
        [f'BTF: {have}', f'copy: {COPY}'])


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True).stdout


def obj(label):
    h = hashlib.sha256(label.encode()).hexdigest()
    return h[:2] + '/' + h[2:]


def swap_descriptor(dev, old, new):
    """Overwrite the one copy of OLD in the device file DEV with NEW."""
    data = open(dev, 'rb').read()
    at = data.find(old)
    if at < 0 or data.find(old, at + 1) >= 0:
        return False
    with open(dev, 'r+b') as f:
        f.seek(at)
        f.write(new)
        os.fsync(f.fileno())  # seen by the loop device, buffered or not
    return True


def read_through(mkcfs, work, mnt, store, name, digest):
    dump, img = os.path.join(work, 'dump'), os.path.join(work, 'img')
    with open(dump, 'w') as f:
        f.write('/ 4096 40755 2 0 0 0 0 - - -\n'
                f'/f {SIZE} 100644 1 0 0 0 0 {name} - {digest}\n')
    with open(img, 'wb') as out:
        subprocess.run([mkcfs, dump, '-'], stdout=out, check=True)
    err = vmtap.mount_composefs(img, mnt,
                                f'basedir={store},verity_check=2')
    if err:
        return 'mount: ' + os.strerror(err)
    try:
        with open(os.path.join(mnt, 'f'), 'rb') as f:
            return f.read()
    except OSError as e:
        return os.strerror(e.errno)
    finally:
        vmtap.umount(mnt)


def drop_pages(fd):
    """Drop EVIL's cached pages (the descriptor is kept past EOF) while the
    open file keeps its inode and fsverity_info: fadvise, or drop_caches
    where the kernel has no fadvise (the debug kernel's config)."""
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    except OSError as e:
        if e.errno != errno.ENOSYS:
            raise
        with open('/proc/sys/vm/drop_caches', 'w') as f:
            f.write('1\n')


def main():
    mkcfs, work, mnt = sys.argv[1:4]
    layout_matches()
    dev, top = os.path.join(work, 'ext4.img'), os.path.join(work, 'mnt')
    os.makedirs(top)
    with open(dev, 'wb') as f:
        f.truncate(64 << 20)
    run('mkfs.ext4', '-q', '-b', '4096', '-O', 'verity', dev)
    run('mount', '-o', 'loop', dev, top)
    store = os.path.join(top, 'store')
    good, evil = os.path.join(top, 'good'), os.path.join(store, obj('evil'))
    os.makedirs(os.path.dirname(evil))
    good_bytes, evil_bytes = os.urandom(SIZE), os.urandom(SIZE)
    for path, data in ((good, good_bytes), (evil, evil_bytes)):
        with open(path, 'wb') as f:
            f.write(data)
        run('fsverity', 'enable', path)
    digest = run('fsverity', 'measure', good).split()[0].split(b':')[1]
    desc = {p: run('fsverity', 'dump_metadata', 'descriptor', p)
            for p in (good, evil)}
    fd = os.open(evil, os.O_RDONLY)  # keeps EVIL's fsverity_info
    try:
        os.read(fd, 1)
        os.sync()
        swapped = swap_descriptor(dev, desc[evil], desc[good])
        drop_pages(fd)
        reread = run('fsverity', 'dump_metadata', 'descriptor', evil)
        enforced = run('fsverity', 'measure', evil).split()[0]
        tap(swapped and reread == desc[good] and
            enforced.split(b':')[1] != digest,
            'verity swap: EVIL\'s descriptor re-reads as GOOD\'s while '
            'fs-verity enforces EVIL\'s digest',
            [f'swapped {swapped}, re-read is GOOD\'s: '
             f'{reread == desc[good]}, enforced {enforced}'])
        got = read_through(mkcfs, work, mnt, store, obj('evil'),
                           digest.decode())
        tap(got == os.strerror(5),
            'verity swap: a manifest recording digest(GOOD) over EVIL '
            'fails with EIO',
            ['read EVIL\'s bytes' if got == evil_bytes else got])
    finally:
        os.close(fd)
        libc.umount2(top.encode(), 0)
    return vmtap.status()


if __name__ == '__main__':
    vmtap.run_main(main)
