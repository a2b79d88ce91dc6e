# Section "e2e": what a host does, end to end. Debian's docker-registry on
# the VM's loopback; the fixture images pushed to it and pulled back with
# skopeo (oci-archive) and straight by oci2cfs docker://, converted by
# oci2cfs into a store on the verity ext4, mounted through
# mount.composefs (store=NAME, digest=, an fstab line, upperdir=), a
# program run from the image; the store unchanged by all of it; dedup
# and page-cache sharing across two images; the helper's failure paths
# with their messages and exit codes.
. "$repo/tests/vm/e2e-lib.sh"

E=/tmp/e2e			# mount points, configs, logs (tmpfs)
e2e_store=$S/e2e-store		# store on the verity ext4
e2e_reg=127.0.0.1:5000
e2e_reg_pid=
e2e_rman=
e2e_rdig=

e2e_registry_start() {
	ip link set lo up || return 1
	mkdir -p $S/registry
	cat >$E/registry.yml <<EOF
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $S/registry
http:
  addr: $e2e_reg
EOF
	docker-registry serve $E/registry.yml >$E/registry.log 2>&1 &
	e2e_reg_pid=$!
	local i
	for i in $(seq 60); do
		curl -fs http://$e2e_reg/v2/ >/dev/null && return 0
		kill -0 $e2e_reg_pid 2>/dev/null || return 1
		sleep 0.5
	done
	return 1
}

e2e_registry_stop() {
	[ -n "$e2e_reg_pid" ] || return 0
	kill $e2e_reg_pid 2>/dev/null
	wait $e2e_reg_pid 2>/dev/null
	e2e_reg_pid=
}

e2e_skopeo() {
	TMPDIR=$S/tmp skopeo --insecure-policy --tmpdir $S/tmp copy -q "$@"
}

# Push the fixture to the registry, pull it back as a host would.
e2e_push_pull() { # TAG
	local t=$1
	check "push $t to the registry (skopeo copy oci: -> docker://$e2e_reg)" \
		e2e_skopeo --dest-tls-verify=false "oci:$FX/layout:$t" \
		"docker://$e2e_reg/cfs/$t:latest"
	check "pull $t from the registry (skopeo copy docker:// -> oci-archive:)" \
		e2e_skopeo --src-tls-verify=false "docker://$e2e_reg/cfs/$t:latest" \
		"oci-archive:$S/pull/$t.tar:$t"
}

# oci2cfs PULLED-TAG into STORE: sets e2e_man, e2e_dig; JSON in $E/TAG.json.
e2e_convert() { # TAG STORE
	e2e_man=''
	e2e_dig=''
	if ! $bin/oci2cfs "$S/pull/$1.tar" --ref "$1" --store "$2" --json \
		>$E/$1.json 2>$E/$1.err; then
		nok "oci2cfs converts the pulled $1 into $2"
		diag_lines $E/$1.err
		return 1
	fi
	e2e_man=$(e2e_json $E/$1.json manifest)
	e2e_dig=$(e2e_json $E/$1.json digest)
	ok "oci2cfs converts the pulled $1 into $2"
}

e2e_json() { # FILE KEY
	$py -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"
}

is_composefs() { # TARGET
	[ "$(findmnt -n -o FSTYPE --mountpoint "$1" | tail -n 1)" = composefs ]
}

# Runs the image's configured Entrypoint + Cmd, with its Env and
# WorkingDir, chrooted into the mount: what a container engine would run.
e2e_run_config() { # MNT CONFIG.json
	$py - "$@" <<'EOF'
import json, os, sys
mnt, config = sys.argv[1:]
c = json.load(open(config))["config"]
env = dict(e.split("=", 1) for e in c.get("Env", []))
argv = c.get("Entrypoint", []) + c.get("Cmd", [])
os.chroot(mnt)
os.chdir(c.get("WorkingDir") or "/")
os.execvpe(argv[0], argv, env)
EOF
}

