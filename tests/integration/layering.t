#!/bin/bash
# SPDX-License-Identifier: MIT
# The library's layering (issue #33): no two files of src/lib/ call each
# other round in a circle (read from the objects with nm), the base
# includes only what is below it, and oci/, podman/ and containers/
# include no other room's private headers but those their own headers
# allow, and store/internal.h stays in its room (layering.py has the rules).
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs
require_host_tools nm python3
plan 4

cd "$TOP"
objdir=$CFS_BIN/../obj/lib
srcs=(src/lib/*.c src/lib/*/*.c)
check=$TOP/tests/integration/layering.py

circles=$(python3 "$check" cycles "$objdir" "${srcs[@]}")
is "$circles" "" "no circle of calls between library files"

bad=$(python3 "$check" includes "${srcs[@]}")
is "$(echo "$bad" | grep -E '^src/lib/[a-z-]+\.c:')" "" \
	"the base (errors, memory, escaping, file I/O, ioctls) includes only what is below it"
is "$(echo "$bad" | grep -E '^src/lib/[a-z]+/')" "" \
	"oci/, podman/, containers/ and store/ include no other room's private headers, nor the inventory above them"
# The store's private header: its own files and their unit tests only.
is "$(grep -rl 'store/internal\.h' src tests/unit | grep -v '^src/lib/store/' |
	grep -Ev '^tests/unit/test-(store|writeback)\.c$')" "" \
	"only the store room and its unit tests include store/internal.h"
