#!/bin/bash
# The in-VM composefs suite (run by init.sh as root inside QEMU).
# Prints unnumbered TAP lines; the host adds the plan.
#   suite.sh [all|basic,verity,overlay,tmpfs,hostile,cycles,SECTION...]
# (hostile runs confine, smaller and verityswap too; each can run alone)
set -u
repo=${CFS_REPO:?}
here=$repo/tests/vm
# The tools: this checkout's build, or the installed package's
# (CFS_VM_BIN=/usr/bin, CFS_VM_INSTALLED=1: the stock-kernel VM).
bin=${CFS_VM_BIN:-$repo/build/bin}
py=/usr/bin/python3
S=/tmp/s		# ext4 scratch disk, fs-verity capable unless:
verity=${CFS_VM_VERITY:-1}	# 0: a kernel without fs-verity (run.sh -V)
C=/tmp/c		# composefs mount point
cycles=${CFS_VM_CYCLES:-1000}
mutations=${CFS_VM_MUTATIONS:-300}

ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; }
check() { # check NAME CMD...: one TAP line from a command's status
	local name=$1
	shift
	local out
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		nok "$name"
		printf '%s\n' "$out" | head -n 20 | sed 's/^/#   /'
	fi
}
fails() { # fails NAME CMD...: the command must fail
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then nok "$name"; else ok "$name"; fi
}

setup() {
	mkdir -p $S $C /tmp/c2 /tmp/ov
	mount -t ext4 /dev/vda $S || { nok "mount scratch disk"; exit 1; }
	$py $here/mktree.py $S/src || { nok "make source tree"; exit 1; }
	check "mkcfs builds the image" \
		$bin/mkcfs $S/src $S/img --digest-store $S/store
	[ "$verity" = 0 ] && return # the noverity section checks the store
	check "store objects have fs-verity" \
		fsverity measure "$(find $S/store -type f -path '*/[0-9a-f][0-9a-f]/*' | head -n 1)"
}

basic() {
	check "mount -t composefs" \
		mount -t composefs $S/img $C -o basedir=$S/store
	grep " $C composefs " /proc/mounts | grep -q "basedir=$S/store" &&
		ok "show_options lists basedir" || nok "show_options lists basedir"
	$py $here/check.py compare $S/src $C
	$py $here/check.py enoent $C
	$py $here/check.py erofs $C
	$py $here/check.py mmap $C
	$py $here/check.py seekdir $C/many
	check "stat -f reports composefs" \
		sh -c "stat -f -c %t $C | grep -qx c078629a"
	check "splice (sendfile) copy equals the file" \
		sh -c "$py -c \"import os,sys;i=os.open('$C/big',0);o=os.open('/tmp/copy',os.O_WRONLY|os.O_CREAT|os.O_TRUNC);n=os.sendfile(o,i,0,1<<30);sys.exit(n!=os.path.getsize('$C/big'))\" && cmp /tmp/copy $S/src/big"
	check "umount" umount $C

	# two images holding one object share its page cache
	mkdir -p $S/src2 && cp -a $S/src/big $S/src2/other-name
	check "second image builds" \
		$bin/mkcfs $S/src2 $S/img2 --digest-store $S/store
	mount -t composefs $S/img $C -o basedir=$S/store &&
		mount -t composefs $S/img2 /tmp/c2 -o basedir=$S/store
	$py $here/check.py sharecache $C/big /tmp/c2/other-name
	umount /tmp/c2
	umount $C
	fails "mount without basedir then read content fails" \
		sh -c "mount -t composefs $S/img $C && cat $C/big >/dev/null"
	umount $C 2>/dev/null
	fails "mount with a missing basedir fails" \
		mount -t composefs $S/img $C -o basedir=/tmp/nonexistent
	fails "mount of a directory as image fails" \
		mount -t composefs $S/src $C -o basedir=$S/store
	fails "unknown option is refused" \
		mount -t composefs $S/img $C -o basedir=$S/store,bogus=1
	fails "verity_check=3 is refused" \
		mount -t composefs $S/img $C -o basedir=$S/store,verity_check=3
}

