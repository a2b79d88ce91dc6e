#!/bin/bash
# SPDX-License-Identifier: MIT
# The measurements of the VM benchmark, run by bench/vm-init.sh as root
# inside QEMU with the bench disk (bench/vm-prep.sh) on /tmp/b.  Prints
#   R KEY VALUE...     one measurement (milliseconds unless said)
#   # TEXT             a note;  E TEXT  a failed step
# and bench/vm-report.py turns them into tables.
#   CFS_BENCH_RUNS      runs of each measurement (3)
#   CFS_BENCH_SECTIONS  comma list of vopen,p2r,podman,mount,walk (all)
set -u
repo=${CFS_REPO:?}
W=${CFS_WALK:?}
bin=$repo/build/bin
runs=${CFS_BENCH_RUNS:-3}
sections=${CFS_BENCH_SECTIONS:-vopen,p2r,podman,mount,walk}
B=/tmp/b
M=/tmp/m
ARCHIVE=$B/image.oci.tar
ARCHIVE2=$B/bench2.oci.tar
PODMAN_RUN=(podman run --rm --network none)
mkdir -p $M

res() { echo "R $*"; }
note() { echo "# $*"; }
fail() { echo "E $*"; }
want() { case ",$sections," in *",$1,"*) return 0 ;; esac; return 1; }

# timed KEY CMD...: one vm-walk measurement as "R KEY MS [FIELD...]".
timed() {
	local key=$1 out
	shift
	if out=$("$W" "$@"); then
		res "$key" $out
	else
		fail "$key: $*"
	fi
}

load() { note "load $(cut -d' ' -f1-3 /proc/loadavg)"; }

. "$repo/scripts/podman-conf.sh"

# podman_conf GRAPHROOT [ADDITIONAL-STORE]: a private podman setup.
podman_conf() {
	podman_private_conf /tmp "$1" "$1.run" "${2:-}" ||
		fail "podman configuration"
}

# The image id (podman's, full) of the only image.
podman_id() {
	podman images -q --no-trunc | head -n 1
}

# cfs_pipeline STORE TARGET [fast]: the composefs way from an oci-archive
# to a process in the image, as one shell script (timed as a whole); "fast"
# without fs-verity and without the final syncfs (to show their cost).
cfs_pipeline() {
	local conv="--store $1 -q" opts="basedir=$1,digest=\$2"
	[ "${3:-}" = fast ] && conv+=" --no-verity --sync=none" opts=basedir=$1
	cat <<EOF
set -e
set -- \$($bin/oci2cfs $ARCHIVE $conv)
$bin/mount.composefs "\$1" $2 -o $opts
chroot $2 /bin/true
EOF
}

# ovl_pipeline DIR TARGET: the overlay way, scripted as podman's overlay
# driver does it: unpack the archive, each layer into its own directory
# (whiteouts made overlayfs ones), overlay with an upper dir, run.
ovl_pipeline() {
	local d=$1 t=$2 i=0 blob lower=
	echo "set -e"
	echo "mkdir -p $d/oci $d/u $d/w && tar -xf $ARCHIVE -C $d/oci"
	while read -r blob; do
		i=$((i + 1))
		echo "mkdir $d/l$i"
		echo "tar --xattrs --xattrs-include='*' --numeric-owner -xpzf $d/oci/blobs/sha256/$blob -C $d/l$i"
		echo "$W whiteouts $d/l$i >/dev/null"
		lower=$d/l$i${lower:+:$lower}
	done <$B/layers.txt
	echo "mount -t overlay overlay -o lowerdir=$lower,upperdir=$d/u,workdir=$d/w $t"
	echo "chroot $t /bin/true"
}

# ---- issue 4: from an oci-archive to a running process ----
section_p2r() {
	local i r
	note "section p2r: archive to a process in the image"
	for i in $(seq 1 "$runs"); do
		load
		r=$B/r$i
		mkdir -p $r $M/p$i $M/o$i
		cfs_pipeline $r/cfs $M/p$i >$r/cfs.sh
		timed p2r:cfs run -c sh $r/cfs.sh
		umount $M/p$i
		mkdir -p $M/f$i
		cfs_pipeline $r/cfs-fast $M/f$i fast >$r/cfs-fast.sh
		timed p2r:cfs-fast run -c sh $r/cfs-fast.sh
		umount $M/f$i
		ovl_pipeline $r/ovl $M/o$i >$r/ovl.sh
		timed p2r:ovl-script run -c sh $r/ovl.sh
		umount $M/o$i
		podman_conf $r/pg
		timed pull:podman run -c podman pull -q oci-archive:$ARCHIVE
		timed run1:podman run "${PODMAN_RUN[@]}" "$(podman_id)" true
	done
}

