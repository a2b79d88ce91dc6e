#!/usr/bin/python3
"""The smaller kernel checks of issue 31 (composefs(5)); prints TAP.

  smaller.py MKCFS IMAGE STORE WORKDIR MNT

IMAGE is a valid image over STORE that holds a file /empty.  Checked: a
directory that fails its check is refused without being walked again, and
its check stops for a fatal signal; a name rewritten in the image file
while mounted reads as EUCLEAN; an empty file maps; a mount without
basedir=, or of a FIFO (without blocking), is refused; a bad second
digest= leaves the first intact (fsconfig(2)); remount cannot change the
options.
"""
import ctypes
import errno
import mmap
import os
import shutil
import signal
import struct
import subprocess
import sys
import time

import vmtap
from vmtap import libc, tap

SB, INO, DIRENT = 128, 96, 12
MS_RDONLY, MS_REMOUNT = 1, 32
SYS_FSOPEN, SYS_FSCONFIG = 430, 431
FSCONFIG_SET_STRING, FSCONFIG_CMD_CREATE = 1, 6


def errname(e):
    return errno.errorcode.get(e, str(e))


def try_call(fn, *args):
    try:
        fn(*args)
        return 'ok'
    except OSError as e:
        return errname(e.errno)


def big_dir_image(path, n):
    """Root with N names for one empty file, the last two out of order."""
    names = [b'%08d' % i for i in range(n)]
    names[-1], names[-2] = names[-2], names[-1]
    ent = struct.Struct('<IIBBH').pack
    ents = b''.join([ent(1, 8 * i, 8, 8, 0) for i in range(n)])
    chunk = struct.pack('<I', n) + ents + b''.join(names)
    vdata = SB + 2 * INO

    def inode(mode, nlink, size, ref):
        return struct.pack('<5IQqIqIQIQIQI8x', mode, nlink, 0, 0, 0, size,
                           0, 0, 0, 0, *ref, 0, 0, 0, 0)
    with open(path, 'wb') as f:
        f.write(struct.pack('<IIQ112x', 1, 0xc078629a, vdata))
        f.write(inode(0o40755, 2, len(chunk), (0, len(chunk))))
        f.write(inode(0o100644, 1, 0, (0, 0)))
        f.write(chunk)


def refusals(image):
    out = subprocess.run(['dmesg'], capture_output=True, text=True).stdout
    return sum(1 for ln in out.splitlines()
               if f'{image}: directory 0 refused' in ln)


def dir_refused_once(work, mnt, store):
    img = os.path.join(work, 'unsorted.img')
    big_dir_image(img, 1000)
    time.sleep(5)  # let the log's rate limit recover
    before = refusals(img)
    vmtap.mount_composefs(img, mnt, 'basedir=' + store)
    got = [try_call(os.listdir, mnt) for _ in range(3)]
    got.append(try_call(os.stat, os.path.join(mnt, '00000001')))
    vmtap.umount(mnt)
    n = refusals(img) - before
    tap(got == ['EUCLEAN'] * 4 and n == 1,
        'a directory that fails its check is refused on every use, '
        'checked once', [got, f'{n} refusals logged'])


def dir_check_killable(work, mnt, store):
    img = os.path.join(work, 'big.img')
    big_dir_image(img, 1 << 20)
    vmtap.mount_composefs(img, mnt, 'basedir=' + store)
    pid = os.fork()
    if pid == 0:
        try:
            os.listdir(mnt)
        finally:
            os._exit(0)
    time.sleep(0.5)
    t0 = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    waited = time.monotonic() - t0
    t0 = time.monotonic()
    got = try_call(os.listdir, mnt)
    full = time.monotonic() - t0
    vmtap.umount(mnt)
    note = (f'gone {waited:.2f} s after SIGKILL; a whole check took '
            f'{full:.2f} s and gave {got}')
    print('# ' + note)
    tap(waited < 1.0 and got == 'EUCLEAN',
        'SIGKILL stops the check of a directory of 2^20 entries', [note])


def names_checked_on_reread(mkcfs, work, mnt, store):
    dump, img = os.path.join(work, 'names.dump'), os.path.join(work, 'n.img')
    with open(dump, 'w') as f:
        f.write('/ 4096 40755 2 0 0 0 0 - - -\n'
                '/aaaa 0 100644 1 0 0 0 0 - - -\n'
                '/bbbb 0 100644 1 0 0 0 0 - - -\n')
    with open(img, 'wb') as out:
        subprocess.run([mkcfs, dump, '-'], stdout=out, check=True)
    vmtap.mount_composefs(img, mnt, 'basedir=' + store)
    first = sorted(os.listdir(mnt))
    with open(img, 'r+b') as f:
        data = f.read()
        f.seek(data.rindex(b'bbbb'))
        f.write(b'b/bb')
    try:
        got = sorted(os.listdir(mnt))
    except OSError as e:
        got = errname(e.errno)
    vmtap.umount(mnt)
    tap(first == ['aaaa', 'bbbb'] and got == 'EUCLEAN',
        "a name rewritten with '/' in the mounted image file: EUCLEAN",
        [first, got])


