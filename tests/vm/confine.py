#!/usr/bin/python3
"""Backing files confined beneath the store (composefs(5)); prints TAP.

  confine.py MKCFS WORKDIR MNT

In a fresh store under WORKDIR, a manifest names backing files that are a
symlink, a path through a symlinked fanout directory, a FIFO, a file on
another filesystem mounted below the store, an object of another size
than the manifest says, and another image's manifest: each open must fail
with EIO (the FIFO without blocking), while a real object reads.  With
backing_paths=any the manifest's path reads, the rest still fail.  Then
the store is made 0700 and a non-root user reads a file through the
mount (backing files are opened with the mounter's credentials), though
not the object in the store itself, nor a file the image makes 0600.
"""
import errno
import hashlib
import os
import signal
import subprocess
import sys

import vmtap
from vmtap import libc, tap

CONTENT = b'confined\n'
NOBODY = 65534


def obj(label):
    """A store object name for LABEL: xx/ + 62 lower-case hex digits."""
    h = hashlib.sha256(label.encode()).hexdigest()
    return h[:2] + '/' + h[2:]


def put(store, name, data):
    path = os.path.join(store, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(data)
    return path


def make_store(store):
    """The store's entries; returns {file in the image: backing path}."""
    names = {n: obj(n) for n in
             ('good', 'link', 'dirlink', 'fifo', 'mount', 'size')}
    put(store, names['good'], CONTENT)
    os.makedirs(os.path.dirname(os.path.join(store, names['link'])),
                exist_ok=True)
    os.symlink('../' + names['good'], os.path.join(store, names['link']))
    # a fanout directory that is a symlink to the good object's
    good_dir, good_base = names['good'].split('/')
    link_dir = names['dirlink'].split('/')[0]
    os.symlink(good_dir, os.path.join(store, link_dir))
    names['dirlink'] = link_dir + '/' + good_base
    fifo = os.path.join(store, names['fifo'])
    os.makedirs(os.path.dirname(fifo), exist_ok=True)
    os.mkfifo(fifo)
    mdir = os.path.join(store, names['mount'].split('/')[0])
    os.makedirs(mdir, exist_ok=True)
    if libc.mount(b'tmpfs', mdir.encode(), b'tmpfs', 0, None):
        raise OSError(0, 'mount tmpfs on ' + mdir)
    put(store, names['mount'], CONTENT)
    put(store, names['size'], CONTENT * 100)
    put(store, 'images/other.cfs', CONTENT)
    names['manifest'] = 'images/other.cfs'
    return names


def make_image(mkcfs, names, image):
    lines = ['/ 4096 40755 2 0 0 0 0 - - -']
    for f in sorted(names):
        lines.append(f'/{f} {len(CONTENT)} 100644 1 0 0 0 0 {names[f]} - -')
    good = names['good']
    lines.append(f'/secret {len(CONTENT)} 100600 1 0 0 0 0 {good} - -')
    dump = image + '.dump'
    with open(dump, 'w') as d:
        d.write('\n'.join(lines) + '\n')
    with open(image, 'wb') as out:
        subprocess.run([mkcfs, dump, '-'], stdout=out, check=True)


class Blocked(Exception):
    pass


def alarm(*_):
    raise Blocked()


def opens(path):
    """'ok' if PATH opens and reads CONTENT, else the errno's name."""
    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(5)  # a FIFO opened for reading blocks
    try:
        with open(path, 'rb') as f:
            return 'ok' if f.read() == CONTENT else 'wrong content'
    except Blocked:
        return 'blocked'
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    finally:
        signal.alarm(0)


def expect(mnt, image, opts, want, name):
    err = vmtap.mount_composefs(image, mnt, opts)
    if err:
        tap(False, f'{name} (mount -o {opts}: {os.strerror(err)})')
        return
    try:
        got = {f: opens(os.path.join(mnt, f)) for f in sorted(want)}
    finally:
        vmtap.umount(mnt)
    tap(got == want, name, [f'want {want}', f'got  {got}'])


def as_nobody(path):
    """Open PATH as uid/gid 65534 in a child; 'ok' or the errno's name."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
        os.write(w, opens(path).encode())
        os._exit(0)
    os.close(w)
    got = os.read(r, 100).decode()
    os.close(r)
    os.waitpid(pid, 0)
    return got


def main():
    mkcfs, work, mnt = sys.argv[1:4]
    store, image = os.path.join(work, 'store'), os.path.join(work, 'img')
    os.makedirs(store)
    names = make_store(store)
    make_image(mkcfs, names, image)
    refused = {f: 'EIO' for f in names if f != 'good'}
    base = 'basedir=' + store
    try:
        expect(mnt, image, base, dict(refused, good='ok'),
               'confine: a symlink, a symlinked fanout directory, a FIFO, '
               'a file on another mount, an object of another size and a '
               'manifest are refused (EIO); an object reads')
        expect(mnt, image, base + ',backing_paths=any',
               dict(refused, good='ok', manifest='ok'),
               'confine: backing_paths=any reads a manifest path, refuses '
               'the rest')
        os.chmod(store, 0o700)
        vmtap.mount_composefs(image, mnt, base)
        try:
            tap(as_nobody(os.path.join(store, names['good'])) == 'EACCES',
                'confine: a 0700 store is closed to a non-root user')
            got = as_nobody(os.path.join(mnt, 'good'))
            tap(got == 'ok', 'confine: a non-root user reads a file through '
                'the mount of a 0700 store', [got])
            got = as_nobody(os.path.join(mnt, 'secret'))
            tap(got == 'EACCES', 'confine: a 0600 file of the image is not '
                'readable by another user through the mount', [got])
        finally:
            vmtap.umount(mnt)
    finally:
        libc.umount2(os.path.join(store, names['mount'].split('/')[0])
                     .encode(), 0)
    return vmtap.status()


if __name__ == '__main__':
    vmtap.run_main(main)