# mount -a over the private fstab: a line by NAME with store= and verity,
# one by manifest path with basedir= and an upper dir; a second run finds
# them mounted and does nothing; umount of each undoes both layers.
e2e_mount_all() {
	local up=$S/e2e-up4
	mkdir -p $E/m3 $E/m4 $up/u $up/w
	printf '%s %s composefs basedir=%s,digest=%s 0 0\n' \
		"$e2e_man" $E/m3 $e2e_store $e2e_dig >>$E/fstab
	printf 'realistic %s composefs store=%s,upperdir=%s,workdir=%s 0 0\n' \
		$E/m4 $e2e_store $up/u $up/w >>$E/fstab
	run_cmd mount -a -t composefs
	if [ $st = 0 ] && is_composefs $E/m2 && is_composefs $E/m3 &&
		findmnt -n -o FSTYPE --mountpoint $E/m4 | grep -qx overlay &&
		cmp -s $E/m3/etc/motd $E/m4/etc/motd; then
		ok "mount -a -t composefs mounts every fstab line (NAME, manifest path, upperdir)"
	else
		nok "mount -a -t composefs (status $st)"
		diag_lines /tmp/run.err
		findmnt -R /tmp | sed 's/^/#   /'
	fi
	[ "$(findmnt -n -o SOURCE --mountpoint $E/m2)" = realistic ]
	is_ok $? "a mount by NAME shows NAME as its source"
	local before
	before=$(grep -c " $E/m" /proc/mounts)
	run_cmd mount -a -t composefs
	[ $st = 0 ] && [ "$(grep -c " $E/m" /proc/mounts)" = "$before" ]
	is_ok $? "a second mount -a finds them mounted and mounts nothing more"
	echo written >$E/m4/etc/by-mount-a 2>/dev/null &&
		[ -e $up/u/etc/by-mount-a ] && [ ! -e $E/m3/etc/by-mount-a ]
	is_ok $? "the upperdir line of fstab is writable; the write lands in its upper dir"
	check "umount of the three fstab mounts" umount $E/m2 $E/m3 $E/m4
	! grep -qE " $E/m[234] | /run/cfs/" /proc/mounts
	is_ok $? "nothing of them stays mounted (the private composefs of upperdir too)"
}

e2e_realistic() {
	local m=$E/m1 out want
	e2e_push_pull realistic
	e2e_convert realistic $e2e_store || return
	fsverity measure "$e2e_man" | grep -q "^sha256:$e2e_dig "
	is_ok $? "the manifest has fs-verity and its digest is the one printed"

	run_cmd mount -v -t composefs -o store=$e2e_store,digest=$e2e_dig realistic $m
	if [ $st = 0 ] && is_composefs $m &&
		grep -qF "mounting $e2e_man on $m: composefs" /tmp/run.out; then
		ok "mount -t composefs -o store=,digest= NAME: the helper resolves refs/ and mounts"
	else
		nok "mount -t composefs -o store=,digest= NAME (status $st)"
		diag_lines /tmp/run.out
		diag_lines /tmp/run.err
		return
	fi
	out=$(chroot $m /bin/busybox sh -c 'id; cat /etc/motd /etc/hostname; test -e /etc/os-release || echo no-os-release; ls /bin' 2>&1)
	want="uid=0(root) gid=0(root)
welcome to a cfs fixture
changed
no-os-release
busybox
cat
id
ls
sh
stat
true"
	if [ "$out" = "$want" ]; then
		ok "chroot MNT /bin/busybox sh -c ...: runs from the image, sees its files and whiteouts"
	else
		nok "chroot MNT /bin/busybox sh -c ...: output"
		printf '%s\n' "$out" | head -n 20 | sed 's/^/#   got: /'
	fi
	out=$(e2e_run_config $m "${e2e_man%.cfs}.json" 2>&1)
	[ "$out" = "hello from cfs" ]
	is_ok $? "the image's Entrypoint+Cmd (Env, WorkingDir) runs and prints 'hello from cfs'" ||
		echo "#   got: $out"
	[ "$(stat -c %i $m/bin/busybox)" = "$(stat -c %i $m/usr/bin/env)" ] &&
		[ "$(stat -c %h $m/bin/busybox)" = 2 ]
	is_ok $? "hard link bin/busybox = usr/bin/env: one inode, nlink 2"
	dump_equals_ref pulled-realistic $m realistic
	e2e_rman=$e2e_man
	e2e_rdig=$e2e_dig
	store_state $e2e_store >$E/store.before

	# An fstab line (a private /etc/fstab) and `mount TARGET`.
	mkdir -p $E/m2
	printf 'realistic %s composefs ro,store=%s,verity 0 0\n' $E/m2 $e2e_store \
		>$E/fstab
	if mount --bind $E/fstab /etc/fstab; then
		run_cmd mount $E/m2
		if [ $st = 0 ] && is_composefs $E/m2 &&
			cmp -s $E/m2/etc/motd $m/etc/motd &&
			findmnt -n -o OPTIONS --mountpoint $E/m2 | grep -q "digest=$e2e_dig"; then
			ok "fstab line (store=, verity) and mount TARGET: mounted with digest=, while the first mount stays"
		else
			nok "fstab line and mount TARGET (status $st)"
			diag_lines /tmp/run.err
		fi
		check "umount TARGET of the fstab mount" umount $E/m2
		e2e_mount_all
		umount /etc/fstab
	else
		nok "bind-mount a private /etc/fstab"
	fi
	check "umount the store= mount" umount $m

	e2e_upper
	run_cmd mount -t composefs -o store=$e2e_store,digest=$e2e_dig realistic $m
	if [ $st = 0 ] && [ "$(cat $m/etc/hostname)" = changed ] &&
		[ ! -e $m/etc/new-file ] && [ ! -e $m/root/written ] &&
		[ "$(cat $m/etc/motd)" = "welcome to a cfs fixture" ]; then
		ok "remount: the image is as it was (no writes of the upperdir mount show)"
	else
		nok "remount: the image is as it was (status $st)"
		diag_lines /tmp/run.err
	fi
	umount $m
	store_state $e2e_store >$E/store.after
	if cmp -s $E/store.before $E/store.after; then
		ok "store and manifest unchanged by mounts, writes, umount, remount ($(wc -l <$E/store.after) files, sha256)"
	else
		nok "store and manifest unchanged (sha256 of every file)"
		diff $E/store.before $E/store.after | head -n 10 | sed 's/^/#   /'
	fi
}

