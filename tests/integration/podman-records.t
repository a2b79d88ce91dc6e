#!/bin/bash
# SPDX-License-Identifier: MIT
# cfs-podman check/sync and cfs-store fsck [--repair] run one check of the
# podman records: for each kind of damage (a record naming a manifest that
# does not exist, a manifest removed behind podman's back, a managed mount
# gone, a mountpoint left without a record, a broken images.json) both
# tools report the same findings in the same words, cfs-podman sync and
# cfs-store fsck --repair each repair it, and then both are clean; a record
# naming another image's manifest, or a path with a newline, is reported
# alike (escaped, one line). Mounts go through a fake mount helper (a bind
# mount of a tree), in a private mount namespace; podman is not run.
. "$(dirname "$0")/lib.sh"

require_root "bind mounts in a private mount namespace"
require_host_tools unshare python3
require_cfs_tools oci2cfs cfs-podman cfs-store
if [ -z "${PODMAN_RECORDS_T_IN_NAMESPACE:-}" ]; then
	PODMAN_RECORDS_T_IN_NAMESPACE=1 exec unshare -m --propagation private \
		"$0" "$@"
fi
build_fixtures
plan 57

L=$FX/layout
S=$TMP/store
AIS=$S/podman
CP=$CFS_BIN/cfs-podman
CS=$CFS_BIN/cfs-store
fake_podman_mounts "$AIS"

convert() { # TAG
	"$CFS_BIN/oci2cfs" "$L" --ref "$1" --store "$S" -q --sync=none \
		>"$TMP/conv.log" 2>&1 || {
		diag_file "$TMP/conv.log"
		bail "oci2cfs $1 failed"
	}
}
convert shared-a
convert shared-b
A=$(config_hex "$L" shared-a)
B=$(config_hex "$L" shared-b)

register() { # TAG: convert (again) and add it, mounted through the helper
	convert "$1"
	"$CP" --store "$S" add "$1" >/dev/null 2>"$TMP/err" ||
		{ diag_file "$TMP/err"; bail "cfs-podman add $1 failed"; }
}
register shared-a
register shared-b

# The one form of an image id in JSON: bare hex, in every tool.
ids() { # TOOL ARGS...: the ids its JSON lists, sorted, on one line
	"$@" | python3 -c 'import json, sys
print(" ".join(sorted(i["id"] for i in json.load(sys.stdin))))'
}
is "$(ids "$CP" --store "$S" list --json)" "$(ids "$CS" --store "$S" ls --json)" \
	"cfs-podman list --json and cfs-store ls --json give the same ids"
is "$(ids "$CS" --store "$S" ls --json)" "$(printf '%s\n' "$A" "$B" | sort | tr '\n' ' ' | sed 's/ $//')" \
	"... the config digests in bare hex"

# both_report NAME PATTERN: cfs-podman check and cfs-store fsck both fail,
# cfs-podman check has a line matching PATTERN, and fsck's podman findings
# are exactly cfs-podman check's lines, "podman: " in front.
both_report() {
	"$CP" --store "$S" check >"$TMP/check" 2>&1
	local st1=$?
	"$CS" --store "$S" fsck >"$TMP/fsck" 2>&1
	local st2=$?

	sed 's/^/podman: /' "$TMP/check" >"$TMP/check.podman"
	grep '^podman: ' "$TMP/fsck" >"$TMP/fsck.podman"
	if [ "$st1" -eq 1 ] && [ "$st2" -eq 1 ] &&
		grep -q -- "$2" "$TMP/check" &&
		cmp -s "$TMP/check.podman" "$TMP/fsck.podman"; then
		ok 0 "$1: check and fsck report it, in the same words"
	else
		ok 1 "$1: check and fsck report it, in the same words"
		diag "check ($st1):"
		diag_file "$TMP/check"
		diag "fsck ($st2):"
		diag_file "$TMP/fsck"
	fi
}

# both_clean NAME: cfs-podman check and cfs-store fsck find nothing.
both_clean() {
	"$CP" --store "$S" check >"$TMP/check" 2>&1
	local st1=$?
	"$CS" --store "$S" fsck >"$TMP/fsck" 2>&1
	local st2=$?

	if [ "$st1" -eq 0 ] && [ ! -s "$TMP/check" ] && [ "$st2" -eq 0 ]; then
		ok 0 "$1: then check and fsck are clean"
	else
		ok 1 "$1: then check and fsck are clean"
		diag_file "$TMP/check"
		diag_file "$TMP/fsck"
	fi
}

# repair_with TOOL NAME: cfs-podman sync, or cfs-store fsck --repair; every
# podman finding is said to be repaired.
repair_with() {
	if [ "$1" = sync ]; then
		"$CP" --store "$S" sync >"$TMP/repair" 2>&1
		local st=$?
		grep -v ': repaired$' "$TMP/repair" >"$TMP/unrepaired"
		[ "$st" -eq 0 ] && [ -s "$TMP/repair" ] && [ ! -s "$TMP/unrepaired" ]
	else
		"$CS" --store "$S" fsck --repair >"$TMP/repair" 2>&1
		grep '^podman: ' "$TMP/repair" >"$TMP/podman-lines"
		grep -v ' \[repair: repaired\]$' "$TMP/podman-lines" \
			>"$TMP/unrepaired"
		[ -s "$TMP/podman-lines" ] && [ ! -s "$TMP/unrepaired" ]
	fi
	ok $? "$2: $1 repairs it" || diag_file "$TMP/repair"
}

set_manifest() { # ID PATH: the record's cfs metadata names PATH
	python3 - "$AIS/overlay-images/images.json" "$1" "$2" <<'EOF'
import json, sys
p, id, path = sys.argv[1:]
imgs = json.load(open(p))
for i in imgs:
    if i["id"] == id:
        m = json.loads(i["metadata"])
        m["cfs"]["manifest"] = path
        i["metadata"] = json.dumps(m)
json.dump(imgs, open(p, "w"))
EOF
}

