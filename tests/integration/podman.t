#!/bin/bash
# cfs-podman with the host's podman 4.3: setup, add with --mountpoint (the
# host has no composefs: the tree is a bind mount of the umoci-unpacked
# image, or a fake mount helper bind-mounts it), the store records, podman
# images / image inspect / run (env, working dir, uid, writes going to the
# container's upper dir), remove refused while a container exists,
# duplicate names, and check/sync on a missing mount, a temp file left by
# an interrupted write, a record whose manifest is gone and a dangling
# layer. Podman runs with a private graphroot/runroot under TMP, in a
# private mount namespace with its own /dev/shm (lock manager).
. "$(dirname "$0")/lib.sh"

require_root "podman as root, bind mounts"
require_host_tools podman runc umoci unshare python3
require_cfs_tools oci2cfs cfs-podman cfs-info
if [ -z "${PODMAN_T_IN_NAMESPACE:-}" ]; then
	PODMAN_T_IN_NAMESPACE=1 exec unshare -m --propagation private "$0" "$@"
fi
mount -t tmpfs tmpfs /dev/shm || bail "cannot mount a private /dev/shm"

CP=$CFS_BIN/cfs-podman
S=$TMP/store
AIS=$S/podman
. "$(dirname "$0")/../../scripts/podman-conf.sh"
podman_private_conf "$TMP" "$TMP/graph" "$TMP/run" "$AIS" ||
	bail "cannot write the podman configuration"
at_exit 'podman rm -af >/dev/null 2>&1'

