#!/usr/bin/python3
"""In-VM checks of a mounted composefs tree; prints TAP lines (unnumbered).

  check.py compare SRC MNT     mounted tree equals the source, file by file
  check.py erofs MNT           every write path answers EROFS
  check.py enoent MNT          missing names give ENOENT
  check.py mmap MNT            mmap of every regular file equals read()
  check.py seekdir DIR         telldir/seekdir offsets are stable
  check.py sharecache A B      B's pages are cached after reading A
  check.py cycles IMG BASEDIR MNT N   N mount/list/umount cycles
"""
import ctypes
import errno
import mmap
import os
import stat
import sys
import time

import vmtap
from vmtap import libc, tap


def walk(top):
    yield ''
    for dirpath, dirs, files in os.walk(top):
        rel = os.path.relpath(dirpath, top)
        rel = '' if rel == '.' else rel
        for n in sorted(dirs + files):
            yield os.path.join(rel, n)


def xattrs(path):
    return {k: os.getxattr(path, k, follow_symlinks=False)
            for k in os.listxattr(path, follow_symlinks=False)}


def read_all(path):
    with open(path, 'rb') as f:
        return f.read()


def compare(src, mnt):
    fields = ['st_mode', 'st_uid', 'st_gid', 'st_mtime_ns', 'st_rdev',
              'st_nlink']
    paths = list(walk(src))
    problems = {k: [] for k in ['stat', 'size', 'content', 'xattrs',
                                'symlink', 'listing', 'hardlinks']}
    ino_map = {}
    for rel in paths:
        a, b = os.path.join(src, rel), os.path.join(mnt, rel)
        try:
            sa, sb = os.lstat(a), os.lstat(b)
        except OSError as e:
            problems['stat'].append(f'{rel}: {e}')
            continue
        for f in fields:
            if getattr(sa, f) != getattr(sb, f):
                problems['stat'].append(
                    f'{rel}: {f} {getattr(sa, f)} != {getattr(sb, f)}')
        if not stat.S_ISDIR(sa.st_mode) and sa.st_size != sb.st_size:
            problems['size'].append(f'{rel}: {sa.st_size} != {sb.st_size}')
        if xattrs(a) != xattrs(b):
            problems['xattrs'].append(f'{rel}: {xattrs(a)} != {xattrs(b)}')
        if stat.S_ISREG(sa.st_mode):
            if read_all(a) != read_all(b):
                problems['content'].append(rel)
            key = (sa.st_dev, sa.st_ino)
            if ino_map.setdefault(key, sb.st_ino) != sb.st_ino:
                problems['hardlinks'].append(f'{rel}: inode differs')
        elif stat.S_ISLNK(sa.st_mode):
            if os.readlink(a) != os.readlink(b):
                problems['symlink'].append(rel)
        elif stat.S_ISDIR(sa.st_mode):
            if sorted(os.listdir(a)) != sorted(os.listdir(b)):
                problems['listing'].append(rel)
    want = len({(os.lstat(os.path.join(src, p)).st_ino) for p in paths})
    got = len({os.lstat(os.path.join(mnt, p)).st_ino for p in paths})
    tap(len(paths) > 1, f'walked {len(paths)} entries')
    for k, v in problems.items():
        tap(not v, f'{k} equal to the source', v)
    tap(want == got, f'{got} distinct inode numbers, {want} expected')


def expect_errno(fn, want, name):
    try:
        fn()
    except OSError as e:
        tap(e.errno == want, name, [f'got {errno.errorcode.get(e.errno)}'])
        return
    tap(False, name, ['succeeded'])


def erofs(mnt):
    f, d = os.path.join(mnt, 'small'), os.path.join(mnt, 'etc')
    E = errno.EROFS
    expect_errno(lambda: open(f, 'r+b'), E, 'open O_RDWR gives EROFS')
    expect_errno(lambda: open(f, 'wb'), E, 'open O_TRUNC gives EROFS')
    expect_errno(lambda: open(os.path.join(d, 'new'), 'wb'), E,
                 'create gives EROFS')
    expect_errno(lambda: os.mkdir(os.path.join(d, 'nd')), E, 'mkdir EROFS')
    expect_errno(lambda: os.unlink(f), E, 'unlink gives EROFS')
    expect_errno(lambda: os.rename(f, f + '2'), E, 'rename gives EROFS')
    expect_errno(lambda: os.chmod(f, 0o777), E, 'chmod gives EROFS')
    expect_errno(lambda: os.chown(f, 1, 1), E, 'chown gives EROFS')
    expect_errno(lambda: os.utime(f, (1, 1)), E, 'utime gives EROFS')
    expect_errno(lambda: os.truncate(f, 0), E, 'truncate gives EROFS')
    expect_errno(lambda: os.setxattr(f, 'user.x', b'1'), E,
                 'setxattr gives EROFS')
    expect_errno(lambda: os.removexattr(f, 'user.foo'), E,
                 'removexattr gives EROFS')
    expect_errno(lambda: os.symlink('x', os.path.join(d, 's')), E,
                 'symlink gives EROFS')
    expect_errno(lambda: os.link(f, os.path.join(d, 'l')), E,
                 'link gives EROFS')


