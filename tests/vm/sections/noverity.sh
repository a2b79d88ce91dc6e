# Section "noverity": composefs on a kernel without fs-verity
# (kernel/build.sh noverity, booted by tests/integration/vm-noverity.t with
# run.sh -V). digest= and verity_check=1|2 cannot be honoured there, so the
# mount is refused, with "need a kernel with fs-verity" in the kernel log,
# instead of mounting and failing every open; verity_check=0 and no option
# mount the image (which itself has no fs-verity) over a store without it
# and read the tree. mount.composefs with verity, digest= or
# verity_check=2 fails with one line; without them it mounts. A kernel
# with fs-verity (CFS_VM_VERITY not 0) runs nothing here.

NV_MSG="composefs: digest= and verity_check=1|2 need a kernel with fs-verity"

# nv_refused NAME OPTS: mount -t composefs with OPTS fails, leaves nothing
# mounted and logs NV_MSG.
nv_refused() {
	local name=$1 opts=$2
	dmesg -C
	if mount -t composefs $S/img $C -o "$opts" 2>/tmp/nv.err; then
		nok "$name: the mount is refused"
		umount $C
		return
	fi
	ok "$name: the mount is refused"
	if mountpoint -q $C; then
		nok "$name: nothing left mounted"
		umount $C
	else
		ok "$name: nothing left mounted"
	fi
	if dmesg | grep -qF "$NV_MSG"; then
		ok "$name: the kernel log says it needs a kernel with fs-verity"
	else
		nok "$name: the kernel log says it needs a kernel with fs-verity"
		dmesg | tail -n 5 | sed 's/^/#   dmesg: /'
		sed 's/^/#   mount: /' /tmp/nv.err
	fi
}

# nv_reads NAME OPTS: mount -t composefs with OPTS mounts, and the tree
# equals the source (check.py compare: stat, content, xattrs, links).
nv_reads() {
	local name=$1 opts=$2
	if ! mount -t composefs $S/img $C -o "$opts"; then
		nok "$name: mounts"
		return
	fi
	ok "$name: mounts"
	$py $here/check.py compare $S/src $C |
		sed "s/^\(not \)\{0,1\}ok - /&$name: /"
	umount $C
}

# nv_helper NAME STATUS MESSAGE OPTS: mount.composefs with OPTS exits
# STATUS with one line on stderr that contains MESSAGE.
nv_helper() {
	local name=$1 want=$2 msg=$3 opts=$4 st
	$bin/mount.composefs $S/img $C -o "$opts" >/tmp/nv.out 2>/tmp/nv.err
	st=$?
	if [ $st = "$want" ] && [ "$(wc -l </tmp/nv.err)" = 1 ] &&
		grep -qF -- "mount.composefs: $msg" /tmp/nv.err; then
		ok "$name"
	else
		nok "$name"
		echo "#   status $st (want $want), want one line with: $msg"
		head -n 5 /tmp/nv.err | sed 's/^/#   /'
	fi
	mountpoint -q $C && umount $C
}

noverity() {
	local dig base=basedir=$S/store
	if [ "$verity" != 0 ]; then
		echo "# noverity: this kernel has fs-verity (CFS_VM_VERITY=$verity): nothing to test"
		return
	fi
	# so neither the image nor the store's objects (setup) can have it
	check "the kernel has no fs-verity (ext4 offers no verity feature)" \
		test ! -e /sys/fs/ext4/features/verity
	# the digest the image would have: right, yet unusable here
	dig=$(fsverity digest $S/img | awk '{print $1}')
	dig=${dig#sha256:}

	nv_refused "digest=" "$base,digest=$dig"
	nv_refused "digest= with verity_check=0" "$base,digest=$dig,verity_check=0"
	nv_refused "verity_check=1" "$base,verity_check=1"
	nv_refused "verity_check=2" "$base,verity_check=2"
	nv_reads "verity_check=0" "$base,verity_check=0"
	nv_reads "no verity option" "$base"

	nv_helper "mount.composefs -o verity: exit 32, one line" 32 \
		"$S/img: fs-verity is not enabled on the image, so verity cannot be checked: the image's filesystem or this kernel has no fs-verity" \
		"$base,verity"
	nv_helper "mount.composefs -o digest=: exit 32, one line" 32 \
		"$S/img: fs-verity is not enabled on the image, so digest= cannot be checked: the image's filesystem or this kernel has no fs-verity" \
		"$base,digest=$dig"
	dmesg -C
	nv_helper "mount.composefs -o verity_check=2: exit 32, one line" 32 \
		"$S/img: the kernel refused the image or its options on $C (see dmesg)" \
		"$base,verity_check=2"
	check "mount.composefs -o verity_check=2: dmesg says why" \
		sh -c "dmesg | grep -qF '$NV_MSG'"
	check "mount.composefs without verity options mounts" \
		$bin/mount.composefs $S/img $C -o $base
	check "mount.composefs: a file reads as its source" cmp $C/big $S/src/big
	check "umount" umount $C
}
