# Section "veritydigest": the fs-verity digest composefs computes for a
# backing file equals FS_IOC_MEASURE_VERITY's (`fsverity measure`), on ext4
# and btrfs, for a small, a 4 KiB-aligned, a multi-megabyte and a
# salted file, with both builds of the module: composefs.ko (digest hashed
# from the verity descriptor, as built for a distribution kernel) and
# composefs-export.ko (fsverity_get_digest(), as in tree). A manifest that
# records each object's measured digest must open every file under
# verity_check=2; one with each digest altered must open none (EIO); a file
# without fs-verity, or with SHA-512 fs-verity, is refused. Last, `mount -t
# composefs` loads the module through its fs-composefs alias from a
# depmod'ed module tree.
# (No empty object: an empty file opens no backing file, and a manifest
# claiming another size for one is refused, see tests/vm/confine.py.)

VD=/tmp/vd
VD_NAMES="small aligned big salted noverity sha512"	# sha512 last

vd_fs() { # FS: a mounted FS with the objects in $VD-FS/store
	local fs=$1 dir=$VD-$1
	case $fs in
	ext4)
		mkdir -p $S/vd && ln -sfn $S/vd $dir
		;;
	btrfs)
		mkdir -p $dir
		truncate -s 256M $S/vd-btrfs.img &&
			mkfs.btrfs -q -f $S/vd-btrfs.img >/dev/null 2>&1 &&
			mount -o loop -t btrfs $S/vd-btrfs.img $dir || return 1
		;;
	esac
	mkdir -p $dir/store
	local s=$dir/store
	head -c 100 /dev/urandom >$s/small
	head -c 16384 /dev/urandom >$s/aligned
	head -c $((3 * 1048576 + 1234)) /dev/urandom >$s/big
	head -c 5000 /dev/urandom >$s/salted
	head -c 5000 /dev/urandom >$s/noverity
	head -c 5000 /dev/urandom >$s/sha512
	for f in small aligned big; do
		fsverity enable $s/$f || return 1
	done
	fsverity enable --salt=5a17c0ffee0123456789abcdef $s/salted || return 1
	# SHA-512 fs-verity needs the kernel's sha512 (Debian's has it)
	if ! fsverity enable --hash-alg=sha512 $s/sha512 2>/dev/null; then
		rm $s/sha512
		VD_NAMES=${VD_NAMES% sha512}
	fi
}

# vd_dump STORE [wrong]: a composefs-dump(5) naming each object with the
# digest `fsverity measure` reports (for the file without fs-verity, the
# one `fsverity digest` computes; for the SHA-512 file, the first 32 bytes
# of its digest), or with each digest's first digit changed.
vd_dump() {
	local s=$1 f dig size
	echo "/ 4096 40755 2 0 0 0 0 - - -"
	for f in $VD_NAMES; do
		case $f in
		noverity) dig=$(fsverity digest $s/$f) ;;
		*) dig=$(fsverity measure $s/$f) ;;
		esac
		dig=${dig%% *}
		dig=${dig#*:}
		dig=${dig:0:64}
		[ "${2:-}" = wrong ] && dig=$(echo "${dig:0:1}" | tr 0-9a-f 1-9a-f0)${dig:1}
		size=$(stat -c %s $s/$f)
		echo "/$f $size 100644 1 0 0 0 0 $f - $dig"
	done
}

# vd_open: opens every file of the mount at $C; prints NAME=ok|ERRNO...
vd_open() {
	$py - $C $VD_NAMES <<'EOF'
import errno, os, sys
out = []
for name in sys.argv[2:]:
    try:
        fd = os.open(os.path.join(sys.argv[1], name), os.O_RDONLY)
        os.read(fd, 1)
        os.close(fd)
        out.append(name + "=ok")
    except OSError as e:
        out.append(name + "=" + errno.errorcode[e.errno])
print(" ".join(out))
EOF
}

# vd_expect NAME OPTS [REFUSED...]: mounts $VD_IMG with OPTS and opens
# every file: the REFUSED ones must fail with EIO, the others open.
vd_expect() {
	local name=$1 opts=$2 f want= got
	shift 2
	for f in $VD_NAMES; do
		case " $* " in
		*" $f "*) want+=" $f=EIO" ;;
		*) want+=" $f=ok" ;;
		esac
	done
	want=${want# }
	if ! mount -t composefs $VD_IMG $C -o "$opts"; then
		nok "$name (mount -o $opts failed)"
		return
	fi
	got=$(vd_open)
	umount $C
	if [ "$got" = "$want" ]; then
		ok "$name"
	else
		nok "$name"
		echo "#   want: $want"
		echo "#   got:  $got"
	fi
}