def enoent(mnt):
    for name in ['missing', 'smal', 'smallx', 'many/f9999', 'etc/zzz',
                 'etc/deep/er/nope', '0', '~']:
        expect_errno(lambda: os.lstat(os.path.join(mnt, name)),
                     errno.ENOENT, f'lstat {name} gives ENOENT')
    expect_errno(lambda: os.lstat(os.path.join(mnt, 'a' * 256)),
                 errno.ENAMETOOLONG, '256-byte name gives ENAMETOOLONG')
    expect_errno(lambda: os.getxattr(os.path.join(mnt, 'small'), 'user.no'),
                 errno.ENODATA, 'missing xattr gives ENODATA')


def check_mmap(mnt):
    bad, n = [], 0
    for rel in walk(mnt):
        p = os.path.join(mnt, rel)
        st = os.lstat(p)
        if not stat.S_ISREG(st.st_mode) or not st.st_size:
            continue
        with open(p, 'rb') as f:
            data = f.read()
            with mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ) as m:
                if m[:] != data:
                    bad.append(rel)
        n += 1
    tap(n > 0 and not bad, f'mmap equals read() for {n} files', bad)


class Dirent(ctypes.Structure):
    _fields_ = [('d_ino', ctypes.c_uint64), ('d_off', ctypes.c_int64),
                ('d_reclen', ctypes.c_ushort), ('d_type', ctypes.c_ubyte),
                ('d_name', ctypes.c_char * 256)]


def seekdir(path):
    libc.opendir.restype = ctypes.c_void_p
    libc.readdir.restype = ctypes.POINTER(Dirent)
    libc.readdir.argtypes = [ctypes.c_void_p]
    libc.telldir.restype = ctypes.c_long
    libc.telldir.argtypes = [ctypes.c_void_p]
    libc.seekdir.argtypes = [ctypes.c_void_p, ctypes.c_long]
    libc.closedir.argtypes = [ctypes.c_void_p]
    d = libc.opendir(path.encode())
    entries = []
    while True:
        pos = libc.telldir(d)
        e = libc.readdir(d)
        if not e:
            break
        entries.append((pos, e.contents.d_name, e.contents.d_ino))
    bad = []
    for pos, name, ino in entries[::-1] + entries[::7]:
        libc.seekdir(d, pos)
        e = libc.readdir(d)
        if not e or (e.contents.d_name, e.contents.d_ino) != (name, ino):
            bad.append(name)
    libc.closedir(d)
    names = [n for _, n, _ in entries]
    tap(len(names) == len(set(names)) and b'.' in names and b'..' in names,
        f'readdir of {path}: {len(names)} unique entries with . and ..')
    tap(not bad, 'seekdir to every telldir offset returns the same entry',
        bad)


def resident(path):
    """Number of the file's pages in the page cache (mmap + mincore)."""
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t,
                             ctypes.c_char_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    size = os.path.getsize(path)
    pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
    vec = ctypes.create_string_buffer(pages)
    fd = os.open(path, os.O_RDONLY)
    addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    os.close(fd)
    if addr in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), 'mmap ' + path)
    libc.mincore(addr, size, vec)
    libc.munmap(addr, size)
    return sum(b & 1 for b in vec.raw)


def sharecache(a, b):
    with open('/proc/sys/vm/drop_caches', 'w') as f:
        f.write('3\n')
    before = resident(b)
    read_all(a)
    after = resident(b)
    pages = (os.path.getsize(b) + mmap.PAGESIZE - 1) // mmap.PAGESIZE
    tap(before < pages and after == pages,
        f'page cache shared between images ({before} -> {after} of {pages})')


def cycles(image, basedir, mnt, count):
    """Mount, list and unmount COUNT times in one process."""
    opts = 'basedir=' + basedir
    done = err = 0
    times = []
    for done in range(int(count)):
        t0 = time.perf_counter()
        err = vmtap.mount_composefs(image, mnt, opts)
        if err:
            break
        times.append(time.perf_counter() - t0)
        names = os.listdir(mnt)
        for n in names[:20]:
            os.lstat(os.path.join(mnt, n))
        try:
            vmtap.umount(mnt)
        except OSError as e:
            err = e.errno
            break
    else:
        done = int(count)
    if times:
        times.sort()
        print(f'# mount(2) of {image} ({os.path.getsize(image)} bytes): '
              f'median {times[len(times) // 2] * 1000:.2f} ms, '
              f'max {times[-1] * 1000:.2f} ms')
    tap(done == int(count), f'{count} mount/list/umount cycles ({done} done)',
        [os.strerror(err)])


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    {'compare': compare, 'erofs': erofs, 'enoent': enoent,
     'mmap': check_mmap, 'seekdir': seekdir,
     'sharecache': sharecache, 'cycles': cycles}[cmd](*args)
    return vmtap.status()


if __name__ == '__main__':
    sys.exit(main())