# ---- issue 12: verified opens, the stock-kernel build against the export ----
# composefs.ko hashes each backing file's fs-verity descriptor (as built by
# DKMS for Debian's kernel, which does not export fsverity_get_digest());
# composefs-export.ko takes the digest fs-verity computed at open (the
# patched kernel's). Both on this kernel: every file of the image opened
# under verity_check=2, cold (first open after the drop: each build
# computes every digest) and warm (5 more passes: both builds find the
# backing inode remembered at the cold pass and skip the digest, see
# kernel/fs/composefs/file.c). Runs first, on its own store: no composefs mount exists yet to
# keep the module from being swapped, and p2r's conversion stays cold.
vopen_load() { # MODULE
	rmmod composefs 2>/dev/null
	insmod "$1"
}

section_vopen() {
	local i m mod order export=${CFS_MODULE%/*}/composefs-export.ko v=$B/vopen
	note "section vopen: verified open, descriptor build vs export build"
	[ -e "$export" ] || { fail "vopen: no $export"; return; }
	mkdir -p $M/v
	$bin/oci2cfs $ARCHIVE --store $v -q >/dev/null ||
		{ fail "vopen: oci2cfs"; return; }
	local img
	img=$(ls $v/images/*.cfs | head -n 1)
	for i in $(seq 1 "$runs"); do
		load
		# alternate which build goes first, so that an order effect
		# (what the round before left behind) favours neither
		order="descriptor export"
		[ $((i % 2)) = 0 ] && order="export descriptor"
		for m in $order; do
			mod=$CFS_MODULE
			[ $m = export ] && mod=$export
			vopen_load "$mod" || { fail "vopen: insmod $mod"; continue; }
			if ! mount -t composefs $img $M/v \
				-o basedir=$v,verity_check=2; then
				fail "vopen: mount with $mod"
				continue
			fi
			timed vopen:cold:$m opens -c $M/v
			timed vopen:warm:$m opens -n 5 $M/v
			umount $M/v
		done
	done
	vopen_load "$CFS_MODULE" || fail "vopen: insmod $CFS_MODULE"
}

# ---- issue 5: runnable by podman, run latency, shared-base disk use ----
section_podman() {
	local i r id
	note "section podman: oci2cfs --podman, run latency, disk"
	# the pulled image to compare with is section p2r's; pull it untimed
	# when that section did not run
	podman_conf $B/r1/pg
	if [ -z "$(podman_id)" ]; then
		podman pull -q oci-archive:$ARCHIVE >/dev/null || fail "pull"
	fi
	for i in $(seq 1 "$runs"); do
		load
		r=$B/q$i
		mkdir -p $r
		podman_conf $r/pg $r/cfs/podman
		timed runnable:cfs run -c $bin/oci2cfs $ARCHIVE --store $r/cfs \
			-q --podman
		timed run1:cfs run "${PODMAN_RUN[@]}" "$(podman_id)" true
	done
	for i in $(seq 1 "$runs"); do
		for r in $B/r1 $B/q1; do
			local kind=podman
			[ $r = $B/q1 ] && kind=cfs
			if [ $kind = cfs ]; then
				podman_conf $r/pg $r/cfs/podman
			else
				podman_conf $r/pg
			fi
			id=$(podman_id)
			timed runlat:cold:$kind run -c "${PODMAN_RUN[@]}" "$id" true
			timed runlat:warm:$kind run "${PODMAN_RUN[@]}" "$id" true
		done
	done
	disk_use
}

du_bytes() { du -sx --block-size=1 "$1" | cut -f1; }

disk_use() {
	local r=$B/r1 q=$B/q1
	[ -d $r/pg ] || { fail "disk: no podman store (section p2r)"; return; }
	podman_conf $r/pg
	res disk:podman:1 "$(du_bytes $r/pg)"
	podman pull -q oci-archive:$ARCHIVE2 >/dev/null || fail "pull bench2"
	res disk:podman:2 "$(du_bytes $r/pg)"
	podman_conf $q/pg $q/cfs/podman
	res disk:cfs:1 "$(du_bytes $q/cfs)"
	$bin/oci2cfs $ARCHIVE2 --store $q/cfs -q --podman >/dev/null ||
		fail "oci2cfs --podman bench2"
	res disk:cfs:2 "$(du_bytes $q/cfs)"
	note "podman store: $(podman images --format '{{.ID}} {{.Repository}}' | tr '\n' ' ')"
}

# ---- issue 3 and 4: mount times ----
# A converted store and manifest for the walks and mounts: section p2r's.
cfs_store() {
	S=$B/r1/cfs
	if [ ! -d $S/images ]; then
		$bin/oci2cfs $ARCHIVE --store $S -q >/dev/null ||
			fail "oci2cfs for the walks"
	fi
	IMG=$(ls $S/images/*.cfs | grep -v /many- | head -n 1)
}

ovl_opts() { # UPPERDIR-PARENT LOWER
	mkdir -p $1/u $1/w
	echo "lowerdir=$2,upperdir=$1/u,workdir=$1/w"
}

LAYERS=$B/layers/l3:$B/layers/l2:$B/layers/l1

# The N-at-once mounts use N different manifests, as N converted images
# would be: IMG itself and copies of it beside it in the store, each its own
# inode and page cache, with fs-verity like the manifests oci2cfs writes.
many_images() {
	local i f
	ln -f $IMG $S/images/many-0.cfs || fail "ln many-0"
	for i in $(seq 1 99); do
		f=$S/images/many-$i.cfs
		[ -e $f ] && continue
		cp $IMG $f.tmp && fsverity enable $f.tmp >/dev/null &&
			mv $f.tmp $f || fail "copy $f"
	done
}

section_mount() {
	local i n
	note "section mount"
	cfs_store
	many_images
	mkdir -p $M/a $M/b $M/c $M/d $M/x $B/farm-bind
	for i in $(seq 1 "$runs"); do
		load
		timed mount:composefs mount -c composefs $IMG $M/a basedir=$S
		timed disk:read disk -n 200 $ARCHIVE
		timed mount:composefs-warm mount composefs $IMG $M/a basedir=$S
		# a host whose store is in use: its directories cached, the
		# manifest not
		timed mount:composefs-store-warm mount -c -w $S/images \
			composefs $IMG $M/a basedir=$S
		timed open:image open -c $IMG
		timed mount:overlay mount -c overlay overlay $M/b \
			"$(ovl_opts $B/ov-m$i $LAYERS)"
		local out
		if out=$($W mount -c -l erofs $B/erofs.img $M/c); then
			res mount:erofs $out
			res loop:erofs "$(echo $out | cut -d' ' -f4)"
		else
			fail "mount erofs"
		fi
		timed mount:ext4-bind mount -c bind $B/merged $M/d
		timed mount:helper run -c $bin/mount.composefs $IMG $M/x \
			-o basedir=$S
		umount $M/x
		for n in 1 10 100; do
			mkdir -p $M/many$n
			local o
			if o=$($W mount -c -n $n composefs \
				"$S/images/many-%d.cfs" $M/many$n basedir=$S)
			then
				res mount$n "$o"
			else
				fail "mount x$n"
			fi
		done
	done
}

# ---- issue 3: walks ----
walk_one() { # MODE(cold|warm) FS DIR
	local c='' key=$1:$2
	[ $1 = cold ] && c=-c
	local follow='' findl=''
	if [ $2 = farm ]; then
		follow=-L findl=-L
	fi
	timed walk:$key:ls run $c ls -lR $3
	local out
	if out=$($W walk $c $follow $3); then
		res walk:$key:cwalk "${out%% *}"
		res entries:$2 "${out#* }"
	else
		fail "walk $3"
	fi
	# stat's default format looks up user and group names and the time
	# zone for every file (on the 9p root: ~10 ms each, cold): numbers only
	timed walk:$key:find run $c sh -c "find $findl $3 -type f -print0 |
		xargs -0 stat $findl -c '%n %s %f %u %g %h %i %X %Y %Z' >/dev/null"
}

section_walk() {
	local i fs out
	note "section walk"
	cfs_store
	mkdir -p $M/wa $M/wa2 $M/wb $M/wc $M/wd
	$W mount -k composefs $IMG $M/wa basedir=$S >/dev/null
	$W mount -k overlay overlay $M/wa2 "$(ovl_opts $B/ov-a2 $M/wa)" \
		>/dev/null
	$W mount -k overlay overlay $M/wb "$(ovl_opts $B/ov-w $LAYERS)" \
		>/dev/null
	$W mount -k -l erofs $B/erofs.img $M/wc >/dev/null
	$W mount -k bind $B/merged $M/wd >/dev/null
	$bin/cfs-info dump $IMG >$B/farm.dump
	for i in $(seq 1 "$runs"); do
		rm -rf $B/farm
		if out=$($W farm $B/farm.dump $S $B/farm); then
			res farm:create "$out"
		else
			fail "farm"
		fi
	done
	for i in $(seq 1 "$runs"); do
		load
		for fs in composefs cfs+overlay overlay erofs ext4 farm; do
			case $fs in
			composefs) d=$M/wa ;;
			cfs+overlay) d=$M/wa2 ;;
			overlay) d=$M/wb ;;
			erofs) d=$M/wc ;;
			ext4) d=$M/wd ;;
			farm) d=$B/farm ;;
			esac
			walk_one cold $fs $d
			walk_one warm $fs $d
		done
	done
}

note "kernel $(uname -r), $(nproc) cpu, $(free -m | awk '/Mem:/ {print $2}') MiB"
note "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
want vopen && section_vopen
want p2r && section_p2r
want podman && section_podman
want mount && section_mount
want walk && section_walk
load
true