verity() {
	local obj dig
	cp $S/img $S/img-v
	fsverity enable $S/img-v
	dig=$(fsverity measure $S/img-v | awk '{print $1}')
	dig=${dig#sha256:}
	check "mount with the right digest=" \
		mount -t composefs $S/img-v $C -o basedir=$S/store,digest=$dig
	check "verity_check=2 implied by digest= reads files" cmp $C/big $S/src/big
	umount $C
	fails "mount with a wrong digest= is refused" \
		mount -t composefs $S/img-v $C \
		-o "basedir=$S/store,digest=$(echo "$dig" | tr 0-9a-f 1-9a-f0)"
	cp $S/img-v $S/img-noverity
	fails "digest= on an image without fs-verity is refused" \
		mount -t composefs $S/img-noverity $C -o basedir=$S/store,digest=$dig

	# replace one object by a file with other content and no verity
	obj=$($bin/cfs-info dump $S/img |
		awk '$1=="/big"{print $9}')
	mkdir -p $S/store-bad/${obj%/*}
	head -c 307217 /dev/zero >$S/store-bad/$obj
	mount -t composefs $S/img $C -o basedir=$S/store-bad:$S/store,verity_check=2
	fails "verity_check=2: replaced object gives an error" cat $C/big
	if cat $C/big 2>&1 | grep -q "Input/output error"; then
		ok "verity_check=2: the error is EIO"
	else
		nok "verity_check=2: the error is EIO"
	fi
	check "verity_check=2: intact objects still read" cmp $C/small $S/src/small
	umount $C
	mount -t composefs $S/img $C -o basedir=$S/store-bad:$S/store,verity_check=0
	check "verity_check=0: replaced object is read unchecked" \
		sh -c "cmp -s $C/big /dev/zero -n 307217"
	umount $C
	mount -t composefs $S/img $C -o basedir=$S/store-bad:$S/store,verity_check=1
	fails "verity_check=1: replaced object with a digest gives an error" \
		cat $C/big
	umount $C
	mount -t composefs $S/img $C -o basedir=$S/store-bad:$S/store
	check "basedir list: objects found in a later basedir" \
		cmp $C/etc/copy1 $S/src/etc/copy1
	umount $C
}

overlay() {
	mount -t composefs $S/img $C -o basedir=$S/store
	mkdir -p /tmp/ov/upper /tmp/ov/work /tmp/ov/merged
	local before
	before=$(find $S/store -type f -exec md5sum {} + | sort | md5sum)
	check "overlayfs over composefs mounts" mount -t overlay overlay \
		-o lowerdir=$C,upperdir=/tmp/ov/upper,workdir=/tmp/ov/work \
		/tmp/ov/merged
	check "overlay: read through" cmp /tmp/ov/merged/big $S/src/big
	check "overlay: write a file" sh -c "echo new >>/tmp/ov/merged/small"
	check "overlay: copy-up keeps old content" \
		sh -c "head -c 16 /tmp/ov/merged/small | cmp - $S/src/small"
	check "overlay: delete a file" rm /tmp/ov/merged/etc/copy2
	check "overlay: create a directory" mkdir /tmp/ov/merged/newdir
	check "overlay: composefs lower unchanged" cmp $C/small $S/src/small
	check "overlay: store unchanged" sh -c "test \"$before\" = \"\$(find $S/store -type f -exec md5sum {} + | sort | md5sum)\""
	umount /tmp/ov/merged
	umount $C
}

tmpfs() { # image and objects on tmpfs: no fs-verity, no read_folio
	mkdir -p /tmp/t
	cp -a $S/store /tmp/t/store
	cp $S/img /tmp/t/img
	check "mount an image on tmpfs over a tmpfs store" \
		mount -t composefs /tmp/t/img $C -o basedir=/tmp/t/store
	$py $here/check.py compare $S/src $C | sed 's/^\(not \)\{0,1\}ok - /&tmpfs: /'
	umount $C
	mount -t composefs /tmp/t/img $C -o basedir=/tmp/t/store,verity_check=2
	fails "tmpfs store with verity_check=2 refuses to open" cat $C/small
	umount $C
	rm -rf /tmp/t
}

# Hostile images, manifests and storage: corrupt images (mutate.py),
# backing paths that must stay beneath the store (confine), the smaller
# checks, a device that changes a verity descriptor (verityswap).
hostile() {
	mkdir -p $S/small /tmp/mut
	cp -a $S/src/etc $S/src/small $S/src/rel-link $S/src/fifo \
		$S/src/suid $S/src/empty $S/src/sticky $S/small/
	$bin/mkcfs $S/small $S/img-small --digest-store $S/store >/dev/null
	$py $here/mutate.py $S/img-small $S/store /tmp/mut $mutations
	confine
	smaller
	verityswap
}

confine() {
	rm -rf $S/confine
	mkdir -p $S/confine
	$py $here/confine.py $bin/mkcfs $S/confine $C
}

verityswap() {
	rm -rf $S/verityswap
	mkdir -p $S/verityswap
	$py $here/verityswap.py $bin/mkcfs $S/verityswap $C
}

smaller() {
	rm -rf $S/smaller
	$py $here/smaller.py $bin/mkcfs $S/img $S/store $S/smaller $C
}

# Leaks found by kmemleak whose allocation backtrace runs through composefs.
kmemleak_ours() {
	awk '/^unreferenced object/ { if (r ~ /composefs/) n++; r = "" }
		{ r = r $0 "\n" }
		END { if (r ~ /composefs/) n++; print n + 0 }' \
		/sys/kernel/debug/kmemleak
}

cycles() {
	local kml=/sys/kernel/debug/kmemleak leaked
	[ -e $kml ] && echo clear >$kml
	$py $here/check.py cycles $S/img $S/store $C $cycles
	if [ ! -e $kml ]; then
		echo "# kmemleak not in this kernel: leak check skipped"
		return
	fi
	echo scan >$kml
	sleep 5
	echo scan >$kml
	leaked=$(kmemleak_ours)
	echo "# kmemleak: $(grep -c '^unreferenced object' $kml) suspects in all"
	if [ "$leaked" = 0 ]; then
		ok "kmemleak: no leaks through composefs"
	else
		nok "kmemleak: $leaked leaks through composefs"
		head -n 60 $kml | sed 's/^/#   /'
	fi
}

# More sections: tests/vm/sections/NAME.sh defines a function NAME; they
# run after the built-in ones, in name order.
sections=
for f in "$here"/sections/*.sh; do
	[ -e "$f" ] || continue
	. "$f"
	sections+=" $(basename "$f" .sh)"
done

setup
tests=${*:-all}
tests=${tests//,/ }
[ "$tests" = all ] && tests="basic verity overlay tmpfs hostile cycles$sections"
for t in $tests; do
	echo "# --- $t (at $SECONDS s)"
	$t
done
echo "# --- end (at $SECONDS s)"