# oci2cfs docker:// straight from the registry (issue 15): the same
# manifest as converting the archive skopeo pulled; the ref is the name
# pulled; mounted through that ref, the image's program runs.
e2e_direct_pull() {
	local s=$S/e2e-direct m=$E/m3 name=$e2e_reg/cfs/realistic:latest out man
	printf '[[registry]]\nlocation = "%s"\ninsecure = true\n' $e2e_reg \
		>$E/registries.conf
	echo '{"default":[{"type":"insecureAcceptAnything"}]}' >$E/policy.json
	if ! CONTAINERS_REGISTRIES_CONF=$E/registries.conf TMPDIR=$S/tmp \
		$bin/oci2cfs docker://$name --store $s --json \
		--signature-policy $E/policy.json >$E/direct.json 2>$E/direct.err; then
		nok "oci2cfs docker://$name pulls from the registry"
		diag_lines $E/direct.err
		return
	fi
	ok "oci2cfs docker://$name pulls from the registry"
	[ "$(e2e_json $E/direct.json digest)" = "$e2e_rdig" ]
	is_ok $? "its manifest digest equals the one of the skopeo-pulled archive"
	man=$(readlink -f "$s/refs/$name")
	[ "$man" = "$(readlink -f "$(e2e_json $E/direct.json manifest)")" ]
	is_ok $? "STORE/refs/$name names it"
	mkdir -p $m
	run_cmd mount -t composefs -o basedir=$s,digest=$e2e_rdig "$s/refs/$name" $m
	if [ $st != 0 ] || ! is_composefs $m; then
		nok "mount the pulled image through its ref (status $st)"
		diag_lines /tmp/run.err
		return
	fi
	ok "mount the pulled image through its ref, with digest="
	out=$(e2e_run_config $m "${man%.cfs}.json" 2>&1)
	[ "$out" = "hello from cfs" ]
	is_ok $? "the pulled image's Entrypoint+Cmd runs" || echo "#   got: $out"
	check "umount the pulled image" umount $m
}