vd_checks() { # MODULE-LABEL FS
	local m=$1 fs=$2 d=$VD-$2 dig base unverified="noverity sha512"
	VD_IMG=$d/img
	base=basedir=$d/store,backing_paths=any
	vd_expect "$m $fs: small, 4k-aligned, 3 MiB and salted files open under verity_check=2; without fs-verity or with SHA-512, EIO" \
		$base,verity_check=2 $unverified
	vd_expect "$m $fs: verity_check=1 refuses the same" \
		$base,verity_check=1 $unverified
	vd_expect "$m $fs: verity_check=0 opens every file" $base,verity_check=0
	dig=$(fsverity measure $d/img)
	dig=${dig%% *}
	vd_expect "$m $fs: digest= of the salted fs-verity image mounts, implies verity_check=2" \
		$base,digest=${dig#sha256:} $unverified
	fails "$m $fs: a wrong digest= is refused" \
		mount -t composefs $d/img $C \
		-o "$base,digest=$(echo "${dig#sha256:}" | rev)"
	umount $C 2>/dev/null
	VD_IMG=$d/img-wrong
	vd_expect "$m $fs: a manifest with each digest altered: every verified open EIO" \
		$base,verity_check=2 $VD_NAMES
}

vd_load() { # MODULE-FILE: make it the loaded composefs module
	grep -q ' composefs ' /proc/mounts && umount -a -t composefs
	rmmod composefs 2>/dev/null
	insmod "$1"
}

# mount -t composefs with the module unloaded: the kernel asks modprobe for
# fs-composefs, which finds it through depmod's alias list.
vd_autoload() {
	local root=/tmp/vd-modroot kver old
	kver=$(uname -r)
	old=$(cat /proc/sys/kernel/modprobe)
	mkdir -p $root/lib/modules/$kver/extra
	cp "$CFS_MODULE" $root/lib/modules/$kver/extra/composefs.ko
	check "depmod: composefs.ko answers the alias fs-composefs" \
		sh -c "depmod -b $root $kver && modprobe -d $root -R fs-composefs | grep -qx composefs"
	printf '#!/bin/sh\nexec modprobe -d %s "$@"\n' $root >/tmp/vd-modprobe
	chmod +x /tmp/vd-modprobe
	grep -q ' composefs ' /proc/mounts && umount -a -t composefs
	check "composefs unloaded" sh -c "rmmod composefs && ! test -d /sys/module/composefs"
	echo /tmp/vd-modprobe >/proc/sys/kernel/modprobe
	check "mount -t composefs with the module unloaded loads it" \
		mount -t composefs $S/img $C -o basedir=$S/store
	check "the autoloaded module reads files" cmp $C/small $S/src/small
	umount $C
	echo "$old" >/proc/sys/kernel/modprobe
	[ -d /sys/module/composefs ] || insmod "$CFS_MODULE"
}

# vd_replace: a verified object remembered by composefs (file.c), then
# replaced in the store under verity_check=2 on btrfs: renamed over by a
# file with fs-verity and other content, then by one without fs-verity:
# each next open of the same composefs path is EIO, while the file opened
# before reads the original content; the original moved back opens again;
# renamed over by an equal copy (so the remembered inode is unlinked), it
# still opens.  Then many opens with cache drops between them, umount, and
# the btrfs must unmount with no inode left busy and kmemleak clean.
vd_replace() {
	local d=$VD-btrfs kml=/sys/kernel/debug/kmemleak busy leaked
	if ! mount -t composefs $d/img $C -o basedir=$d/store,backing_paths=any,verity_check=2; then
		nok "replace: mount $d/img"
		return
	fi
	[ -e $kml ] && echo clear >$kml
	busy=$(dmesg | grep -c 'Busy inodes')
	$py - $C $d/store $VD_NAMES <<'EOF'
import errno, os, subprocess, sys

c, s, names = sys.argv[1], sys.argv[2], sys.argv[3:]
tag = "replace (btrfs, verity_check=2)"


def tap(good, name):
    print(("ok" if good else "not ok") + " - " + tag + ": " + name)


def opens(name):
    try:
        fd = os.open(os.path.join(c, name), os.O_RDONLY)
        os.read(fd, 1)
        os.close(fd)
        return "ok"
    except OSError as e:
        return errno.errorcode[e.errno]


def rename_in(data, verity):
    new = os.path.join(s, "big.new")
    with open(new, "wb") as f:
        f.write(data)
    if verity:
        subprocess.run(["fsverity", "enable", new], check=True)
    os.rename(new, os.path.join(s, "big"))


big = os.path.join(s, "big")
with open(big, "rb") as f:
    orig = f.read()
held = os.open(os.path.join(c, "big"), os.O_RDONLY)
tap(opens("big") == "ok", "big opens twice, verified")
os.link(big, big + ".keep")
rename_in(os.urandom(len(orig)), True)
got = opens("big")
tap(got == "EIO", "renamed over by a fs-verity file of other content: "
    "next open EIO (" + got + ")")
rename_in(orig, False)
got = opens("big")
tap(got == "EIO", "renamed over by the same bytes without fs-verity: "
    "next open EIO (" + got + ")")
tap(os.pread(held, len(orig) + 1, 0) == orig,
    "the file opened before reads the original content")
os.close(held)
os.rename(big + ".keep", big)
tap(opens("big") == "ok", "the original object moved back opens")
rename_in(orig, True)
tap(opens("big") == "ok", "renamed over by an equal fs-verity copy: opens")
want = {n: opens(n) for n in names}
same = True
for i in range(200):
    if i % 50 == 49:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    same = same and {n: opens(n) for n in names} == want
tap(same, "200 rounds of opens, caches dropped between: same results")
EOF
	check "replace: umount composefs" umount $C
	check "replace: umount the btrfs store" umount $d
	if [ "$(dmesg | grep -c 'Busy inodes')" = "$busy" ]; then
		ok "replace: no busy inode left on the btrfs store"
	else
		nok "replace: no busy inode left on the btrfs store"
		dmesg | grep 'Busy inodes' | sed 's/^/#   /'
	fi
	[ -e $kml ] || return 0
	echo scan >$kml
	sleep 5
	echo scan >$kml
	leaked=$(kmemleak_ours)
	if [ "$leaked" = 0 ]; then
		ok "replace: kmemleak: no leaks through composefs"
	else
		nok "replace: kmemleak: $leaked leaks through composefs"
		head -n 60 $kml | sed 's/^/#   /'
	fi
}

veritydigest() {
	local fs m mod tag export=${CFS_MODULE%/*}/composefs-export.ko
	for fs in ext4 btrfs; do
		if ! vd_fs $fs; then
			nok "$fs: objects with fs-verity"
			continue
		fi
		ok "$fs: objects with fs-verity"
		case $VD_NAMES in *sha512) ;; *)
			echo "# no SHA-512 fs-verity in this kernel: not tried" ;;
		esac
		vd_dump $VD-$fs/store >$VD-$fs/dump
		vd_dump $VD-$fs/store wrong >$VD-$fs/dump-wrong
		# to standard output, so that mkcfs enables no fs-verity: the
		# image gets a salted one
		check "$fs: mkcfs builds the manifests, one with a salted fs-verity" sh -c \
			"$bin/mkcfs $VD-$fs/dump - >$VD-$fs/img && $bin/mkcfs $VD-$fs/dump-wrong - >$VD-$fs/img-wrong && fsverity enable --salt=00ff $VD-$fs/img"
	done
	for m in descriptor export; do
		mod=$CFS_MODULE tag=descriptor
		[ $m = export ] && mod=$export tag=fsverity_get_digest
		if [ ! -e "$mod" ]; then
			nok "$m: module $mod exists"
			continue
		fi
		check "$m: modinfo says which digest the module takes" \
			sh -c "modinfo -F verity_digest $mod | grep -qx $tag"
		check "$m: load $mod" vd_load "$mod"
		for fs in ext4 btrfs; do
			[ -e $VD-$fs/img ] && vd_checks $m $fs
		done
	done
	check "reload composefs.ko" vd_load "$CFS_MODULE"
	if [ -e $VD-btrfs/img ]; then
		vd_replace
	else
		nok "replace: no btrfs store"
	fi
	vd_autoload
	mountpoint -q $VD-btrfs && umount $VD-btrfs
	rm -rf $S/vd $S/vd-btrfs.img
}
