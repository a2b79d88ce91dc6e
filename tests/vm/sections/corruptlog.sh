# Section "corruptlog": a corrupt image is refused with EUCLEAN and the
# kernel log names the image, as given to mount, and the rule it broke.

# cl_patch IMAGE OFFSET HEX: overwrite bytes of a copy of the image
cl_patch() {
	printf "$(echo "$3" | sed 's/../\\x&/g')" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# cl_logged TEXT: the kernel log since the last cl_mark holds TEXT
cl_mark() { dmesg -C; }
cl_logged() { dmesg | grep -qF -- "$1"; }

corruptlog() {
	local img=/tmp/cl-magic.cfs img2=/tmp/cl-nsec.cfs err
	cp $S/img $img
	cl_patch $img 4 00000000 # superblock magic
	cl_mark
	fails "a bad magic is refused" \
		mount -t composefs $img $C -o basedir=$S/store
	check "the log names the image and the broken rule (magic)" \
		cl_logged "composefs: $img: corrupt image: bad magic or version"

	# inode 1 (the root's first child): st_mtim_nsec = 10^9
	cp $S/img $img2
	cl_patch $img2 $((128 + 96 + 36)) 00ca9a3b
	mount -t composefs $img2 $C -o basedir=$S/store
	cl_mark
	err=$($py -c "import os,sys
try: os.listdir(sys.argv[1]); [os.lstat(os.path.join(sys.argv[1], n)) for n in os.listdir(sys.argv[1])]
except OSError as e: print(e.errno)" $C)
	[ "$err" = 117 ] && ok "an inode with 10^9 nanoseconds reads as EUCLEAN" ||
		nok "an inode with 10^9 nanoseconds reads as EUCLEAN (got '$err')"
	check "the log names the image, the inode and the rule (nanoseconds)" \
		cl_logged "composefs: $img2: corrupt image: inode 1: 1000000000 nanoseconds"
	check "the log says the inode was refused" \
		cl_logged "composefs: $img2: inode 1 refused"
	umount $C
	rm -f $img $img2
}