# A writable mount: composefs below /run/cfs/, overlayfs on the target.
e2e_upper() {
	local rw=$E/rw up=$S/e2e-up wk=$S/e2e-work pid out
	mkdir -p $rw $up $wk
	run_cmd mount -t composefs -o store=$e2e_store,upperdir=$up,workdir=$wk realistic $rw
	if [ $st != 0 ] ||
		[ "$(findmnt -n -o FSTYPE --mountpoint $rw)" != overlay ]; then
		nok "mount -o upperdir=,workdir=: overlay on the target (status $st)"
		diag_lines /tmp/run.err
		return
	fi
	ok "mount -t composefs -o store=,upperdir=,workdir=: an overlay on the target"
	grep -q "^[^ ]* /run/cfs/[0-9a-f]* composefs " /proc/mounts
	is_ok $? "upperdir=: the image is mounted below /run/cfs/"
	out=$(chroot $rw /bin/busybox sh -c 'echo from-container >/root/written &&
		echo new >/etc/new-file && echo more >>/etc/motd &&
		rm /etc/hostname && cat /etc/motd' 2>&1)
	[ "$out" = "welcome to a cfs fixture
more" ]
	is_ok $? "upperdir=: write, append, delete from inside the image" ||
		echo "#   $out"
	[ "$(cat $up/root/written)" = from-container ] &&
		[ "$(cat $up/etc/new-file)" = new ] &&
		[ "$(cat $up/etc/motd)" = "welcome to a cfs fixture
more" ] && [ "$(stat -c '%F %t:%T' $up/etc/hostname)" = "character special file 0:0" ]
	is_ok $? "upperdir=: the upper dir holds the new files, the copy-up and a whiteout" ||
		find $up | sed 's/^/#   /'
	(cd $rw && exec sleep 60) &
	pid=$!
	sleep 0.5
	run_cmd umount $rw
	expect_fail 32 "$rw: target is busy" "umount of a busy upperdir mount: exit 32, target is busy"
	kill $pid
	wait $pid 2>/dev/null
	run_cmd umount $rw
	if [ $st = 0 ] && ! mountpoint -q $rw &&
		! grep -q " /run/cfs/" /proc/mounts; then
		ok "umount TARGET of the upperdir mount: overlay and the private composefs mount gone"
	else
		nok "umount of the upperdir mount (status $st)"
		diag_lines /tmp/run.err
		grep " /run/cfs/\| $rw " /proc/mounts | sed 's/^/#   /'
	fi
}

e2e_dedup() {
	local st2=$S/e2e-dedup na nb n_new n_b exp obj
	e2e_push_pull shared-a
	e2e_push_pull shared-b
	e2e_convert shared-a $st2 || return
	local man_a=$e2e_man
	store_objects $st2 >$E/objs-a
	na=$(wc -l <$E/objs-a)
	e2e_convert shared-b $st2 || return
	local man_b=$e2e_man
	nb=$(store_objects $st2 | wc -l)
	n_new=$(e2e_json $E/shared-b.json new_objects)
	if ! ref_dump shared-b $E/ref-b; then
		nok "reference dump of shared-b"
		return
	fi
	awk '$11 != "-" { print substr($11, 1, 2) "/" substr($11, 3) }' $E/ref-b |
		sort -u >$E/digests-b
	n_b=$(wc -l <$E/digests-b)
	exp=$(comm -23 $E/digests-b $E/objs-a | wc -l)
	if [ "$exp" -gt 0 ] && [ "$exp" -lt "$n_b" ] && [ $((nb - na)) = "$exp" ] &&
		[ "$n_new" = "$exp" ]; then
		ok "dedup: shared-b adds only its $exp unshared objects of $n_b ($na -> $nb; --json new_objects $n_new)"
	else
		nok "dedup: shared-b adds only its unshared objects: $na -> $nb, want +$exp of $n_b, --json says $n_new"
	fi
	mkdir -p $E/a $E/b
	mount -t composefs -o basedir=$st2 "$man_a" $E/a &&
		mount -t composefs -o store=$st2 shared-b $E/b &&
		is_composefs $E/a && is_composefs $E/b &&
		cmp -s $E/a/srv/only-a $E/b/srv/also-in-a &&
		[ ! -e $E/a/srv/only-b ] && [ ! -e $E/b/srv/only-a ]
	is_ok $? "dedup: both images mounted at once, each with its own files"
	obj=$st2/$($bin/cfs-info dump "$man_a" | awk '$1 == "/bin/busybox" { print $9 }')
	$py - "$here" "$obj" $E/a/bin/busybox $E/b/bin/busybox <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import check
obj, a, b = sys.argv[2:]
with open('/proc/sys/vm/drop_caches', 'w') as f:
    f.write('3\n')
before = (check.resident(obj), check.resident(b))
with open(a, 'rb') as f:
    f.read()
after = (check.resident(obj), check.resident(b))
pages = (check.os.path.getsize(obj) + check.mmap.PAGESIZE - 1) // check.mmap.PAGESIZE
check.tap(before[0] < pages and before[1] < pages and
          after == (pages, pages),
          'dedup: reading bin/busybox through image a caches the shared '
          'object for image b (object, b: %s -> %s of %d pages)'
          % (before, after, pages))
sys.exit(check.failed)
EOF
	$py "$here/check.py" sharecache $E/a/srv/only-a $E/b/srv/also-in-a |
		sed 's/^\(not \)\{0,1\}ok - /&dedup: srv\/only-a (a) and srv\/also-in-a (b): /'
	umount $E/a
	umount $E/b
}

# The helper's failure paths: message (one line) and mount(8) exit status.
e2e_failures() {
	local m=$E/m1 man=$e2e_rman pid
	run_cmd mount -t composefs -o basedir=$e2e_store $E/none.cfs $m
	expect_fail 32 "mount.composefs: $E/none.cfs: image does not exist" \
		"failure: missing image: exit 32, names it"
	head -c 4096 /dev/urandom >$E/random.img
	run_cmd mount -t composefs -o basedir=$e2e_store $E/random.img $m
	expect_fail 32 "$E/random.img: corrupt image: bad magic (not a composefs image)" \
		"failure: not a composefs image: exit 32"
	cp "$man" $E/v2.cfs
	printf '\002\000\000\000' | dd of=$E/v2.cfs conv=notrunc status=none
	run_cmd mount -t composefs -o basedir=$e2e_store $E/v2.cfs $m
	expect_fail 32 "$E/v2.cfs: corrupt image: unsupported version 2" \
		"failure: wrong version: exit 32, names the version"
	local d0
	d0=$(printf '%064d' 0)
	run_cmd mount -t composefs -o basedir=$e2e_store,digest=$d0 "$man" $m
	expect_fail 32 "fs-verity digest $e2e_rdig does not match digest=$d0" \
		"failure: wrong digest=: exit 32, both digests shown"
	run_cmd mount -t composefs -o basedir=$e2e_store:$E/nodir "$man" $m
	expect_fail 32 "basedir $E/nodir: does not exist" \
		"failure: missing basedir: exit 32"
	run_cmd setpriv --reuid=65534 --regid=65534 --clear-groups \
		/sbin/mount.composefs -o basedir=$e2e_store "$man" $m
	expect_fail 1 "mount.composefs: $man: must be superuser to mount composefs" \
		"failure: unprivileged caller: exit 1"
	! mountpoint -q $m
	is_ok $? "nothing mounted after the failures"

	mount -t composefs -o store=$e2e_store realistic $m
	run_cmd mount -t composefs -o store=$e2e_store realistic $m
	expect_fail 32 "target busy: $m already has a composefs mount" \
		"failure: target busy (a composefs mount there already): exit 32"
	(cd $m && exec sleep 60) &
	pid=$!
	sleep 0.5
	run_cmd umount $m
	expect_fail 32 "$m: target is busy" \
		"failure: umount of a composefs mount in use: exit 32, target is busy"
	kill $pid
	wait $pid 2>/dev/null
	check "umount once it is no longer in use" umount $m

	if grep -q ' composefs ' /proc/mounts; then
		nok "failure: module not loaded (composefs still mounted: cannot rmmod)"
		grep ' composefs ' /proc/mounts | sed 's/^/#   /'
		return
	fi
	if ! rmmod composefs; then
		nok "failure: module not loaded (rmmod composefs failed)"
		return
	fi
	if [ -z "${CFS_MODULE:-}" ]; then # installed (DKMS): mount loads it
		check "module unloaded: the next mount loads it again (fs-composefs alias)" \
			sh -c "mount -t composefs -o store=$e2e_store realistic $m &&
				grep -q '^composefs ' /proc/modules"
		umount $m
		return
	fi
	run_cmd mount -t composefs -o store=$e2e_store realistic $m
	expect_fail 32 "the kernel has no composefs filesystem (module not loaded): load it with 'modprobe composefs'" \
		"failure: module not loaded: exit 32, says how to load it"
	! mountpoint -q $m
	is_ok $? "module not loaded: nothing mounted"
	if insmod "$CFS_MODULE"; then
		check "insmod again: mount works" \
			mount -t composefs -o store=$e2e_store realistic $m
		umount $m
	else
		nok "insmod $CFS_MODULE again"
	fi
}

e2e() {
	local t0=$SECONDS
	fixtures_ready e2e || return
	if ! helper_install; then
		nok "e2e: install mount.composefs as /sbin/mount.composefs"
		return
	fi
	mkdir -p $E/m1 $S/pull $S/tmp $e2e_store
	if e2e_registry_start; then
		ok "docker-registry serves on $e2e_reg (loopback)"
	else
		nok "docker-registry serves on $e2e_reg (loopback)"
		diag_lines $E/registry.log
		e2e_registry_stop
		return
	fi
	echo "# e2e: registry up at $((SECONDS - t0)) s"
	e2e_realistic
	echo "# e2e: realistic done at $((SECONDS - t0)) s"
	[ -n "$e2e_rdig" ] && e2e_direct_pull
	echo "# e2e: direct pull done at $((SECONDS - t0)) s"
	e2e_dedup
	e2e_registry_stop
	echo "# e2e: dedup done at $((SECONDS - t0)) s"
	if [ -n "$e2e_rman" ]; then
		e2e_failures
	else
		nok "failure paths: no converted realistic image to test them with"
	fi
	echo "# e2e: $((SECONDS - t0)) s"
	helper_remove
}