both_clean "registered images"

# --- a hostile path in a record: one escaped line from both tools
set_manifest "$A" "$S/images/no
such.cfs"
both_report "a manifest path with a newline" \
	"^image ${A:0:12}: manifest $S/images/no\\\\x0asuch.cfs is gone$"
set_manifest "$A" "$S/images/$A.cfs"

for tool in sync fsck; do
	# --- a record naming a manifest that does not exist
	set_manifest "$A" "$S/images/no-such.cfs"
	both_report "$tool: record naming a missing manifest" \
		"^image ${A:0:12}: manifest $S/images/no-such.cfs is gone$"
	repair_with $tool "record naming a missing manifest"
	! mountpoint -q "$AIS/mnt/$A" && [ ! -e "$AIS/overlay-images/$A" ]
	ok $? "$tool: ... its image is unmounted and unregistered"
	both_clean "$tool: record naming a missing manifest"
	register shared-a

	# --- a record naming another image's manifest: reported, not touched
	set_manifest "$A" "$S/images/$B.cfs"
	both_report "$tool: record naming another image's manifest" \
		"^image ${A:0:12}: manifest $S/images/$B.cfs is image ${B:0:12}$"
	set_manifest "$A" "$S/images/$A.cfs"

	# --- the manifest removed behind podman's back (not cfs-store rm)
	rm "$S/images/$A".*
	both_report "$tool: manifest removed behind podman's back" \
		"^image ${A:0:12}: manifest $S/images/$A.cfs is gone$"
	repair_with $tool "manifest removed behind podman's back"
	rm -f "$S/refs/shared-a" # fsck --repair removes it as a dangling ref
	both_clean "$tool: manifest removed behind podman's back"
	register shared-a

	# --- a managed mount gone
	umount "$AIS/mnt/$B"
	both_report "$tool: managed mount gone" \
		"^image ${B:0:12}: not mounted at $AIS/mnt/$B$"
	repair_with $tool "managed mount gone"
	mountpoint -q "$AIS/mnt/$B"
	ok $? "$tool: ... mounted again"
	both_clean "$tool: managed mount gone"

	# --- a mountpoint left without a record
	stale=$AIS/mnt/$(printf 'ef%.0s' {1..32})
	mkdir "$stale" && mount --bind "$TMP/tree" "$stale"
	both_report "$tool: stale mountpoint" \
		"^$stale: mountpoint of no registered image$"
	repair_with $tool "stale mountpoint"
	[ ! -e "$stale" ]
	ok $? "$tool: ... unmounted and removed"
	both_clean "$tool: stale mountpoint"

	# --- a broken images.json: moved aside, the images unregistered
	cp "$AIS/overlay-images/images.json" "$TMP/images.good"
	head -c 20 "$TMP/images.good" >"$AIS/overlay-images/images.json"
	both_report "$tool: broken images.json" \
		"^$AIS/overlay-images/images.json: not a valid JSON array$"
	repair_with $tool "broken images.json"
	# the second time, the first one's evidence stays
	aside=$AIS/overlay-images/images.json.damaged
	[ $tool = fsck ] && aside=$aside.1
	cmp -s "$aside" <(head -c 20 "$TMP/images.good") &&
		[ "$(cat "$AIS/overlay-images/images.json")" = "[]" ] &&
		! mountpoint -q "$AIS/mnt/$A" && ! mountpoint -q "$AIS/mnt/$B"
	ok $? "$tool: ... kept aside, records empty, mounts released"
	both_clean "$tool: broken images.json"
	register shared-a
	register shared-b
done

# --- cfs-store rm of an image podman uses; cfs-podman remove --purge
"$CS" --store "$S" rm shared-b 2>"$TMP/err"
ok $(($? != 1)) "cfs-store rm refuses an image registered with podman"
grep -q "registered with podman" "$TMP/err"
ok $? "... and says why"
"$CP" --store "$S" remove --purge shared-b >/dev/null 2>"$TMP/err" &&
	[ ! -e "$S/images/$B.cfs" ] && ! mountpoint -q "$AIS/mnt/$B"
ok $? "cfs-podman remove --purge unregisters and removes it" ||
	diag_file "$TMP/err"
both_clean "after remove --purge"

# --- oci2cfs --podman whose registration fails leaves the store as it was
# (oci2cfs(1): nothing is written on error): the mount helper fails.
state() { # the store's manifests, refs (with targets) and podman's mnt/
	(cd "$S" && find images refs podman/mnt -printf '%p %l\n' | sort)
}
podman_fails() { # NAME TAG: oci2cfs --podman TAG fails, one line, no change
	state >"$TMP/state.before"
	CFS_MOUNT_HELPER=/bin/false "$CFS_BIN/oci2cfs" "$L" --ref "$2" \
		--store "$S" -q --sync=none --podman >/dev/null 2>"$TMP/err"
	local st=$?
	[ "$st" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ]
	ok $? "$1: oci2cfs --podman fails with one line" ||
		{ diag "status $st"; diag_file "$TMP/err"; }
	state | diff "$TMP/state.before" - >"$TMP/state.diff"
	ok $? "$1: ... and leaves manifests, refs and mnt/ as they were" ||
		diag_file "$TMP/state.diff"
	both_clean "$1"
}
"$CS" --store "$S" gc >/dev/null
podman_fails "a new image" shared-b
ln -sfn "../images/$A.cfs" "$S/refs/shared-b"
podman_fails "a ref that named another image" shared-b
rm "$S/refs/shared-b"
convert shared-b
podman_fails "an image already converted" shared-b
