#!/bin/bash
# mount.composefs up to the kernel: every userspace check with its message
# and mount(8) exit status, -f, store= names, verity digests (on a loop
# ext4 with verity), the missing kernel module, an unprivileged caller,
# and mount(8)/umount(8)/fstab reaching the helper through /sbin in a
# private mount namespace. The real composefs mount is tested in the VM.
# Runs in its own mount namespace: nothing it mounts is seen outside.
. "$(dirname "$0")/lib.sh"

require_root "mounts, loop devices and capabilities"
require_host_tools unshare setpriv sha256sum
require_cfs_tools mount.composefs mkcfs
if [ -z "${MH_IN_NAMESPACE:-}" ]; then
	MH_IN_NAMESPACE=1 exec unshare -m --propagation private "$0" "$@"
fi

H=$CFS_BIN/mount.composefs
# libmount honours these for root: keep the host's utab untouched.
export LIBMOUNT_UTAB=$TMP/utab LIBMOUNT_FSTAB=$TMP/fstab
: >"$LIBMOUNT_FSTAB"

# run CMD... -> $st, $out (stdout), $err (stderr)
run() {
	"$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

# fails STATUS MESSAGE NAME: the last run exited STATUS with exactly one
# line of stderr that contains MESSAGE.
fails() {
	local lines
	lines=$(wc -l <"$TMP/err")
	if [ "$st" -eq "$1" ] && [ "$lines" -eq 1 ] &&
		grep -qF -- "$2" "$TMP/err"; then
		ok 0 "$3"
		return
	fi
	ok 1 "$3"
	diag "status $st (want $1), stderr ($lines lines):"
	diag_file "$TMP/err"
}

# succeeds NAME: the last run exited 0.
succeeds() {
	ok "$st" "$1" || diag_file "$TMP/err"
}

kernel_has_composefs() { grep -qw composefs /proc/filesystems; }

# --- fixtures: an image, its store and refs, a mount point
S=$TMP/store
mkdir -p "$TMP/src/etc" "$S/images" "$S/refs/team" "$TMP/mnt"
echo hello >"$TMP/src/etc/greeting"
head -c 10000 /dev/urandom >"$TMP/src/blob"
"$CFS_BIN/mkcfs" --digest-store "$S" --sync=none "$TMP/src" \
	"$S/images/app.cfs" >"$TMP/mkcfs.log" 2>&1 ||
	{ diag_file "$TMP/mkcfs.log"; bail "mkcfs failed"; }
IMG=$S/images/app.cfs
ln -s ../images/app.cfs "$S/refs/app"
ln -s ../../images/app.cfs "$S/refs/team/app"
ln -s ../images/gone.cfs "$S/refs/dangling"

# --- invocation
run "$H" --help
[ "$st" -eq 0 ] && grep -q '^Usage: mount.composefs' "$TMP/out"
ok $? "--help prints the usage and exits 0"
missing=
for o in basedir= digest= verity_check= backing_paths= verity store= \
	upperdir= workdir= \
	-f -n -s -v; do
	grep -qF -- "$o" "$TMP/out" || missing="$missing $o(help)"
	grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" \
		"$TOP/man/mount.composefs.8" || missing="$missing $o(man)"
done
is "$missing" "" "--help and mount.composefs(8) both document every option"
run "$H" "$IMG"
is "$st:$err" "1:mount.composefs: expected SOURCE and TARGET
Try 'mount.composefs --help' for more information." \
	"one argument: usage error, exit 1"
run "$H" -o unknown=1 "$IMG" "$TMP/mnt"
fails 1 "unknown mount option 'unknown'" "unknown option: exit 1"
run "$H" -f -s -o unknown=1 "$IMG" "$TMP/mnt"
succeeds "-s (sloppy) ignores an unknown option"
run "$H" -f -o digest=abc "$IMG" "$TMP/mnt"
fails 1 "digest= must be 64 hex digits" "malformed digest=: exit 1"
run "$H" -f -o verity_check=3 "$IMG" "$TMP/mnt"
fails 1 "verity_check= must be 0, 1 or 2" "verity_check=3: exit 1"
run "$H" -f -o upperdir=/tmp "$IMG" "$TMP/mnt"
fails 1 "upperdir= and workdir= go together" "upperdir= alone: exit 1"
run "$H" -f -o remount "$IMG" "$TMP/mnt"
fails 1 "option remount is not supported" "remount: exit 1"
# X-mount.*: mount(8) does mkdir itself; the rest would be silently ignored.
# Without -f: the refusal comes before the kernel is asked (which, without
# the module, would exit 32), so nothing can be mounted.
run "$H" -o ro,X-mount.idmap=b:0:100000:65536,basedir="$S" "$IMG" "$TMP/mnt"
fails 1 "mount.composefs: $IMG: option X-mount.idmap is not supported" \
	"X-mount.idmap=: refused with one line naming it, exit 1"
mountpoint -q "$TMP/mnt"
ok $((!$?)) "X-mount.idmap=: nothing mounted"
for o in X-mount.subdir=etc X-mount.owner=0 X-mount.group=0 X-mount.mode=0755 \
	x-mount.idmap=u:0:1:1; do
	run "$H" -f -o "$o" "$IMG" "$TMP/mnt"
	fails 1 "option ${o%%=*} is not supported" "$o: refused, exit 1"
done
run "$H" -f -s -o X-mount.idmap=b:0:1:1 "$IMG" "$TMP/mnt"
fails 1 "option X-mount.idmap is not supported" \
	"-s (sloppy) does not make X-mount.idmap= acceptable"
run "$H" -f -n -o X-mount.mkdir=0700,x-app.note=1,X-app.comment "$IMG" "$TMP/mnt"
succeeds "X-mount.mkdir (done by mount(8)) and other x-*/X-* options pass"

# --- validation of the image, digests and directories (exit 32)
run "$H" -f "$TMP/none.cfs" "$TMP/mnt"
fails 32 "mount.composefs: $TMP/none.cfs: image does not exist" \
	"missing image: exit 32, one line naming it"
head -c 4096 /dev/urandom >"$TMP/random.img"
run "$H" -f "$TMP/random.img" "$TMP/mnt"
fails 32 "$TMP/random.img: corrupt image: bad magic (not a composefs image)" \
	"not a composefs image: exit 32"
cp "$IMG" "$TMP/v2.cfs"
printf '\002\000\000\000' | dd of="$TMP/v2.cfs" conv=notrunc status=none
run "$H" -f "$TMP/v2.cfs" "$TMP/mnt"
fails 32 "$TMP/v2.cfs: corrupt image: unsupported version 2" \
	"image of version 2: exit 32, names the version"
run "$H" -f -o ro,basedir="$S:$TMP/nodir" "$IMG" "$TMP/mnt"
fails 32 "basedir $TMP/nodir: does not exist" "missing basedir: exit 32"
run "$H" -f -o basedir="$TMP/src/blob" "$IMG" "$TMP/mnt"
fails 32 "basedir $TMP/src/blob: not a directory" \
	"basedir that is a file: exit 32"
run "$H" -f "$IMG" "$TMP/nomnt"
fails 32 "$TMP/nomnt: mount point does not exist" \
	"missing mount point: exit 32"
run "$H" -f -o upperdir="$TMP/noup",workdir="$TMP" "$IMG" "$TMP/mnt"
fails 32 "upperdir $TMP/noup: does not exist" "missing upperdir: exit 32"

# Digests on an image without fs-verity.
cp "$IMG" "$TMP/plain.cfs"
D0=$(printf '%064d' 0)
run "$H" -f -o digest=$D0 "$TMP/plain.cfs" "$TMP/mnt"
fails 32 "fs-verity is not enabled on the image, so digest= cannot be checked" \
	"digest= on an image without fs-verity: exit 32, says so"
run "$H" -f -o verity "$TMP/plain.cfs" "$TMP/mnt"
fails 32 "fs-verity is not enabled on the image, so verity cannot be checked" \
	"verity on an image without fs-verity: exit 32, says so"

# --- what reaches the kernel (fake mode, -v prints the mount)
run "$H" -f -v -o rw,nosuid,basedir="$S/../store" "$IMG" "$TMP/mnt"
succeeds "-f validates a good image and exits 0"
is "$out" "mount.composefs: (fake) mounting $IMG on $TMP/mnt: composefs ro,nosuid,basedir=$S" \
	"rw (mount(8)'s default) still mounts ro; basedir made canonical"
mountpoint -q "$TMP/mnt"
ok $((!$?)) "-f mounts nothing"
run "$H" -f -v -o ro,store="$S" app "$TMP/mnt"
is "$out" "mount.composefs: (fake) mounting $IMG on $TMP/mnt: composefs ro,basedir=$S" \
	"store= resolves NAME through refs/ and basedir defaults to the store"
run "$H" -f -v -o ro,store="$S",basedir=/tmp team/app "$TMP/mnt"
is "$out" "mount.composefs: (fake) mounting $IMG on $TMP/mnt: composefs ro,basedir=/tmp" \
	"a NAME with a slash; an explicit basedir= wins over the store"
run "$H" -f -v -o ro,backing_paths=any,basedir="$S" "$IMG" "$TMP/mnt"
is "$st:$out" "0:mount.composefs: (fake) mounting $IMG on $TMP/mnt: composefs ro,basedir=$S,backing_paths=any" \
	"backing_paths=any goes to the kernel"
run "$H" -f -o backing_paths=some "$IMG" "$TMP/mnt"
fails 1 "backing_paths= must be any" "backing_paths=some: exit 1"
run "$H" -f -o store="$S" nosuch "$TMP/mnt"
fails 32 "mount.composefs: nosuch: no image of that name or id in $S" \
	"missing ref: exit 32"
run "$H" -f -o store="$S" dangling "$TMP/mnt"
fails 32 "broken ref" "ref to a missing image: exit 32"
run "$H" -f -o store="$S" ../images/app.cfs "$TMP/mnt"
fails 1 "not a valid image name" "a NAME with '..': exit 1"
run "$H" -f -o store="$TMP/nostore" app "$TMP/mnt"
fails 32 "store $TMP/nostore: No such file or directory" \
	"missing store: exit 32"

# Writable mounts: composefs below /run/cfs/HASH, overlayfs on TARGET.
mkdir -p "$TMP/up" "$TMP/work"
HASH=$(printf '%s' "$TMP/mnt" | sha256sum | cut -c1-64)
run "$H" -f -v -o basedir="$S",upperdir="$TMP/up",workdir="$TMP/work" \
	"$IMG" "$TMP/mnt"
printf 'mount.composefs: (fake) mounting %s on /run/cfs/%s: composefs ro,basedir=%s\nmount.composefs: (fake) mounting %s on %s: overlay lowerdir=/run/cfs/%s,upperdir=%s,workdir=%s,helper=composefs\n' \
	"$IMG" "$HASH" "$S" "$IMG" "$TMP/mnt" "$HASH" "$TMP/up" \
	"$TMP/work" >"$TMP/want"
diff "$TMP/want" "$TMP/out" >&2
ok $? "upperdir=: composefs on /run/cfs/HASH, overlay on the target"
grep -q "TARGET=$TMP/mnt .*OPTS=helper=composefs" "$LIBMOUNT_UTAB"
ok $? "upperdir=: utab records helper=composefs for umount(8)"

# --- the kernel: this host has no composefs (never load it here)
if kernel_has_composefs; then
	skip 2 "this kernel has composefs; the not-loaded path is for the VM"
else
	run "$H" -o ro,basedir="$S" "$IMG" "$TMP/mnt"
	fails 32 "the kernel has no composefs filesystem (module not loaded): load it with 'modprobe composefs'" \
		"valid mount without the module: exit 32, says how to load it"
	mountpoint -q "$TMP/mnt"
	ok $((!$?)) "nothing is mounted after the failure"
fi

# --- an unprivileged caller
run setpriv --reuid=65534 --regid=65534 --clear-groups "$H" "$IMG" "$TMP/mnt"
fails 1 "mount.composefs: $IMG: must be superuser to mount composefs" \
	"unprivileged caller: exit 1"
run setpriv --inh-caps=-all --bounding-set=-sys_admin "$H" -f "$IMG" \
	"$TMP/mnt"
fails 1 "must be superuser to mount composefs" \
	"root without CAP_SYS_ADMIN: exit 1"

# --- fs-verity: a loop-mounted ext4 with the verity feature
if ! verity_fs 64M; then
	why=$(cat "$TMP/verity.err" 2>/dev/null)
	skip 6 "no fs-verity on a loop ext4 here (${why:-cannot loop-mount}); the VM runs these"
else
	V=$TMP/vfs/app.cfs
	cp "$IMG" "$V" && fsverity enable "$V"
	VD=$(fsverity measure "$V" | sed 's/^sha256:\([0-9a-f]*\) .*/\1/')
	run "$H" -f -v -o ro,digest="$VD",basedir="$S" "$V" "$TMP/mnt"
	is "$st:$out" "0:mount.composefs: (fake) mounting $V on $TMP/mnt: composefs ro,basedir=$S,digest=$VD" \
		"digest= equal to the image's fs-verity digest passes"
	run "$H" -f -o digest="${VD^^}" "$V" "$TMP/mnt"
	succeeds "digest= in upper case is accepted"
	run "$H" -f -o digest=$D0 "$V" "$TMP/mnt"
	fails 32 "fs-verity digest $VD does not match digest=$D0" \
		"wrong digest=: exit 32, both digests shown"
	run "$H" -f -v -o ro,verity "$V" "$TMP/mnt"
	is "$st:$out" "0:mount.composefs: (fake) mounting $V on $TMP/mnt: composefs ro,digest=$VD,verity_check=2" \
		"verity: measured digest passed as digest=, verity_check=2"
	run "$H" -f -o verity,digest=$D0 "$V" "$TMP/mnt"
	fails 32 "does not match digest=$D0" "verity with a different digest=: exit 32"
	run "$H" -f -o verity,verity_check=1 "$V" "$TMP/mnt"
	fails 1 "verity requires verity_check=2" "verity with verity_check=1: exit 1"
fi

# --- through mount(8), umount(8) and fstab: our helper as /sbin/*.composefs
# (an overlay on the real /sbin, visible only in this namespace)
SBIN=$(readlink -f /sbin)
mkdir -p "$TMP/sbin"
ln -s "$H" "$TMP/sbin/mount.composefs"
ln -s "$H" "$TMP/sbin/umount.composefs"
if ! mount -t overlay overlay -o "lowerdir=$TMP/sbin:$SBIN" "$SBIN"; then
	skip 9 "cannot overlay $SBIN in a mount namespace"
else
	at_exit umount "$SBIN"
	run mount -t composefs -o basedir="$S" "$IMG" "$TMP/mnt"
	if kernel_has_composefs; then
		skip 1 "this kernel has composefs"
	else
		fails 32 "mount.composefs: $IMG: the kernel has no composefs filesystem" \
			"mount -t composefs runs the helper (module missing: exit 32)"
	fi
	run mount -f -t composefs -o digest=$D0 "$IMG" "$TMP/mnt"
	fails 32 "fs-verity is not enabled on the image" \
		"mount -f -t composefs: the helper validates (exit 32)"
	printf '%s %s composefs ro,basedir=%s 0 0\n' "$IMG" "$TMP/mnt" "$S" \
		>"$TMP/fstab.1"
	printf 'app %s composefs ro,store=%s 0 0\n' "$TMP/mnt" "$S" \
		>"$TMP/fstab.2"
	printf '%s %s composefs ro 0 0\n' "$TMP/none.cfs" "$TMP/mnt" \
		>"$TMP/fstab.3"
	run mount -f -v --fstab "$TMP/fstab.1" "$TMP/mnt"
	[ "$st" -eq 0 ] && grep -qF "composefs ro,basedir=$S" "$TMP/out"
	ok $? "fstab line with basedir= reaches the helper (mount -f TARGET)"
	run mount -f -v --fstab "$TMP/fstab.2" "$TMP/mnt"
	[ "$st" -eq 0 ] && grep -qF "mounting $IMG on $TMP/mnt" "$TMP/out"
	ok $? "fstab line with store= and a NAME reaches the helper"
	run mount --fstab "$TMP/fstab.3" "$TMP/mnt"
	fails 32 "$TMP/none.cfs: image does not exist" \
		"fstab line naming a missing image: exit 32"

	# umount of an upperdir= mount, with a tmpfs standing in for the
	# composefs mount at /run/cfs/HASH (this /run is private to the test).
	mount -t tmpfs tmpfs /run
	P=/run/cfs/$HASH
	mkdir -p "$P" && mount -t tmpfs lower "$P" && echo x >"$P/file"
	mount -i -t overlay -o "lowerdir=$P,upperdir=$TMP/up,workdir=$TMP/work,helper=composefs" \
		"$IMG" "$TMP/mnt"
	run "$H" -f "$IMG" "$TMP/mnt"
	fails 32 "target busy: $TMP/mnt already has a composefs mount" \
		"a target that already has a composefs overlay: busy, exit 32"
	run umount "$TMP/mnt"
	! mountpoint -q "$TMP/mnt" && ! mountpoint -q "$P" 2>/dev/null &&
		[ ! -e "$P" ] && [ "$st" -eq 0 ]
	ok $? "umount TARGET runs umount.composefs: overlay and private mount gone"
	! grep -q "TARGET=$TMP/mnt " "$LIBMOUNT_UTAB"
	ok $? "umount removes the utab entry"
	run "$TMP/sbin/umount.composefs" "$TMP/mnt"
	fails 32 "umount.composefs: $TMP/mnt: not mounted" \
		"umount.composefs on a directory that is not mounted: exit 32"
	umount /run
fi

done_testing
