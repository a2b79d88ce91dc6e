# Section "upper": writes below image directories on the helper's
# upperdir= mount (mount -t composefs, and an fstab line with mount -a),
# each compared with the same write on an overlay mounted by hand, as
# full root, over a composefs mount of the same image (issue 17: the
# helper mounted the overlay with reduced capabilities, and overlayfs
# copies up with the mounter's credentials). The manifest and the store
# stay byte-identical throughout. The setuid and capability files keep
# both through a copy-up for writing; a write of content clears them on
# this kernel whatever the filesystem (the ext4 probe below shows it), so
# those writes are only compared with the overlay mounted by hand.
. "$repo/tests/vm/e2e-lib.sh"

# Upper and work dirs on the ext4 scratch disk: Linux 6.1's tmpfs has no
# user.* xattrs, which copy-up then drops (on any overlay).
U=$S/up
up_src=$S/up-src
up_img=$S/up.cfs
up_store=$S/up-store
up_ref=/tmp/up-ref		# the overlay mounted by hand
up_low=/tmp/up-lower		# its composefs lower
up_state=/tmp/up-state

# The writes, each a line "STATUS NAME" in $up_state/LABEL.writes.
up_writes() { # MNT LABEL
	local m=$1 log=$up_state/$2.writes
	: >"$log"
	up_do() { # NAME CMD...
		local name=$1
		shift
		"$@" >/dev/null 2>>"$log.err"
		echo "$? $name" >>"$log"
	}
	up_do "modify a file three directories deep" \
		sh -c "echo appended >>$m/usr/share/doc/README"
	up_do "create a file in an image directory" \
		sh -c "echo new >$m/etc/conf.d/new.conf"
	up_do "create a directory in an image directory" \
		mkdir $m/etc/conf.d/new.d
	up_do "chmod of an image file" chmod 0604 $m/etc/meta/chmod-me
	up_do "chown of an image file" chown 4321:8765 $m/etc/meta/chown-me
	up_do "touch -m of an image file" \
		touch -m -d "2020-02-03 04:05:06 UTC" $m/etc/meta/touch-me
	up_do "delete a file in a subdirectory" rm $m/var/lib/gone/victim
	up_do "rename a directory" mv $m/opt/olddir $m/opt/newdir
	up_do "open for writing a setuid file" sh -c ": >>$m/bin/suid-tool"
	up_do "append to a setuid file" \
		sh -c "echo '# more' >>$m/bin/suid-written"
	up_do "open for writing a file with security.capability" \
		sh -c ": >>$m/bin/capped"
	up_do "append to a file with security.capability" \
		sh -c "echo '# more' >>$m/bin/capped-written"
	up_do "append to a file with user.* and trusted.* xattrs" \
		sh -c "echo more >>$m/etc/xattrs"
	up_do "append to one name of a hard-linked pair" \
		sh -c "echo more >>$m/etc/hl-a"
}

# What a file looks like: mode owner sha256 [xattrs].
up_file() { # PATH
	$py - "$1" <<'PYEOF'
import hashlib, os, sys
p = sys.argv[1]
st = os.lstat(p)
x = ' '.join(f'{k}={os.getxattr(p, k).hex()}' for k in sorted(os.listxattr(p)))
print(oct(st.st_mode), f'{st.st_uid}:{st.st_gid}',
      hashlib.sha256(open(p, 'rb').read()).hexdigest(), x)
PYEOF
}

up_diag() { # FILE...: what they look like, as TAP comments
	local f
	for f; do
		echo "#   $f: $(up_file $f 2>&1)"
	done
}

