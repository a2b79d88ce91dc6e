#!/usr/bin/python3
"""Make a source tree exercising every composefs feature: mktree.py DIR [SEED]."""
import os
import random
import socket
import sys

root = sys.argv[1]
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)


def write(path, data, mode=0o644, uid=0, gid=0, mtime=None):
    with open(path, 'wb') as f:
        f.write(data)
    os.chmod(path, mode)
    os.chown(path, uid, gid)
    if mtime is not None:
        os.utime(path, ns=(mtime, mtime))


os.makedirs(root)
os.makedirs(f'{root}/etc/deep/er/still')
os.makedirs(f'{root}/many')
os.makedirs(f'{root}/empty-dir')
os.makedirs(f'{root}/sticky')
os.chmod(f'{root}/sticky', 0o1777)

write(f'{root}/empty', b'')
write(f'{root}/one', b'x')
write(f'{root}/small', b'hello composefs\n', 0o600, 1234, 5678,
      1600000000123456789)
write(f'{root}/page', bytes(rng.getrandbits(8) for _ in range(4096)))
write(f'{root}/big', os.urandom(300 * 1024 + 17))
write(f'{root}/suid', b'#!/bin/sh\n', 0o4755)
write(f'{root}/etc/deep/er/still/leaf', b'leaf\n', 0o640, 0, 42)
same = b'shared content\n' * 100
write(f'{root}/etc/copy1', same)
write(f'{root}/etc/copy2', same)
os.link(f'{root}/small', f'{root}/etc/hardlink-to-small')
os.link(f'{root}/small', f'{root}/many/hl2')
for i in range(300):
    write(f'{root}/many/f{i:04d}-{rng.randrange(10**6)}', b'%d\n' % i)
write(f'{root}/' + 'L' * 255, b'long name\n')
write(f'{root}/with space', b'space\n')
write(f'{root}/ünïcödé', b'utf8\n')
os.symlink('small', f'{root}/rel-link')
os.symlink('/etc/passwd', f'{root}/abs-link')
os.symlink('dangling/target', f'{root}/etc/dangling')
os.symlink('x' * 4000, f'{root}/long-link')
os.mkfifo(f'{root}/fifo')
os.mknod(f'{root}/null', 0o20666, os.makedev(1, 3))
os.mknod(f'{root}/loop0', 0o60660, os.makedev(7, 0))
os.mknod(f'{root}/bigdev', 0o20600, os.makedev(259, 70000))
s = socket.socket(socket.AF_UNIX)
s.bind(f'{root}/sock')
s.close()

os.setxattr(f'{root}/small', 'user.foo', b'bar')
os.setxattr(f'{root}/small', 'user.empty', b'')
os.setxattr(f'{root}/small', 'trusted.secret', b'\x00\x01\x02')
os.setxattr(f'{root}/suid', 'security.capability',
            bytes.fromhex('0000000200200000000000000000000000000000'))
os.setxattr(f'{root}/etc', 'user.dir', b'dir xattr')
os.setxattr(f'{root}/big', 'user.big', os.urandom(3000))
os.setxattr(f'{root}/rel-link', 'trusted.on-link', b'link', follow_symlinks=False)
os.utime(f'{root}/etc', ns=(1000000000, 1000000000))
