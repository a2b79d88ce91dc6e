"""What the in-VM Python checks share: TAP lines and raw mount(2).

The checks print unnumbered TAP lines (tests/vm/suite.sh numbers them) and
exit 1 when one failed.
"""
import ctypes
import ctypes.util
import os
import sys

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong,
                                               ctypes.c_char_p]
MS_RDONLY = 1
failed = 0


def tap(cond, name, diag=(), limit=40):
    """One TAP line; on failure up to LIMIT diagnostic lines."""
    global failed
    print(("ok" if cond else "not ok") + " - " + name)
    if not cond:
        failed += 1
        for d in list(diag)[:limit]:
            print("#   " + str(d).rstrip("\n"))
    sys.stdout.flush()


def status():
    return 1 if failed else 0


def run_main(main):
    """Exit with main()'s status; an exception it lets out is a not-ok,
    so that a script that stops early is never a shorter pass."""
    try:
        sys.exit(main())
    except Exception as e:  # any, reported with its traceback
        import traceback
        tap(False, '%s stopped early: %r' % (os.path.basename(sys.argv[0]), e),
            traceback.format_exc().splitlines())
        sys.exit(1)


def mount_composefs(image, target, opts):
    """mount(2) of IMAGE read-only on TARGET; 0 or the errno."""
    if libc.mount(image.encode(), target.encode(), b"composefs", MS_RDONLY,
                  opts.encode()):
        return ctypes.get_errno()
    return 0


def umount(target):
    if libc.umount2(target.encode(), 0):
        e = ctypes.get_errno()
        raise OSError(e, "umount %s: %s" % (target, os.strerror(e)))
