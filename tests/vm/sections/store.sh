# Section "store": cfs-store on the verity-capable scratch ext4 (issue 14).
# fsck takes the kernel's fs-verity measurement; objects whose content is
# not their name are found and replaced by the next conversion; gc while an
# image is mounted and read (by name with verity, then with its ref gone:
# the mount's digest= keeps it a root) and another image is removed.
# Needs the OCI fixtures built on the host (oci-fixtures/build.sh).
. "$repo/tests/vm/e2e-lib.sh"

store_convert() { # STORE TAG
	$bin/oci2cfs $FX/layout --ref "$2" --store "$1" -q >/dev/null
}

store_fsck_verity() {
	local st=$S/cs objs n m
	check "store: three images converted" eval \
		"store_convert $st realistic && store_convert $st shared-a && store_convert $st shared-b"
	$bin/cfs-store -s $st fsck --json >/tmp/fsck.json
	n=$($py -c "import json; j = json.load(open('/tmp/fsck.json'))
print(j['kernel_measured'] == j['objects'] > 0 and not j['problems'])")
	is_ok "$([ "$n" = True ]; echo $?)" \
		"store: fsck is clean and every object was measured by the kernel"
	objs=($(store_objects $st | head -n 2))
	rm -f $st/${objs[0]} $st/${objs[1]}
	echo wrong >$st/${objs[0]}
	echo wrong too >$st/${objs[1]} && fsverity enable $st/${objs[1]}
	$bin/cfs-store -s $st fsck >/tmp/fsck.out
	is_ok "$([ $? = 1 ] && grep -q "kernel measurement" /tmp/fsck.out; echo $?)" \
		"store: fsck finds both bad objects, one by kernel measurement"
	store_convert $st realistic && store_convert $st shared-a &&
		store_convert $st shared-b
	check "store: conversions replaced the bad objects; fsck clean" \
		$bin/cfs-store -s $st fsck
	m=$(ls $st/damaged | wc -l)
	is_ok "$([ "$m" = 2 ]; echo $?)" "store: both moved aside to damaged/"
}

# Reads every file of the mount again and again until /tmp/stop-reader.
store_reader() { # MNT
	rm -f /tmp/stop-reader /tmp/reader.bad
	while [ ! -e /tmp/stop-reader ]; do
		find "$1" -type f -print0 | xargs -0 -r cat >/dev/null 2>&1 ||
			touch /tmp/reader.bad
	done
}

store_gc_mounted() {
	local st=$S/cs before after pid
	if ! check "store: mount shared-b by name with verity" \
		mount -t composefs shared-b $C -o store=$st,verity; then
		return
	fi
	before=$(cd $C && find . -type f -print0 | sort -z | xargs -0 -r sha256sum)
	store_reader $C &
	pid=$!
	fails "store: rm refuses the mounted image" $bin/cfs-store -s $st rm shared-b
	check "store: rm shared-a and realistic" \
		$bin/cfs-store -s $st rm shared-a realistic
	check "store: gc while shared-b is mounted and read" $bin/cfs-store -s $st gc
	# the ref it was mounted by goes: digest= still makes it a root
	rm $st/refs/shared-b
	check "store: gc with the mounted image's ref gone" $bin/cfs-store -s $st gc
	touch /tmp/stop-reader
	wait $pid
	after=$(cd $C && find . -type f -print0 | sort -z | xargs -0 -r sha256sum)
	is_ok "$([ ! -e /tmp/reader.bad ] && [ "$before" = "$after" ]; echo $?)" \
		"store: every file of the mounted image read, unchanged, during gc"
	umount $C
	check "store: after umount, gc removes it and fsck is clean" \
		eval "$bin/cfs-store -s $st gc >/dev/null && $bin/cfs-store -s $st fsck >/dev/null && [ -z \"\$(ls $st/images)\" ]"
}

store() {
	fixtures_ready store || return
	if ! helper_install; then
		nok "store: install mount.composefs as /sbin/mount.composefs"
		return
	fi
	store_fsck_verity
	store_gc_mounted
	helper_remove
}
