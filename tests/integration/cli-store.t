#!/bin/bash
# SPDX-License-Identifier: MIT
# A store knows it is one: the .cfs-store marker with its layout version,
# made when a store is first written; gc, fsck --repair and rm refuse a
# directory without it and touch nothing. A read-only store can be
# inspected (ls, df, fsck, gc --dry-run), exit codes 0/1/2, and waiting
# for the store lock says so.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs cfs-store mkcfs cfs-podman
require_root "fixtures are built as root; read-only bind mounts"
require_host_tools python3 skopeo flock unshare
if [ -z "${CLI_IN_NAMESPACE:-}" ]; then
	CLI_IN_NAMESPACE=1 exec unshare -m --propagation private "$0" "$@"
fi
build_fixtures
plan 23

L=$FX/layout
CS=$CFS_BIN/cfs-store

# --- the marker --------------------------------------------------------
S=$TMP/s
convert_fixture "$S" shared-a
is "$(cat "$S/.cfs-store" 2>&1)" "cfs-store layout 1" \
	"oci2cfs makes a store with the marker and its layout version"
mkdir -p "$TMP/src" && echo hi >"$TMP/src/f"
"$CFS_BIN/mkcfs" --digest-store "$TMP/m" "$TMP/src" "$TMP/m.cfs" &&
	[ "$(cat "$TMP/m/.cfs-store")" = "cfs-store layout 1" ]
ok $? "so does mkcfs --digest-store"

# Any directory with an object-named file and other files.
D=$TMP/d
mkdir -p "$D/ab" "$D/images"
obj=ab/$(printf 'c%.0s' $(seq 62))
echo not an object >"$D/$obj"
echo notes >"$D/notes"
(cd "$D" && find . | sort) >"$TMP/d.before"
for c in "gc:gc" "fsck --repair:fsck --repair" "rm foo:rm"; do
	run "$CS" ${c%%:*} -s "$D"
	is "$st:$err" "1:cfs-store: $D: not a cfs store (no .cfs-store); \
${c#*:} leaves it alone. A store is marked when oci2cfs or \
mkcfs --digest-store first writes to it" \
		"${c%%:*} on an unmarked directory: refused"
done
run "$CS" gc --dry-run --store "$D"
(cd "$D" && find . | sort) >"$TMP/d.after"
diff "$TMP/d.before" "$TMP/d.after" >/dev/null
ok $? "nothing in the directory was touched, removed or moved"

# A store made before the marker: images/ and .lock. gc marks and runs.
O=$TMP/old
convert_fixture "$O" shared-a && rm "$O/.cfs-store"
run "$CS" gc -s "$O"
[ "$st" = 0 ] && [ "$(cat "$O/.cfs-store")" = "cfs-store layout 1" ]
ok $? "gc on a store made before the marker (images/, .lock) marks it"

# A newer layout is refused by every command, by name.
echo "cfs-store layout 2" >"$S/.cfs-store"
bad=
for c in ls df fsck gc "rm shared-a"; do
	run "$CS" -s "$S" $c
	[ "$st:$err" = "1:cfs-store: $S/.cfs-store: store layout 2 is newer \
than this cfs reads (1): use a newer cfs" ] || bad="$bad $c($st)"
done
is "$bad" "" "a store of a newer layout is refused with a clear message"
run "$CFS_BIN/oci2cfs" "$L" --ref shared-b --store "$S" -q --sync=none
[ "$st" != 0 ] && [ ! -e "$S/refs/shared-b" ]
ok $? "and oci2cfs does not write into it"
run "$CFS_BIN/cfs-podman" add shared-a -s "$S"
is "$st:$err" "1:cfs-podman: shared-a: $S/.cfs-store: store layout 2 is \
newer than this cfs reads (1): use a newer cfs" \
	"nor cfs-podman add (the store lock refuses it)"
[ ! -e "$S/podman" ]
ok $? "which leaves nothing in the store"
echo "garbage" >"$S/.cfs-store"
run "$CS" -s "$S" gc
is "$st:$err" "1:cfs-store: $S/.cfs-store: not a cfs store marker" \
	"a marker that is not one is refused"
rm "$S/.cfs-store"
ln -s /dev/zero "$S/.cfs-store"
run "$CS" -s "$S" ls
is "$st:$err" "1:cfs-store: $S/.cfs-store: not a cfs store marker" \
	"a marker that is a symlink is refused, not followed"
rm "$S/.cfs-store"
echo "cfs-store layout 1" >"$S/.cfs-store"

# --- a read-only store -------------------------------------------------
R=$TMP/ro
mkdir -p "$R"
rm -f "$S/.lock"
mount --bind "$S" "$R" && mount -o remount,bind,ro "$R"
ok $? "the store bind-mounted read-only (no .lock in it)"
for c in ls df fsck "gc --dry-run"; do
	run "$CS" -s "$R" $c
	is "$st:$err" "0:" "cfs-store $c on a read-only store: exit 0"
done
umount "$R"
convert_fixture "$S" shared-b # makes .lock
mount --bind "$S" "$R" && mount -o remount,bind,ro "$R"
run "$CS" -s "$R" fsck
is "$st:$err" "0:" "fsck on a read-only store with its .lock: exit 0"
umount "$R"

# --- exit codes: 1 failure, 2 usage ------------------------------------
run "$CS" -s "$TMP/nonexistent" ls
is "$st" 1 "a store that cannot be read: exit 1 (failure), not 2"
F=$TMP/f
convert_fixture "$F" shared-a && mv "$F/images" "$F/images.x" &&
	echo >"$F/images"
run "$CS" -s "$F" fsck
is "$st:$err" "1:cfs-store: fsck: $F/images: Not a directory" \
	"fsck that cannot read the store: exit 1, not 2"
run "$CS" -s "$S" ls --bogus
is "$st" 2 "a usage error: exit 2"

# --- waiting for the lock says so --------------------------------------
flock -x "$S/.lock" -c "touch '$TMP/held'; sleep 2" &
for _ in $(seq 100); do [ -e "$TMP/held" ] && break; sleep 0.1; done
run "$CS" -s "$S" gc --dry-run
wait
case $err in
"cfs-store: waiting for the store lock $S/.lock") r=$st ;;
*) r=1 ;;
esac
ok $r "gc waiting for the store lock says so, then runs"