# run CMD... -> $st, $out, $err
run() {
	"$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

# fails NAME MESSAGE: the last run failed with one stderr line holding it.
fails() {
	if [ "$st" -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
		grep -qF -- "$2" "$TMP/err"; then
		ok 0 "$1"
		return
	fi
	ok 1 "$1"
	diag "status $st, stderr:"
	diag_file "$TMP/err"
}

succeeds() { # NAME
	ok "$st" "$1" || { diag_file "$TMP/err"; diag_file "$TMP/out"; }
}

build_fixtures
L=$FX/layout
for tag in realistic shared-a; do
	"$CFS_BIN/oci2cfs" "$L" --ref "$tag" --store "$S" --sync=none -q \
		>"$TMP/conv.log" 2>&1 || {
		diag_file "$TMP/conv.log"
		bail "oci2cfs $tag failed"
	}
done
ID=$(config_hex "$L" realistic)
IDA=$(config_hex "$L" shared-a)
umoci unpack --image "$L:realistic" "$TMP/unpacked" >"$TMP/umoci.log" 2>&1 ||
	{ diag_file "$TMP/umoci.log"; bail "umoci unpack failed"; }
TREE=$TMP/unpacked/rootfs
mkdir -p "$TMP/mnt-real"
mount --bind "$TREE" "$TMP/mnt-real" || bail "bind mount failed"
# the namespace drops its mounts at exit, but TMP is removed before that
at_exit 'findmnt -rn -o TARGET | grep "^$TMP/" | sort -r |
	xargs -r -d "\n" umount -l'

tree_sum() { python3 "$REFDUMP" --normalise "$TREE" | sha256sum; }
SUM0=$(tree_sum)

# --- documentation
missing=$("$CP" --help | grep -o -- '--[a-z][a-z-]*' | sort -u |
	while read -r opt; do
		grep -q -- "$(echo "$opt" | sed 's/-/\\\\-/g')" \
			"$TOP/man/cfs-podman.8" || echo "$opt"
	done)
is "$missing" "" "every cfs-podman option is documented in cfs-podman(8)"

# --- setup
run "$CP" --store "$S" setup
ok $(grep -qxF "additionalimagestores = [\"$AIS\"]" "$TMP/out"; echo $?) \
	"setup prints the additionalimagestores line for STORE/podman"
run "$CP" --store "$S" setup --install "$TMP/new.conf"
succeeds "setup --install creates a missing storage.conf"
python3 - "$TMP/new.conf" "$AIS" <<'EOF'
import sys, tomllib
c = tomllib.load(open(sys.argv[1], "rb"))
assert c["storage"]["options"]["additionalimagestores"] == [sys.argv[2]], c
EOF
ok $? "... which lists the store (parsed as TOML)"
printf '[storage]\ndriver = "overlay"\n# mine\n[storage.options]\nadditionalimagestores = [\n  "/other",\n]\nsize = ""\n' \
	>"$TMP/user.conf"
run "$CP" --store "$S" setup --install "$TMP/user.conf"
python3 - "$TMP/user.conf" "$AIS" <<'EOF'
import sys, tomllib
t = open(sys.argv[1]).read()
c = tomllib.loads(t)
o = c["storage"]["options"]
assert o["additionalimagestores"] == [sys.argv[2], "/other"], o
assert o["size"] == "" and c["storage"]["driver"] == "overlay"
assert "# mine" in t
EOF
ok $? "setup --install merges into an existing array, keeping the rest"
cp "$TMP/user.conf" "$TMP/user.before"
run "$CP" --store "$S" setup --install "$TMP/user.conf"
cmp -s "$TMP/user.conf" "$TMP/user.before" && grep -q "already" "$TMP/out"
ok $? "setup --install again changes nothing"

# --- add with --mountpoint, the records
run "$CP" --store "$S" add realistic --mountpoint "$TMP/mnt-real"
succeeds "add realistic --mountpoint"
is "$out" "$ID" "add prints the image id (the config digest)"
python3 - "$AIS" "$ID" "$L" <<'EOF'
import base64, hashlib, json, os, re, sys
ais, iid, lay = sys.argv[1:]
imgs = json.load(open(ais + "/overlay-images/images.json"))
lays = json.load(open(ais + "/overlay-layers/layers.json"))
img, = [i for i in imgs if i["id"] == iid]
assert img["names"] == ["localhost/realistic:latest"], img["names"]
lay_rec, = [l for l in lays if l["id"] == img["layer"]]
cfg = json.load(open(os.path.join(ais, "overlay-images", iid,
    "=" + base64.b64encode(("sha256:" + iid).encode()).decode())))
assert lay_rec["diff-digest"].startswith("sha256:")
assert lay_rec["diff-digest"] not in cfg["rootfs"]["diff_ids"]
man = open(os.path.join(ais, "overlay-images", iid, "manifest"), "rb").read()
assert img["digest"] == "sha256:" + hashlib.sha256(man).hexdigest()
assert json.loads(man)["config"]["digest"] == "sha256:" + iid
link = open(f"{ais}/overlay/{img['layer']}/link").read()
assert re.fullmatch(r"[A-Z0-9]{26}", link), link
assert os.readlink(f"{ais}/overlay/l/{link}") == f"../{img['layer']}/diff"
for d, _, fs in os.walk(ais):
    for f in fs:
        p = os.path.join(d, f)
        if not os.path.islink(p):
            assert os.stat(p).st_mode & 0o777 == 0o644, p
for lk in ("overlay-images/images.lock", "overlay-layers/layers.lock"):
    assert re.fullmatch(rb"[0-9a-f]{64}", open(f"{ais}/{lk}", "rb").read())
EOF
ok $? "records: names, synthetic diff-digest, manifest, link, l/, 0644, locks"

# --- podman sees and runs it
if ! podman info >"$TMP/info.log" 2>&1; then
	diag_file "$TMP/info.log"
	bail "podman info fails with the test's configuration"
fi
run podman images --format '{{.ID}} {{.Repository}}:{{.Tag}} {{.ReadOnly}}'
is "$out" "${ID:0:12} localhost/realistic:latest true" "podman images lists it"
run podman image inspect --format \
	'{{.Config.Entrypoint}} {{.Config.WorkingDir}} {{.Config.User}} {{.Labels}}' \
	realistic
is "$out" "[/bin/busybox] /root 0:0 map[org.example.fixture:realistic]" \
	"podman image inspect shows the original config"
# The size podman shows: the image's files (the layer's diff-size) and
# its config and manifest, not those two alone.
files=$("$CFS_BIN/cfs-info" dump "$S/images/$ID.cfs" |
	awk '$3 ~ /^10/ { n += $2 } END { print n + 0 }')
run podman image inspect --format '{{.Size}}' realistic
[ "$files" -gt 100000 ] && [ "$out" -ge "$files" ] &&
	[ "$out" -lt $((files + 65536)) ]
ok $? "podman's Size is the image's bytes: $out (its files: $files)"
run podman run --rm --network none realistic
is "$out" "hello from cfs" "podman run runs Entrypoint + Cmd"
run podman run --rm --network none realistic sh -c 'echo $LANG; pwd; id -u'
is "$(echo $out)" "C.UTF-8 /root 0" "podman run honours Env, WorkingDir, User"
run podman run --name writer --network none realistic sh -c \
	'echo new >/etc/motd && rm /etc/group && echo x >/root/new'
succeeds "a container writes and deletes"
UP=$(podman inspect --format '{{.GraphDriver.Data.UpperDir}}' writer)
[ "$(cat "$UP/etc/motd")" = new ] && [ -f "$UP/root/new" ] &&
	[ -c "$UP/etc/group" ] && [ -f "$TREE/etc/group" ]
ok $? "its writes and deletes (whiteout) are in its upper dir"
is "$(tree_sum)" "$SUM0" "the image's tree is unchanged"

# --- remove while used, duplicate names
run "$CP" --store "$S" remove realistic
fails "remove refuses while a container uses the image" "podman rm"
run "$CP" --store "$S" add shared-a --name realistic --mountpoint "$TREE"
fails "a name already in this store is refused" "already used"
podman rm writer >/dev/null
podman tag realistic localhost/tagged:1 >/dev/null 2>&1
run "$CP" --store "$S" add shared-a --name tagged:1 --mountpoint "$TREE"
fails "a name in podman's primary store is refused" "$TMP/graph"
run "$CP" --store "$S" remove realistic
fails "remove refuses while podman tag's copy is in the primary store" \
	"podman rmi"
podman rmi localhost/tagged:1 >/dev/null 2>&1
run "$CP" --store "$S" remove realistic
succeeds "remove succeeds after podman rm"
run podman images --format '{{.Repository}}'
is "$out" "" "podman no longer lists it"
run "$CP" --store "$S" check
ok $(test "$st" -eq 0 && test -z "$out"; echo $?) "check is clean after remove"

# --- the same image pulled normally: its id is taken in podman's store
run podman pull -q "oci:$L:realistic"
succeeds "podman pull oci:LAYOUT:realistic (the same image, pulled)"
run "$CP" --store "$S" add realistic --mountpoint "$TMP/mnt-real"
fails "add refuses an image podman holds as pulled (same id)" \
	"also in podman's own store"
podman rmi -f "$ID" >/dev/null 2>&1
run "$CP" --store "$S" check
ok $(test "$st" -eq 0 && test -z "$out"; echo $?) "nothing registered by the refused add"

# --- check and sync: a missing external mount
"$CP" --store "$S" add realistic --mountpoint "$TMP/mnt-real" >/dev/null
umount "$TMP/mnt-real"
run "$CP" --store "$S" check
ok $(test "$st" -ne 0 && grep -q "nothing mounted at $TMP/mnt-real" \
	"$TMP/out"; echo $?) "check reports a missing mount"
run "$CP" --store "$S" list
ok $(grep -q "^${ID:0:12}  missing" "$TMP/out"; echo $?) "list shows it missing"
mount --bind "$TREE" "$TMP/mnt-real"
run "$CP" --store "$S" check
is "$st:$out" "0:" "mounted again: check is clean"

# --- managed mounts through a (fake) mount helper
cat >"$TMP/fake-mount" <<'EOF'
#!/bin/sh
echo "$@" >>"$FAKE_LOG"
exec mount --bind "$FAKE_TREE" "$2"
EOF
chmod +x "$TMP/fake-mount"
export CFS_MOUNT_HELPER=$TMP/fake-mount FAKE_TREE=$TREE FAKE_LOG=$TMP/helper.log
run "$CP" --store "$S" add shared-a --name app:1
succeeds "add without --mountpoint mounts through the helper"
MNT=$AIS/mnt/$IDA
ok $(grep -qx "$S/images/$IDA.cfs $MNT -o ro,basedir=$S" \
	"$TMP/helper.log"; echo $?) "... mount.composefs MANIFEST AIS/mnt/ID -o ro,basedir=STORE"
run "$CP" --store "$S" list
ok $(grep -q "^${IDA:0:12}  mounted .* localhost/app:1$" "$TMP/out"; echo $?) \
	"list: mounted, with its name"
umount "$MNT"
run "$CP" --store "$S" check
ok $(test "$st" -ne 0 && grep -q "not mounted at $MNT" "$TMP/out"; echo $?) \
	"check reports the missing managed mount"
run "$CP" --store "$S" sync
ok $(test "$st" -eq 0 && grep -q "repaired" "$TMP/out" &&
	mountpoint -q "$MNT"; echo $?) "sync remounts it"
run "$CP" --store "$S" sync
is "$st:$out" "0:" "sync again does nothing"

# --- a half-written record, a dangling layer, a record whose manifest is gone
echo '[{"id":' >"$AIS/overlay-images/images.json.tmp.99.abcdef"
run "$CP" --store "$S" check
ok $(test "$st" -ne 0 && grep -q "images.json.tmp.99.abcdef: temporary" \
	"$TMP/out"; echo $?) "check reports a temp file of an interrupted write"
python3 - "$AIS" <<'EOF'
import json, sys
p = sys.argv[1] + "/overlay-layers/layers.json"
l = json.load(open(p))
l.append({"id": "ab" * 32, "diff-digest": "sha256:" + "cd" * 32})
json.dump(l, open(p, "w"))
EOF
mv "$S/images/$IDA.cfs" "$TMP/moved.cfs"
run "$CP" --store "$S" check
ok $(test "$(grep -c . "$TMP/out")" -eq 3 &&
	grep -q "layer ababababab.*used by no image" "$TMP/out" &&
	grep -q "image ${IDA:0:12}: manifest .* is gone" "$TMP/out"; echo $?) \
	"check: one line each for the temp file, dangling layer, gone manifest"
run "$CP" --store "$S" sync
ok $(test "$st" -eq 0 && test "$(grep -c ': repaired$' "$TMP/out")" -eq 3; echo $?) \
	"sync repairs all three"
[ ! -e "$AIS/overlay-images/images.json.tmp.99.abcdef" ] &&
	! mountpoint -q "$MNT" && [ ! -e "$MNT" ] && [ ! -e "$AIS/overlay-images/$IDA" ]
ok $? "... temp file gone, the image unmounted and its data removed"
run podman images --format '{{.Repository}}:{{.Tag}}'
is "$out" "localhost/realistic:latest" "podman lists only the intact image"
run "$CP" --store "$S" check
is "$st:$out" "0:" "check is clean after sync"
mv "$TMP/moved.cfs" "$S/images/$IDA.cfs"

# --- a broken records file
cp "$AIS/overlay-images/images.json" "$TMP/images.good"
head -c 20 "$TMP/images.good" >"$AIS/overlay-images/images.json"
run "$CP" --store "$S" check
ok $(test "$st" -ne 0 && grep -q "images.json: not a valid JSON" "$TMP/out"; echo $?) \
	"check reports a truncated images.json"
run "$CP" --store "$S" add shared-a --mountpoint "$TREE"
fails "add refuses to write over it" "not a valid JSON array"
cp "$TMP/images.good" "$AIS/overlay-images/images.json"

# --- oci2cfs --podman: convert and register in one step
run "$CFS_BIN/oci2cfs" "$FX/layout" --ref shared-b --store "$S" -q --podman
succeeds "oci2cfs --podman converts and registers"
run podman images --format '{{.Repository}}:{{.Tag}}'
ok $(grep -qx "localhost/shared-b:latest" "$TMP/out"; echo $?) \
	"podman lists the image oci2cfs registered"
run "$CP" --store "$S" remove shared-b
succeeds "and cfs-podman removes it"

# --- cfs-podman pull: oci2cfs --podman on a transport name
echo '{"default":[{"type":"insecureAcceptAnything"}]}' >"$TMP/policy.json"
run "$CP" --store "$S" pull "oci:$L:shared-b" --signature-policy "$TMP/policy.json"
succeeds "cfs-podman pull oci:LAYOUT:shared-b"
run podman images --format '{{.Repository}}:{{.Tag}}'
ok $(grep -qx "localhost/shared-b:latest" "$TMP/out"; echo $?) \
	"podman lists the pulled image under the name pulled"
run "$CP" --store "$S" remove shared-b
succeeds "and cfs-podman removes it"
echo '{"default":[{"type":"reject"}]}' >"$TMP/reject.json"
run "$CP" --store "$S" pull "oci:$L:shared-b" --signature-policy "$TMP/reject.json"
fails "cfs-podman pull refused by the signature policy" \
	"oci:$L:shared-b: rejected by signature policy"

# --- errors
run "$CP" --store "$S" add nosuch
fails "add of an unknown name" "nosuch: neither an image name or id in"
run "$CP" --store "$S" remove nosuch
fails "remove of an unknown image" "nosuch: no such image"
run "$CP" --store "$S" add shared-a --name 'Bad Name'
fails "an invalid name is refused" "not a valid image name"
run "$CP" --store "$S" remove realistic
succeeds "remove the last image"
is "$(podman images -q)" "" "podman lists nothing"

done_testing