# Every write went through, and did what it says (TAP lines).
up_check_writes() { # MNT UPPER LABEL NAME
	local m=$1 u=$2 log=$up_state/$3.writes name status
	shift 3
	while read -r status name; do
		[ "$status" = 0 ]
		is_ok $? "$*: $name"
	done <"$log"
	[ -s "$log.err" ] && diag_lines "$log.err" 10
	[ "$(tail -n 1 $m/usr/share/doc/README)" = appended ] &&
		[ "$(stat -c %s $m/usr/share/doc/README)" = 3209 ] &&
		[ "$(stat -c %u:%g $m/usr/share/doc/README)" = 101:102 ]
	is_ok $? "$*: the deep file has the old content, the new line, its owner" ||
		up_diag $m/usr/share/doc/README
	[ "$(stat -c %a $m/etc/meta/chmod-me)" = 604 ] &&
		[ "$(stat -c %u:%g $m/etc/meta/chown-me)" = 4321:8765 ] &&
		[ "$(stat -c %Y $m/etc/meta/touch-me)" = 1580702706 ] &&
		[ "$(stat -c %u:%g $m/etc/meta/touch-me)" = 1000:1000 ] &&
		cmp -s $m/etc/meta/chmod-me $up_src/etc/meta/chmod-me
	is_ok $? "$*: chmod, chown, touch -m took, the content is the image's" ||
		up_diag $m/etc/meta/*
	[ ! -e $m/opt/olddir ] && cmp -s $m/opt/newdir/sub/file \
		$up_src/opt/olddir/sub/file &&
		[ "$(stat -c %a:%u:%g $m/opt/newdir/sub/file)" = 600:7:8 ]
	is_ok $? "$*: the renamed directory holds the image's files"
	[ -f $u/bin/suid-tool ] &&
		[ "$(up_file $m/bin/suid-tool)" = "$(up_file $up_src/bin/suid-tool)" ]
	is_ok $? "$*: the setuid file keeps mode 4755 after a copy-up for writing" ||
		up_diag $m/bin/suid-tool
	[ -f $u/bin/capped ] &&
		[ "$(up_file $m/bin/capped)" = "$(up_file $up_src/bin/capped)" ]
	is_ok $? "$*: the file with security.capability keeps it after a copy-up for writing" ||
		up_diag $m/bin/capped
	[ "$(up_file $m/etc/xattrs | cut -d' ' -f4-)" = \
		"$(up_file $up_src/etc/xattrs | cut -d' ' -f4-)" ] &&
		[ "$(tail -n 1 $m/etc/xattrs)" = more ]
	is_ok $? "$*: the user.* and trusted.* xattrs stay after an append" ||
		up_diag $m/etc/xattrs
	cmp -s $m/etc/hl-b $up_src/etc/hl-b && [ "$(tail -n 1 $m/etc/hl-a)" = more ]
	is_ok $? "$*: writing one name of a hard-linked pair leaves the other as in the image" ||
		up_diag $m/etc/hl-a $m/etc/hl-b
}

# After a remount: the delete stays, the writes stay.
up_check_remounted() { # MNT LABEL
	[ ! -e $1/var/lib/gone/victim ] && [ -e $1/var/lib/gone/stays ] &&
		! ls $1/var/lib/gone | grep -q victim &&
		[ "$(tail -n 1 $1/usr/share/doc/README)" = appended ]
	is_ok $? "$2: after a remount the deleted file stays hidden, the writes stay"
}

# The tree of MNT equals the hand-mounted overlay's, after the same writes.
up_same_as_ref() { # MNT LABEL NAME
	$py $here/tree-state.py $1 >$up_state/$2.tree
	if cmp -s $up_state/ref.tree $up_state/$2.tree &&
		cmp -s $up_state/ref.writes $up_state/$2.writes; then
		ok "$3: the tree equals the hand-mounted overlay's ($(wc -l <$up_state/ref.tree) entries: modes, owners, xattrs, contents)"
	else
		nok "$3: the tree equals the hand-mounted overlay's"
		diff $up_state/ref.writes $up_state/$2.writes | sed 's/^/#   /'
		diff $up_state/ref.tree $up_state/$2.tree | head -n 20 | sed 's/^/#   /'
	fi
}

up_image_state() {
	store_state $up_store
	sha256sum $up_img
}

up_store_unchanged() { # WHEN
	up_image_state >$up_state/image.now
	cmp -s $up_state/image.before $up_state/image.now
	is_ok $? "manifest and store byte-identical $1 ($(wc -l <$up_state/image.now) files, sha256)" ||
		diff $up_state/image.before $up_state/image.now | head | sed 's/^/#   /'
}

# Reference: composefs, then an overlay over it by hand, as full root.
up_reference() {
	mkdir -p $up_low $up_ref $U/ref/u $U/ref/w
	if ! mount -t composefs $up_img $up_low -o basedir=$up_store ||
		! mount -t overlay overlay -o \
			lowerdir=$up_low,upperdir=$U/ref/u,workdir=$U/ref/w $up_ref; then
		nok "reference: an overlay mounted by hand over composefs"
		return 1
	fi
	up_writes $up_ref ref
	$py $here/tree-state.py $up_ref >$up_state/ref.tree
	up_check_writes $up_ref $U/ref/u ref "overlay by hand"
	umount $up_ref
	umount $up_low
}

up_cmdline() {
	local m=/tmp/up-m1
	mkdir -p $m $U/m1/u $U/m1/w
	run_cmd mount -t composefs $up_img $m \
		-o basedir=$up_store,upperdir=$U/m1/u,workdir=$U/m1/w
	if [ $st != 0 ] || ! findmnt -n -o FSTYPE --mountpoint $m | grep -qx overlay; then
		nok "mount -t composefs -o upperdir=: an overlay on the target (status $st)"
		diag_lines /tmp/run.err
		return
	fi
	ok "mount -t composefs -o upperdir=: an overlay on the target"
	up_writes $m cmdline
	up_check_writes $m $U/m1/u cmdline "mount -t composefs"
	up_same_as_ref $m cmdline "mount -t composefs"
	check "umount the upperdir mount" umount $m
	check "mount it again with the same upper dir" mount -t composefs \
		$up_img $m -o basedir=$up_store,upperdir=$U/m1/u,workdir=$U/m1/w
	up_check_remounted $m "mount -t composefs"
	up_same_as_ref $m cmdline "mount -t composefs, remounted"
	umount $m
}

up_fstab() {
	local m=/tmp/up-m2 fstab=/tmp/up-fstab
	mkdir -p $m $U/m2/u $U/m2/w
	printf '%s %s composefs basedir=%s,upperdir=%s,workdir=%s 0 0\n' \
		$up_img $m $up_store $U/m2/u $U/m2/w >$fstab
	if ! mount --bind $fstab /etc/fstab; then
		nok "bind-mount a private /etc/fstab"
		return
	fi
	run_cmd mount -a -t composefs
	if [ $st = 0 ] && findmnt -n -o FSTYPE --mountpoint $m | grep -qx overlay; then
		ok "fstab upperdir= line, mount -a: an overlay on the target"
		up_writes $m fstab
		up_check_writes $m $U/m2/u fstab "fstab"
		up_same_as_ref $m fstab "fstab"
		check "umount the fstab upperdir mount" umount $m
		check "mount -a again" mount -a -t composefs
		up_check_remounted $m "fstab"
		up_same_as_ref $m fstab "fstab, mounted again"
		umount $m
	else
		nok "fstab upperdir= line, mount -a (status $st)"
		diag_lines /tmp/run.err
	fi
	umount /etc/fstab
}

upper() {
	if ! helper_install; then
		nok "upper: install mount.composefs as /sbin/mount.composefs"
		return
	fi
	mkdir -p $up_state
	$py $here/upper-tree.py $up_src &&
		$bin/mkcfs $up_src $up_img --digest-store $up_store >/dev/null
	is_ok $? "upper: the image (deep tree, setuid, capability, xattrs, hard links) builds" ||
		return
	cp -a $up_src/bin/suid-written $S/suid-probe && echo x >>$S/suid-probe
	echo "# for comparison: root's append to a setuid file directly on ext4 leaves mode $(stat -c %a $S/suid-probe)"
	up_image_state >$up_state/image.before
	up_reference || return
	up_cmdline
	up_store_unchanged "after the mount -t composefs writes and remount"
	up_fstab
	up_store_unchanged "after the fstab writes and remount"
	! grep -q " /run/cfs/" /proc/mounts
	is_ok $? "upper: no private composefs mount left below /run/cfs"
	helper_remove
}
