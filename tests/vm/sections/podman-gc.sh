# Section "podman-gc": cfs-store gc under a running podman container
# (issue 14). Images shared-a and shared-b share their base layers; a
# container of b reads every file of its root again and again while a is
# purged and the store collected: gc removes exactly a's own objects, b keeps
# running and every read returns the right bytes (b is mounted with verity:
# a missing or wrong object would be an error). Then fsck on this verity
# store: every object measured by the kernel, and an object without verity
# is computed and found when damaged. Stock-kernel tier only (podman 4.3).
# Needs the OCI fixtures built on the host (oci-fixtures/build.sh).
. "$here/podman-env.sh"
. "$here/podman-steps.sh"

# The container's loop (the image's own busybox): each round hashes every
# file of its root but what podman bind-mounts in, and appends
# "ROUND STATUS STDERR-BYTES SUM-OF-THE-SORTED-LIST" to /out/rounds.
PODGC_PRUNE='( -path ./out -o -path ./etc/hosts -o -path ./etc/hostname -o -path ./etc/resolv.conf -o -path ./run/.containerenv ) -prune -o'
PODGC_LOOP='B=/bin/busybox P="'"$PODGC_PRUNE"'"
cd / || exit 1
i=0
while [ ! -e /out/stop ]; do
	i=$((i + 1))
	$B find . -xdev $P -type f -exec $B sha256sum {} + >/out/cur 2>/out/err
	st=$?
	set -- $($B sort /out/cur | $B sha256sum)
	echo "$i $st $($B wc -c </out/err) $1" >>/out/rounds
done'

podgc_rounds() { # completed rounds of the container's loop
	if [ -f $PV/gc/rounds ]; then wc -l <$PV/gc/rounds; else echo 0; fi
}

podgc_wait_rounds() { # N: wait (at most 5 min) until N rounds are done
	local i
	for i in $(seq 600); do
		[ "$(podgc_rounds)" -ge "$1" ] && return 0
		sleep 0.5
	done
	return 1
}

# What the container must read: the same listing of b's composefs mount,
# made with the same busybox.
podgc_expected() { # DIR
	# shellcheck disable=SC2086 # PODGC_PRUNE is split into find's words
	(cd "$1" && LC_ALL=C /bin/busybox find . -xdev $PODGC_PRUNE -type f \
		-exec /bin/busybox sha256sum {} + | /bin/busybox sort |
		/bin/busybox sha256sum | awk '{print $1}')
}

podgc_fsck() { # FILE: cfs-store fsck --json into FILE; prints its status
	$bin/cfs-store -s $CS fsck --json >"$1" 2>&1
	echo $?
}

podgc_field() { # FILE EXPR: a python expression over the JSON j
	$py -c "import json; j = json.load(open('$1')); print($2)" 2>/dev/null
}

# gc while the container of b runs; leaves A_ONLY (a's own objects).
podgc_collect() {
	local out dig t0 n0
	mkdir -p $PV/gc
	dig=$(podgc_expected $AIS/mnt/$IDB)
	pod_check "gc: podman run -d shared-b reading all its files" \
		pm run -d --name gcb --network none -v $PV/gc:/out \
		--entrypoint /bin/busybox shared-b sh -c "$PODGC_LOOP" || return 1
	pod_check "gc: the container completed a round of reads" \
		podgc_wait_rounds 1 || return 1
	A_ONLY=$(comm -23 $PV/oa $PV/ob)
	echo "# gc: a uses $(wc -l <$PV/oa) objects, b $(wc -l <$PV/ob)," \
		"a alone $(echo "$A_ONLY" | grep -c .)"
	cp $CS/$(echo "$A_ONLY" | head -n 1) $PV/a-object
	pod_check "gc: cfs-podman remove --purge shared-a" \
		$CP remove --purge shared-a || return 1
	n0=$(podgc_rounds)
	t0=$(pod_ms)
	out=$($bin/cfs-store -s $CS gc --json 2>&1)
	echo "# gc: cfs-store gc $(($(pod_ms) - t0)) ms, during round $((n0 + 1))"
	pod_is "$(echo "$out" | $py -c 'import json, sys; j = json.load(sys.stdin)
print("\n".join(sorted(p for p in j["removed"] if not p.startswith("layers/"))))')" \
		"$A_ONLY" "gc: removed exactly the objects only a used" ||
		echo "$out" | head -n 20 | sed 's/^/#   /'
	pod_is "$(pod_objects)" "$(cat $PV/ob)" \
		"gc: the store holds b's objects, all of them and nothing else"
	pod_is "$($bin/cfs-info missing-objects --basedir $CS $CS/images/$IDB.cfs)" \
		"" "gc: cfs-info missing-objects of b is empty"
	pod_is "$(pm inspect --format '{{.State.Running}}' gcb)" true \
		"gc: the container of b is still running"
	# later rounds read from the objects, not the page cache
	echo 3 >/proc/sys/vm/drop_caches
	n0=$(podgc_rounds)
	pod_check "gc: the container completed two more rounds after gc" \
		podgc_wait_rounds $((n0 + 2))
	pod_is "$(awk -v d="$dig" '$2 != 0 || $3 != 0 || $4 != d' $PV/gc/rounds)" "" \
		"gc: every round ($(podgc_rounds)) read every file, no error, the right bytes" ||
		tail -n 3 $PV/gc/err | sed 's/^/#   /'
	pod_is "$($CP check 2>&1; echo $?)" 0 "gc: cfs-podman check is clean"
}