def empty_maps(image, mnt, store):
    """mmap(2) itself: Python's mmap refuses an empty file before it."""
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long]
    vmtap.mount_composefs(image, mnt, 'basedir=' + store)
    with open(os.path.join(mnt, 'empty'), 'rb') as f:
        addr = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED,
                         f.fileno(), 0)
        got = errname(ctypes.get_errno()) if addr in (None, 2**64 - 1) \
            else 'ok'
        if got == 'ok':
            libc.munmap(ctypes.c_void_p(addr), 4096)
    vmtap.umount(mnt)
    tap(got == 'ok', 'mmap of an empty file succeeds', [got])


class Blocked(Exception):
    pass


def alarm(*_):
    raise Blocked()


def mount_refused(work, image, mnt, store):
    got = vmtap.mount_composefs(image, mnt, '')
    if not got:
        vmtap.umount(mnt)
    tap(got == errno.EINVAL, 'a mount without basedir= is refused',
        [errname(got) if got else 'mounted'])
    fifo = os.path.join(work, 'fifo')
    os.mkfifo(fifo)
    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(5)
    try:
        got = errname(vmtap.mount_composefs(fifo, mnt, 'basedir=' + store))
    except Blocked:
        got = 'blocked'
    signal.alarm(0)
    tap(got == 'EINVAL', 'a FIFO as image is refused without blocking',
        [got])


def fsconfig(fd, cmd, key=None, value=None):
    r = libc.syscall(SYS_FSCONFIG, fd, cmd,
                     key and ctypes.c_char_p(key.encode()),
                     value and ctypes.c_char_p(value.encode()), 0)
    return errname(ctypes.get_errno()) if r < 0 else 'ok'


def digest_kept(work, image, store):
    img = os.path.join(work, 'verity.img')
    shutil.copy(image, img)
    subprocess.run(['fsverity', 'enable', img], check=True)
    dig = subprocess.run(['fsverity', 'measure', img], capture_output=True,
                         text=True, check=True).stdout.split()[0]
    dig = dig.split(':')[1]
    fd = libc.syscall(SYS_FSOPEN, ctypes.c_char_p(b'composefs'), 0)
    if fd < 0:
        tap(False, 'fsopen composefs', [errname(ctypes.get_errno())])
        return
    got = [fsconfig(fd, FSCONFIG_SET_STRING, 'source', img),
           fsconfig(fd, FSCONFIG_SET_STRING, 'basedir', store),
           fsconfig(fd, FSCONFIG_SET_STRING, 'digest', dig),
           fsconfig(fd, FSCONFIG_SET_STRING, 'digest', 'f' * 32 + 'zz' * 16),
           fsconfig(fd, FSCONFIG_CMD_CREATE)]
    os.close(fd)
    tap(got == ['ok', 'ok', 'ok', 'EINVAL', 'ok'],
        'fsconfig: a bad second digest= is refused, the first still mounts',
        [got])


def remount_fixed(image, mnt, store):
    vmtap.mount_composefs(image, mnt, 'basedir=' + store)

    def remount(opts):
        if libc.mount(None, mnt.encode(), None, MS_REMOUNT | MS_RDONLY,
                      opts.encode()):
            return errname(ctypes.get_errno())
        return 'ok'
    got = [remount('verity_check=2'), remount('basedir=/tmp'),
           remount('verity_check=0,basedir=' + store)]
    vmtap.umount(mnt)
    tap(got == ['EINVAL', 'EINVAL', 'ok'],
        'remount refuses other options, accepts the same', [got])


def main():
    mkcfs, image, store, work, mnt = sys.argv[1:6]
    os.makedirs(work, exist_ok=True)
    libc.syscall.restype = ctypes.c_long
    dir_refused_once(work, mnt, store)
    dir_check_killable(work, mnt, store)
    names_checked_on_reread(mkcfs, work, mnt, store)
    empty_maps(image, mnt, store)
    mount_refused(work, image, mnt, store)
    digest_kept(work, image, store)
    remount_fixed(image, mnt, store)
    return vmtap.status()


if __name__ == '__main__':
    vmtap.run_main(main)
