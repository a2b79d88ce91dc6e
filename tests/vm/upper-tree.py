#!/usr/bin/python3
"""The image tree of the VM section "upper": upper-tree.py DIR.

What copy-up must get right: files three directories deep, owners other
than root, a setuid file, a file with security.capability, user.* and
trusted.* xattrs, a hard-linked pair, fixed times.
"""
import os
import sys

root = sys.argv[1]
T = 1500000000 * 10**9  # every mtime, so that listings compare


def write(path, data, mode=0o644, uid=0, gid=0):
    os.makedirs(os.path.dirname(f'{root}/{path}'), exist_ok=True)
    with open(f'{root}/{path}', 'wb') as f:
        f.write(data)
    os.chmod(f'{root}/{path}', mode)
    os.chown(f'{root}/{path}', uid, gid)


os.makedirs(root)
write('usr/share/doc/README', b'original readme\n' * 200, 0o644, 101, 102)
write('usr/share/doc/NEWS', b'news\n')
write('etc/conf.d/a.conf', b'a=1\n', 0o640, 0, 42)
write('etc/meta/chmod-me', b'chmod\n' * 30, 0o644, 1000, 1000)
write('etc/meta/chown-me', b'chown\n' * 30, 0o644, 1000, 1000)
write('etc/meta/touch-me', b'touch\n' * 30, 0o644, 1000, 1000)
write('var/lib/gone/victim', b'to be deleted\n')
write('var/lib/gone/stays', b'stays\n')
write('opt/olddir/sub/file', b'in a renamed dir\n' * 10, 0o600, 7, 8)
write('opt/olddir/top', b'top\n')
write('bin/suid-tool', b'#!/bin/sh\necho suid\n' * 10, 0o4755)
write('bin/suid-written', b'#!/bin/sh\necho suid\n' * 11, 0o4755)
write('bin/capped', b'#!/bin/sh\necho cap\n' * 10, 0o755)
write('bin/capped-written', b'#!/bin/sh\necho cap\n' * 11, 0o755)
write('etc/xattrs', b'with xattrs\n' * 10, 0o644, 55, 66)
write('etc/hl-a', b'hard-linked pair\n' * 10, 0o644, 3, 4)
os.link(f'{root}/etc/hl-a', f'{root}/etc/hl-b')
# cap_net_bind_service+ep, VFS_CAP_REVISION_2
cap = bytes.fromhex('0100000200040000000000000000000000000000')
os.setxattr(f'{root}/bin/capped', 'security.capability', cap)
os.setxattr(f'{root}/bin/capped-written', 'security.capability', cap)
os.setxattr(f'{root}/etc/xattrs', 'user.colour', b'blue')
os.setxattr(f'{root}/etc/xattrs', 'trusted.note', b'\x00trusted\xff')
os.setxattr(f'{root}/etc/meta', 'user.dir', b'on a directory')
os.chown(f'{root}/opt/olddir', 7, 8)
os.chmod(f'{root}/opt/olddir', 0o750)
for d, _, files in os.walk(root, topdown=False):
    for n in files + [d]:
        p = n if n == d else f'{d}/{n}'
        os.utime(p, ns=(T, T), follow_symlinks=False)
