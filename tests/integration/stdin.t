#!/bin/bash
# SPDX-License-Identifier: MIT
# oci2cfs - reads an oci-archive or docker-archive from standard input
# (podman save IMAGE | oci2cfs -): the same manifest bytes and ref as from
# the file; the copy it reads from is a temp file no one else can open
# (nothing appears in TMPDIR, even while it is written) and is gone after;
# a truncated stream, an empty one and a terminal give one line and
# write nothing.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs
require_host_tools python3
build_fixtures

B=$CFS_BIN/oci2cfs
L=$FX/layout
mkdir -p "$TMP/spool"
export TMPDIR=$TMP/spool
archive() { awk -v s="$1" '$1 ~ s { print $1 }' "$FX/archives.list"; }
oa=$(archive 'realistic.oci.tar$')
da=$(archive 'realistic.docker.tar$')
no_image() { [ -z "$(ls -A "$1/images" "$1/refs" 2>/dev/null)" ]; }

for a in "$oa" "$da"; do
	kind=${a##*/}
	"$B" "$a" --store "$TMP/file-$kind" --sync=none -q --no-verity >"$TMP/file.out" ||
		bail "cannot convert $a"
	cat "$a" | "$B" - --store "$TMP/in-$kind" --sync=none -q \
		>"$TMP/in.out" 2>"$TMP/in.err"
	ok $? "$kind piped into oci2cfs -" || diag_file "$TMP/in.err"
	cmp -s "$(head -1 "$TMP/file.out")" "$(head -1 "$TMP/in.out")"
	ok $? "$kind: the same manifest bytes as from the file"
	is "$(cd "$TMP/in-$kind" && find refs | sort)" \
		"$(cd "$TMP/file-$kind" && find refs | sort)" \
		"$kind: the same ref as from the file"
done
is "$(ls -A "$TMP/spool")" "" "nothing left in TMPDIR"

# while standard input is still coming in: the copy has no name
size=$(stat -c %s "$oa")
{
	head -c $((size / 2)) "$oa"
	sleep 1.5
	tail -c +$((size / 2 + 1)) "$oa"
} | "$B" - --store "$TMP/slow" --sync=none -q -o "$TMP/slow.cfs" \
	>/dev/null 2>"$TMP/slow.err" &
pid=$!
sleep 0.7
seen=$(ls -A "$TMP/spool")
wait $pid
ok $? "a slow pipe is read to its end" || diag_file "$TMP/slow.err"
is "$seen" "" "while the copy is written, TMPDIR shows no file"

# --- errors -------------------------------------------------------------------
head -c $((size / 3)) "$oa" | "$B" - --store "$TMP/cut" --sync=none -q \
	>/dev/null 2>"$TMP/cut.err"
st=$?
failed_one_line $st "$TMP/cut.err" "oci2cfs: -: corrupt or truncated" &&
	no_image "$TMP/cut"
ok $? "a truncated archive on stdin: exit $st, one line, nothing written" ||
	diag_file "$TMP/cut.err"
"$B" - --store "$TMP/empty" --sync=none -q </dev/null >/dev/null 2>"$TMP/empty.err"
st=$?
failed_one_line $st "$TMP/empty.err" "oci2cfs: -: not an OCI" &&
	no_image "$TMP/empty"
ok $? "empty stdin: exit $st, one line" || diag_file "$TMP/empty.err"
TMPDIR=$TMP/no-such-dir "$B" - --store "$TMP/nodir" -q <"$oa" >/dev/null \
	2>"$TMP/nodir.err"
st=$?
failed_one_line $st "$TMP/nodir.err" "$TMP/no-such-dir: No such file"
ok $? "a TMPDIR that does not exist: exit $st, one line naming it" ||
	diag_file "$TMP/nodir.err"
if command -v script >/dev/null; then
	script -qec "'$B' - --store '$TMP/tty' -q" /dev/null </dev/null \
		>"$TMP/tty.out" 2>&1
	grep -q "oci2cfs: -: standard input is a terminal" "$TMP/tty.out" &&
		no_image "$TMP/tty"
	ok $? "a terminal on stdin is refused at once" || diag_file "$TMP/tty.out"
else
	skip 1 "no script(1) to make a terminal"
fi

# --- podman save | oci2cfs - ----------------------------------------------------
if [ "$(id -u)" = 0 ] && command -v podman >/dev/null && command -v skopeo >/dev/null; then
	. "$TOP/scripts/podman-conf.sh"
	podman_private_conf "$TMP/pconf" "$TMP/graph" "$TMP/run" ||
		bail "podman conf"
	at_exit "umount -R '$TMP/graph/overlay' 2>/dev/null"
	skopeo --insecure-policy copy -q "oci:$L:shared-a" \
		containers-storage:cfs-app >"$TMP/cs.log" 2>&1 ||
		{ diag_file "$TMP/cs.log"; bail "skopeo copy to storage"; }
	"$B" "$L" --ref shared-a -o "$TMP/want.cfs" --store "$TMP/ref" \
		--sync=none -q --no-verity >/dev/null || bail "cannot convert shared-a"
	for fmt in docker-archive oci-archive; do
		podman save -q --format "$fmt" cfs-app 2>"$TMP/save.err" |
			"$B" - --store "$TMP/ps-$fmt" --sync=none -q \
				-o "$TMP/ps-$fmt.cfs" >/dev/null 2>"$TMP/ps.err"
		ok $? "podman save --format $fmt | oci2cfs -" ||
			{ diag_file "$TMP/save.err"; diag_file "$TMP/ps.err"; }
		cmp -s "$TMP/want.cfs" "$TMP/ps-$fmt.cfs"
		ok $? "$fmt: the manifest of the layout's image"
	done
else
	skip 4 "podman save needs root, podman and skopeo"
fi

done_testing