# fsck on the verity store: the kernel measures; an object placed without
# verity is computed, and reported once damaged.
podgc_fsck_verity() {
	local f=$PV/fsck.json obj st n
	st=$(podgc_fsck $f)
	n=$(podgc_field $f 'j["objects"]')
	pod_is "$st:$(podgc_field $f 'j["kernel_measured"] == j["objects"] > 0 and not j["problems"]')" \
		"0:True" "fsck: clean, all $n objects measured by the kernel" ||
		head -n 20 $f | sed 's/^/#   /'
	obj=$(echo "$A_ONLY" | head -n 1)
	mkdir -p $CS/${obj%/*}
	cp $PV/a-object $CS/$obj
	st=$(podgc_fsck $f)
	pod_is "$st:$(podgc_field $f '(j["objects"], j["kernel_measured"], j["problems"])')" \
		"0:($((n + 1)), $n, [])" \
		"fsck: an object copied in without verity is computed, and matches" ||
		head -n 20 $f | sed 's/^/#   /'
	echo x >>$CS/$obj
	st=$(podgc_fsck $f)
	pod_is "$st:$(podgc_field $f '[(p["kind"], p["path"], "(computed)" in p["detail"]) for p in j["problems"]]')" \
		"1:[('damaged', '$obj', True)]" \
		"fsck: ... a byte appended to it is found, by the computed digest" ||
		head -n 20 $f | sed 's/^/#   /'
	pod_check "fsck: gc removes it (no image uses it), then fsck is clean" \
		sh -c "$bin/cfs-store -s $CS gc && $bin/cfs-store -s $CS fsck"
	[ -e $CS/$obj ] && nok "fsck: ... the object is gone" ||
		ok "fsck: ... the object is gone"
}

# stop the container, then purge b: the store ends empty
podgc_end() {
	touch $PV/gc/stop
	pod_is "$(pm wait gcb 2>&1)" 0 "end: the reading container exits 0"
	pm rm gcb >/dev/null 2>&1
	pod_check "end: cfs-podman remove --purge shared-b" \
		$CP remove --purge shared-b || return 1
	pod_check "end: gc" $bin/cfs-store -s $CS gc
	pod_is "$(pod_objects; ls $CS/images)" "" \
		"end: the store holds no object and no image"
}

podman-gc() {
	local FX=$repo/oci-fixtures/out
	CS=$S/cfs-gc	# the cfs store, fs-verity capable
	AIS=$CS/podman	# its additional image store
	CP="$bin/cfs-podman --store $CS"
	L=$FX/layout
	if [ ! -f $L/index.json ]; then
		nok "podman-gc: fixtures missing (run oci-fixtures/build.sh on the host)"
		return
	fi
	if ! pod_env_up "$CS"; then
		nok "podman-gc: environment (writable places, mount.composefs)"
		pod_env_down
		return
	fi
	if pod_register shared-a && IDA=$ID && pod_register shared-b; then
		IDB=$ID
		$bin/cfs-info objects $CS/images/$IDA.cfs >$PV/oa
		$bin/cfs-info objects $CS/images/$IDB.cfs >$PV/ob
		podgc_collect && podgc_fsck_verity
		podgc_end
	fi
	pod_env_down
}
