# Section "backing": image and object store on xfs and on btrfs (loop
# devices on the scratch disk). The mounted tree must equal the source on
# both; btrfs supports fs-verity, so there the objects and the image carry
# it, digest= and verity_check=2 are honoured and a replaced object reads
# EIO; xfs (6.1) has no fs-verity, so verity_check=2 refuses its objects.
# xfs also serves the image through large folios.

backing_fs() { # FS: make, mount and fill /tmp/b-FS; one TAP line
	local fs=$1 dev=$S/$1.img dir=/tmp/b-$1
	mkdir -p $dir
	rm -f $dev
	truncate -s 320M $dev
	case $fs in
	xfs) mkfs.xfs -q -f $dev ;;
	btrfs) mkfs.btrfs -q -f $dev ;;
	esac >/dev/null 2>&1 &&
		mount -o loop -t $fs $dev $dir &&
		$bin/mkcfs $S/src $dir/img --digest-store $dir/store >/dev/null
}

backing_tree() { # FS OPTS: mount and compare with the source
	local fs=$1 dir=/tmp/b-$1
	check "$fs: mount with image and store on $fs" \
		mount -t composefs $dir/img $C -o basedir=$dir/store$2
	$py $here/check.py compare $S/src $C |
		sed "s/^\(not \)\{0,1\}ok - /&$fs: /"
	umount $C
}

backing_xfs() {
	local d=/tmp/b-xfs
	backing_tree xfs ""
	mount -t composefs $d/img $C -o basedir=$d/store,verity_check=2
	fails "xfs: verity_check=2 refuses objects without fs-verity" \
		cat $C/small
	umount $C
}

backing_btrfs() {
	local d=/tmp/b-btrfs obj dig
	check "btrfs: store objects have fs-verity" \
		fsverity measure "$(find $d/store -type f -path '*/[0-9a-f][0-9a-f]/*' | head -n 1)"
	check "btrfs: mkcfs enabled fs-verity on the image" \
		fsverity measure $d/img
	dig=$(fsverity measure $d/img | awk '{print $1}')
	backing_tree btrfs ",digest=${dig#sha256:}"
	obj=$($bin/cfs-info dump $d/img | awk '$1=="/big"{print $9}')
	mkdir -p $d/bad/${obj%/*}
	head -c 307217 /dev/zero >$d/bad/$obj
	mount -t composefs $d/img $C -o basedir=$d/bad:$d/store,verity_check=2
	fails "btrfs: replaced object without fs-verity gives an error" \
		cat $C/big
	check "btrfs: intact objects read under verity_check=2" \
		cmp $C/small $S/src/small
	umount $C
}

backing() {
	local fs
	for fs in xfs btrfs; do
		if ! backing_fs $fs; then
			nok "$fs: make a $fs store with mkcfs"
			continue
		fi
		ok "$fs: make a $fs store with mkcfs"
		backing_$fs
		umount /tmp/b-$fs
		rm -f $S/$fs.img
	done
}
