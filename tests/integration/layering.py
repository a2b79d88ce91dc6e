#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The library's layering, for layering.t.

  layering.py cycles OBJDIR SRC...   files that call each other round in a
                                     circle (from nm: who defines what
                                     another file needs), one circle a line
  layering.py includes SRC...        #include lines that break a room's
                                     rules (below), one a line
"""
import os
import re
import subprocess
import sys

# The base, bottom up: what each file may include of ours (besides its own
# header). Nothing of the base includes a subsystem's header.
BASE = {
    "mem": set(),
    "escape": {"cfs/mem.h"},
    "error": {"cfs/escape.h"},
    "verity-ioctl": set(),
    "json": set(),
    "file-io": {"cfs/error.h", "cfs/mem.h", "cfs/verity-ioctl.h"},
}
BASE_HEADERS = {"cfs/%s.h" % b for b in BASE} | {"cfs/util.h",
                                                  "cfs/tool-options.h"}
# Rooms with private headers, and the rooms each may include of them.
ROOMS = {"containers": set(), "oci": {"containers"},
         "podman": {"containers"}, "store": set()}
# The inventory (who uses what a store holds) sits above the rooms it asks.
ABOVE_ROOMS = {"cfs/inventory.h"}
# The store room uses only the base and these public headers (its own, the
# name rules podman shares, and the base's other helpers).
STORE_USES = {"cfs/store.h", "cfs/store-layout.h", "cfs/store-undo.h",
              "cfs/image-name.h", "cfs/hashtab.h", "cfs/pool.h",
              "cfs/verity.h", "cfs/escape.h"}


def stem(src):
    return os.path.splitext(os.path.relpath(src, "src/lib"))[0]


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    defs, needs = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBRCV":
            defs.add(f[2])
        elif len(f) == 2 and f[0] == "U":
            needs.add(f[1])
    return defs, needs


def circles(graph):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def cmd_cycles(objdir, srcs):
    owner, needs = {}, {}
    for src in srcs:
        defs, needs[stem(src)] = symbols(
            os.path.join(objdir, stem(src) + ".o"))
        for d in defs:
            owner[d] = stem(src)
    graph = {f: {owner[s] for s in n if s in owner} - {f}
             for f, n in needs.items()}
    for c in circles(graph):
        print(" <-> ".join(c))


def includes(src):
    with open(src) as f:
        return re.findall(r'^#include "([^"]+)"', f.read(), re.M)


def cmd_includes(srcs):
    for src in srcs:
        name, room = stem(src), stem(src).split("/")[0]
        for inc in includes(src):
            if name in BASE:
                ok = inc in BASE[name] or inc == "cfs/%s.h" % name
            elif room in ROOMS and "/" in name:
                other = inc.split("/")[0]
                # its own private headers, the public ones, the library's
                # private ones (src/lib/*.h) and the rooms it may use
                ok = (other in ("cfs", room) or other in ROOMS[room] or
                      "/" not in inc and (
                          os.path.exists(os.path.join(os.path.dirname(src),
                                                      inc)) or
                          os.path.exists(os.path.join("src/lib", inc))))
                if room == "containers":
                    ok = ok and (other == room or inc in BASE_HEADERS)
                ok = ok and inc not in ABOVE_ROOMS
                if room == "store":
                    ok = ok and (other == room or "/" not in inc or
                                 inc in BASE_HEADERS | STORE_USES)
            else:
                continue
            if not ok:
                print("%s: includes %s" % (src, inc))


if __name__ == "__main__":
    if sys.argv[1] == "cycles":
        cmd_cycles(sys.argv[2], sys.argv[3:])
    else:
        cmd_includes(sys.argv[2:])
