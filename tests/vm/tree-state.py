#!/usr/bin/python3
"""A tree's state, one line per entry, to compare two trees:
tree-state.py DIR.

Path, type and mode, owner, then size and sha256 of a file's content,
a symlink's target or a device number, then every xattr (user.,
trusted., security.) in hex. Times are left out but for regular files
whose mtime is before 2021 (the image's fixed times and touch -m), as
writes set the others to now; directory sizes depend on the upper fs.
"""
import hashlib
import os
import stat
import sys

root = sys.argv[1]
FIXED_BEFORE = 1609459200  # 2021-01-01


def describe(path):
    st = os.lstat(path)
    m = st.st_mode
    out = [oct(m), f'{st.st_uid}:{st.st_gid}']
    if stat.S_ISREG(m):
        with open(path, 'rb') as f:
            out += [str(st.st_size), hashlib.sha256(f.read()).hexdigest()]
        if st.st_mtime < FIXED_BEFORE:
            out.append(f'mtime={st.st_mtime_ns}')
    elif stat.S_ISLNK(m):
        out.append('-> ' + os.readlink(path))
    elif stat.S_ISCHR(m) or stat.S_ISBLK(m):
        out.append(f'rdev={os.major(st.st_rdev)}:{os.minor(st.st_rdev)}')
    for k in sorted(os.listxattr(path, follow_symlinks=False)):
        v = os.getxattr(path, k, follow_symlinks=False)
        out.append(f'{k}={v.hex()}')
    return ' '.join(out)


print('. ' + describe(root))
for d, dirs, files in os.walk(root):
    dirs.sort()
    for n in sorted(dirs + files):
        p = f'{d}/{n}'
        print(os.path.relpath(p, root) + ' ' + describe(p))
