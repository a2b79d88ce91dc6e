# The steps of the podman section (sourced by sections/podman.sh). Each
# returns non-zero when the steps after it cannot be meaningful.
# Uses S, bin, repo (suite.sh), CS, AIS, CP, L, ARCHIVE (the section).

pm() { command podman "$@"; }

pod_check() { # NAME CMD...: like check, and returns the command's status
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$name"
		return 0
	fi
	nok "$name"
	printf '%s\n' "$out" | head -n 20 | sed 's/^/#   /'
	return 1
}

pod_is() { # GOT WANT NAME
	if [ "$1" = "$2" ]; then
		ok "$3"
		return 0
	fi
	nok "$3"
	printf '%s\n' "got:" "$1" "expected:" "$2" | head -n 20 | sed 's/^/#   /'
	return 1
}

pod_true() { # NAME CMD...: the command's status, without its output
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then ok "$name"; return 0; fi
	nok "$name"
	return 1
}

pod_ms() { date +%s%3N; }

# Config digest (hex) of a tagged image in the fixture layout.
pod_config_hex() { # TAG
	$py $repo/tests/integration/layout-config.py "$L" "$1"
}

pod_objects() { # the objects in the cfs store, as xx/yyyy, sorted
	(cd $CS && find . -mindepth 2 -maxdepth 2 -type f \
		-path './[0-9a-f][0-9a-f]/*' | sed 's|^\./||' | sort)
}

pod_verity_hex() { # FILE: its fs-verity digest, as the kernel measures it
	local d
	d=$(fsverity measure "$1" 2>/dev/null | awk '{print $1}')
	echo "${d#sha256:}"
}

# Options of the composefs mount at DIR ("" if none).
pod_mount_opts() { # DIR
	awk -v d="$1" '$2 == d && $3 == "composefs" { print $4 }' /proc/mounts
}

# Registers TAG through oci2cfs --podman and checks the real path: the
# manifest has fs-verity and is mounted with its digest= by the kernel.
pod_register() { # TAG -> sets ID
	local tag=$1 dig opts t0
	ID=$(pod_config_hex "$tag")
	t0=$(pod_ms)
	pod_check "oci2cfs $tag --podman --require-verity" \
		$bin/oci2cfs "$L" --ref "$tag" --store $CS --podman \
		--require-verity -q || return 1
	echo "# oci2cfs --podman $tag: $(($(pod_ms) - t0)) ms"
	dig=$(pod_verity_hex $CS/images/$ID.cfs)
	opts=$(pod_mount_opts $AIS/mnt/$ID)
	case ",$opts," in
	*,ro,*digest=$dig,*verity_check=2,*)
		ok "$tag: composefs mount with the manifest's digest= (verity_check=2)" ;;
	*)
		nok "$tag: composefs mount with the manifest's digest= (verity_check=2)"
		echo "#   digest '$dig', mount options '$opts'"
		return 1 ;;
	esac
}

# --- two images sharing a base
pod_shared() {
	local ida idb s1 oa ob added line want
	pod_is "$(pod_objects)" "" "shared: the cfs store starts empty" || return 1
	pod_register shared-a || return 1
	ida=$ID
	s1=$(pod_objects)
	pod_is "$($bin/cfs-info missing-objects --basedir $CS $CS/images/$ida.cfs)" \
		"" "shared: the store holds every object a needs"
	pod_register shared-b || return 1
	idb=$ID
	IDA=$ida IDB=$idb
	# (no process substitution: the VM's /dev has no /dev/fd)
	echo "$s1" >$PV/s1
	pod_objects >$PV/s2
	$bin/cfs-info objects $CS/images/$ida.cfs >$PV/oa
	$bin/cfs-info objects $CS/images/$idb.cfs >$PV/ob
	added=$(comm -13 $PV/s1 $PV/s2)
	echo "# shared: a uses $(wc -l <$PV/oa) objects, b $(wc -l <$PV/ob)," \
		"both $(comm -12 $PV/oa $PV/ob | wc -l);" \
		"adding b stored $(echo "$added" | grep -c .)"
	[ -n "$added" ] && [ "$added" = "$(comm -23 $PV/ob $PV/s1)" ] &&
		ok "shared: adding b stored only the objects the store lacked" ||
		nok "shared: adding b stored only the objects the store lacked"
	[ "$(comm -12 $PV/oa $PV/ob | wc -l)" -ge 20 ] &&
		ok "shared: the base's files are one set of objects for both" ||
		nok "shared: the base's files are one set of objects for both"
	pod_is "$($bin/cfs-info ls $CS/images/$ida.cfs | grep '^/srv/shared-05 @')" \
		"$($bin/cfs-info ls $CS/images/$idb.cfs | grep '^/srv/shared-05 @')" \
		"shared: a shared base file has one backing object"
	want=$(printf '%s\n' "${ida:0:12} localhost/shared-a:latest true" \
		"${idb:0:12} localhost/shared-b:latest true")
	pod_is "$(pm images --format '{{.ID}} {{.Repository}}:{{.Tag}} {{.ReadOnly}}' | sort)" \
		"$want" "shared: podman images lists both, read-only" || return 1
	pod_check "shared: podman run -d shared-a" pm run -d --name sa \
		--network none shared-a /bin/busybox sleep 600 || return 1
	pod_check "shared: podman run -d shared-b" pm run -d --name sb \
		--network none shared-b /bin/busybox sleep 600 || return 1
	pod_is "$(pm ps --filter status=running --format '{{.Names}} {{.Image}}' | sort)" \
		"$(printf '%s\n' "sa localhost/shared-a:latest" \
			"sb localhost/shared-b:latest")" \
		"shared: both containers run at once"
	line=$(pm exec sa cat /srv/only-a /srv/shared-00 /srv/shared-03)
	pod_is "$line" "$(printf '%s\n' "only in image a" \
		"a's own version of shared-00" \
		"shared object 3" "shared object 3" "shared object 3" \
		"shared object 3")" "shared: a sees its own files and the base"
	line=$(pm exec sb cat /srv/only-b /srv/shared-00)
	pod_is "$line" "$(printf '%s\n' "only in image b" "shared object 0")" \
		"shared: b sees its own files and the base"
	fails "shared: b does not see a's files" pm exec sb cat /srv/only-a
}

# --- a reboot: mounts gone, cfs-podman sync brings them back
pod_reboot() {
	local out st
	pod_check "reboot: containers stopped and removed" \
		pm rm -f -t 0 sa sb || return 1
	pod_check "reboot: composefs mounts unmounted" \
		umount $AIS/mnt/$IDA $AIS/mnt/$IDB || return 1
	out=$($CP check 2>&1)
	st=$?
	pod_is "$st:$(grep -c "not mounted" <<<"$out")" "1:2" \
		"reboot: cfs-podman check reports both mounts missing" ||
		echo "$out" | sed 's/^/#   /'
	out=$($CP sync 2>&1)
	st=$?
	pod_is "$st:$(echo "$out" | grep -c repaired)" "0:2" \
		"reboot: cfs-podman sync remounts both" ||
		echo "$out" | sed 's/^/#   /'
	case ",$(pod_mount_opts $AIS/mnt/$IDB)," in
	*,digest=$(pod_verity_hex $CS/images/$IDB.cfs),*)
		ok "reboot: remounted with digest=" ;;
	*) nok "reboot: remounted with digest=" ;;
	esac
	pod_is "$($CP sync 2>&1; echo $?)" 0 "reboot: sync again does nothing"
	pod_is "$($CP check 2>&1; echo $?)" 0 "reboot: check is clean"
	pod_is "$(pm run --rm --network none shared-b /bin/busybox cat /srv/only-b 2>&1)" \
		"only in image b" "reboot: podman run works again"
}

# remove while the mount is held busy, and right after a container exits
pod_shared_remove() {
	local holder short out st
	[ -n "${IDA:-}" ] || return 0
	pm rm -f -t 0 sa sb >/dev/null 2>&1
	(cd $AIS/mnt/$IDA && exec sleep 600) &
	holder=$!
	sleep 0.5
	out=$($CP remove shared-a 2>&1)
	st=$?
	pod_is "$st:$(grep -c "still in use after 10 s" <<<"$out")" "1:1" \
		"busy: cfs-podman remove of an image whose mount stays in use: exit 1, says so" ||
		echo "$out" | sed 's/^/#   /'
	pod_true "busy: the image is unregistered, its mount is left (no lazy unmount)" \
		sh -c "! podman images | grep -q shared-a && mountpoint -q $AIS/mnt/$IDA"
	out=$(pm run --rm --network none shared-b /bin/busybox cat /srv/only-b 2>&1 &&
		$CP remove shared-b 2>&1)
	pod_is "$?:$out" "0:only in image b" \
		"cfs-podman remove right after a container of the image exits"
	(cd $AIS/mnt/$IDA && exec sleep 3) &
	short=$!
	kill $holder
	wait $holder 2>/dev/null
	out=$($CP sync 2>&1)
	st=$?
	pod_is "$st:$(pod_mount_opts $AIS/mnt/$IDA)" "0:" \
		"busy: sync waits out a mount busy for a moment and unmounts the one left" ||
		echo "$out" | sed 's/^/#   /'
	wait $short
	pod_is "$(pm images -q)" "" "shared: podman lists no image"
	pod_is "$($CP check 2>&1; echo $?)" 0 "busy: cfs-podman check is clean afterwards"
}

# --- unmount at once after a container exits (issue 17): nothing stays
# mounted, and cfs-podman sync (the boot unit's command) remounts
pod_exit_umount() {
	local i st out left
	for i in 1 2 3; do
		pm run --rm --network none realistic >/dev/null 2>&1
		umount -a -t composefs
		st=$?
		left=$(awk '$3 == "composefs" { print $2 }' /proc/mounts)
		pod_is "$st:$left" "0:" \
			"exit, then at once umount -a -t composefs leaves no composefs mount (run $i)" ||
			grep -E " (composefs|overlay) " /proc/mounts | sed 's/^/#   /'
		out=$($CP sync 2>&1)
		st=$?
		pod_is "$st:$(grep -c repaired <<<"$out")" "0:1" \
			"... cfs-podman sync remounts the image (run $i)" ||
			echo "$out" | sed 's/^/#   /'
	done
	pod_is "$(pm run --rm --network none realistic 2>&1)" "hello from cfs" \
		"... and podman run works again"
	# Nor does a running container keep the mount busy: overlayfs holds
	# private clones of its lower mounts.
	pod_check "a container runs (podman run -d)" pm run -d --name held \
		--network none realistic sleep 600 || return 1
	umount -a -t composefs
	st=$?
	pod_is "$st:$(awk '$3 == "composefs" { print $2 }' /proc/mounts)" "0:" \
		"while it runs, umount -a -t composefs unmounts the image"
	pod_is "$(pm exec held cat /etc/motd 2>&1)" "welcome to a cfs fixture" \
		"... and the running container still reads the image"
	pm rm -f -t 0 held >/dev/null 2>&1
	pod_is "$($CP sync 2>&1 | grep -c repaired)" 1 "... cfs-podman sync remounts it"
}

# What a container of IMAGE sees: config, then every entry of its root
# filesystem (mode, owner; size, links and md5 for non-directories),
# without the files podman bind-mounts in. The tools are the host's static
# busybox, bind-mounted at /busybox in both containers: the pulled image's own
# busybox is not executable (see pod_pulled).
POD_PROBE='echo "$PATH $LANG"; pwd; id -u; id -g'
POD_LIST='F="/busybox find . -xdev ( -path ./busybox -o -path ./etc/hosts -o -path ./etc/hostname -o -path ./etc/resolv.conf -o -path ./run/.containerenv ) -prune -o"
cd / && { $F -type d -exec /busybox stat -c "%n %A %u:%g" {} +
$F ! -type d -exec /busybox stat -c "%N %A %u:%g %s %h" {} +
$F -type f -exec /busybox md5sum {} + ; } | /busybox sort'

pod_view() { # IMAGE OUTFILE-PREFIX
	pm run --rm --network none -v /bin/busybox:/busybox:ro --entrypoint /busybox \
		"$1" sh -c "$POD_PROBE" >"$2.probe" 2>&1 || { cat "$2.probe"; return 1; }
	pm run --rm --network none -v /bin/busybox:/busybox:ro --entrypoint /busybox \
		"$1" sh -c "$POD_LIST" >"$2.list" 2>&1 || { tail "$2.list"; return 1; }
}

# --- the reference: the same image pulled normally, then removed again
# (its id is the config digest too: both at once would share the id).
# The fixture's hard link usr/bin/env -> bin/busybox has mode 0644 in its
# tar header: podman applies a link header's mode to the shared inode, so
# the pulled image's busybox is 0644 and its Entrypoint cannot run.
pod_pulled() {
	local t0 id
	id=$(pod_config_hex realistic)
	t0=$(pod_ms)
	pod_check "podman pull oci-archive:realistic (the reference)" \
		pm pull -q oci-archive:$ARCHIVE || return 1
	echo "# podman pull oci-archive: $(($(pod_ms) - t0)) ms"
	pod_is "$(pm images -q --no-trunc)" "sha256:$id" \
		"the pulled image's id is the config digest" || return 1
	pod_check "the pulled image's view" pod_view $id $PV/pulled || return 1
	pod_check "podman rmi the pulled image" pm rmi $id
}

# --- the realistic image through composefs
pod_realistic() {
	local t0 n
	pod_register realistic || return 1
	RID=$ID
	pod_is "$(pm images --format '{{.ID}} {{.Repository}}:{{.Tag}} {{.ReadOnly}}')" \
		"${RID:0:12} localhost/realistic:latest true" \
		"podman images lists the composefs image" || return 1
	t0=$(pod_ms)
	pod_is "$(pm run --rm --network none realistic 2>&1)" "hello from cfs" \
		"podman run runs Entrypoint + Cmd" || return 1
	echo "# podman run --rm (composefs): $(($(pod_ms) - t0)) ms"
	pod_check "the composefs image's view" pod_view realistic $PV/cfs ||
		return 1
	pod_is "$(cat $PV/cfs.probe)" "$(printf '%s\n' "/usr/bin:/bin C.UTF-8" \
		/root 0 0)" "podman run honours Env, WorkingDir, User"
	pod_is "$(cat $PV/cfs.probe)" "$(cat $PV/pulled.probe)" \
		"... as for the pulled image"
	n=$(wc -l <$PV/cfs.list)
	echo "# $n entries in the container's view"
	[ "$n" -gt 1000 ] && ok "the container lists the image's files ($n)" ||
		nok "the container lists the image's files ($n)"
	pod_compare_views $PV/pulled.list $PV/cfs.list
}

# The two listings must be equal but for the two differences containers-
# storage makes when it unpacks (cfs-podman(8), DIFFERENCES): it skips a
# layer's root entry, so a pulled image's root is always 0555 (its default
# for a layer's diff); and it applies the mode of a hard link's tar header
# to the shared inode, where oci2cfs, like GNU tar, libarchive and umoci,
# keeps the target's (the fixture's usr/bin/env -> bin/busybox header says
# 0644, which leaves podman's busybox not executable). Each is checked to
# be exactly that; anything else is a failure.
pod_compare_views() { # PULLED CFS
	$py - "$1" "$2" <<'EOF'
import re, sys

MODE = re.compile(r"^[-dlcbps][-rwxsStT]{9}$")

def unmoded(line):
    f = line.split()
    return tuple("MODE" if MODE.match(x) else x for x in f), f

def mode_of(f):
    return [x for x in f if MODE.match(x)][0]

a = set(open(sys.argv[1]).read().splitlines())
b = set(open(sys.argv[2]).read().splitlines())
only_b = {unmoded(l)[0]: l for l in b - a}
bad, known = [], []
for line in sorted(a - b):
    key, f = unmoded(line)
    other = only_b.pop(key, None)
    if other is None or not any(MODE.match(x) for x in f):
        bad.append("pulled:    " + line)
        continue
    pulled, ours = mode_of(f), mode_of(other.split())
    if f[0] == "." and pulled == "dr-xr-xr-x":
        known.append("root: / is %s pulled (containers-storage skips the "
                     "layer's root entry), %s in composefs" % (pulled, ours))
    elif pulled[0] == "-" and f[-1] != "1":
        known.append("hard link: %s pulled (mode of a link header), %s in "
                     "composefs (the target's)" % (line, ours))
    else:
        bad.append("pulled:    " + line)
        bad.append("composefs: " + other)
bad += ["composefs: " + l for l in sorted(only_b.values())]
name = ("file listing (modes, owners, sizes, links, md5) equals the pulled "
        "image's but for the documented differences")
print(("ok - " if not bad else "not ok - ") + name)
for line in bad[:20]:
    print("#   " + line)
for k in known:
    print("ok - documented difference, " + k)
EOF
}

pod_tree_sum() { # DIR
	$py $repo/tests/integration/refdump.py --normalise "$1" | sha256sum
}

pod_store_sum() { # every file of the cfs store but podman's records
	(cd $CS && find . -path ./podman -prune -o -type f -print0 | sort -z |
		xargs -0 sha256sum | sha256sum)
}

# --- a container's writes land in its upper dir, nothing else changes
pod_writes() {
	local mnt=$AIS/mnt/$RID up tree0 store0 recs0 dig0
	tree0=$(pod_tree_sum $mnt)
	store0=$(pod_store_sum)
	recs0=$(cd $AIS && find overlay-images overlay-layers -type f \
		-exec sha256sum {} + | sort)
	dig0=$(pod_verity_hex $CS/images/$RID.cfs)
	pod_check "a container writes, creates and deletes" \
		pm run --name writer --network none realistic sh -c \
		'echo new >/etc/motd && rm /etc/group && echo x >/root/new &&
		rm -r /usr/share/man/man5' || return 1
	up=$(pm inspect --format '{{.GraphDriver.Data.UpperDir}}' writer)
	pod_is "$(readlink -f "$(pm inspect --format '{{.GraphDriver.Data.LowerDir}}' writer)")" \
		"$mnt" "its lower dir is the composefs mount"
	case $up in
	/var/lib/containers/storage/overlay/*/diff) ok "its upper dir is in podman's store" ;;
	*) nok "its upper dir is in podman's store ($up)" ;;
	esac
	[ "$(cat $up/etc/motd)" = new ] && [ "$(cat $up/root/new)" = x ] &&
		[ "$(stat -c %F:%t:%T $up/etc/group)" = "character special file:0:0" ] &&
		[ "$(stat -c %F:%t:%T $up/usr/share/man/man5)" = "character special file:0:0" ]
	[ $? = 0 ] && ok "writes and whiteouts are in the upper dir" ||
		{ nok "writes and whiteouts are in the upper dir"; ls -lR $up | head | sed 's/^/#   /'; }
	pod_is "$(pod_tree_sum $mnt)" "$tree0" "the composefs mount is unchanged"
	pod_is "$(cat $mnt/etc/motd)" "welcome to a cfs fixture" \
		"... (the written file reads as before)"
	pod_is "$(pod_store_sum)" "$store0" "the cfs store's objects and manifests are unchanged"
	pod_is "$(cd $AIS && find overlay-images overlay-layers -type f \
		-exec sha256sum {} + | sort)" "$recs0" "podman's records of it are unchanged"
	pod_is "$(pod_verity_hex $CS/images/$RID.cfs)" "$dig0" \
		"the manifest's fs-verity digest is unchanged"
	pod_is "$(pm run --rm --network none realistic cat /etc/group /etc/motd 2>&1)" \
		"$(printf '%s\n' root:x:0: nogroup:x:65534: "welcome to a cfs fixture")" \
		"a new container sees the image as it was"
}

# --- remove: refused while a container uses the image
pod_remove() {
	local out
	[ -n "${RID:-}" ] || return 0
	if pm container exists writer; then
		out=$($CP remove realistic 2>&1)
		[ $? -ne 0 ] && echo "$out" | grep -q "podman rm"
		[ $? = 0 ] && ok "cfs-podman remove refuses while a container exists" ||
			{ nok "cfs-podman remove refuses while a container exists"; echo "#   $out"; }
		pod_true "... and the image stays listed and mounted" \
			sh -c "podman images -q | grep -qx ${RID:0:12} && mountpoint -q $AIS/mnt/$RID"
		pod_check "podman rm the container" pm rm writer
	fi
	pod_check "cfs-podman remove succeeds after podman rm" $CP remove realistic
	pod_is "$(pm images -q)" "" "podman no longer lists it"
	pod_true "its composefs mount is gone" test -z "$(pod_mount_opts $AIS/mnt/$RID)"
	pod_is "$($CP check 2>&1; echo $?)" 0 "cfs-podman check is clean"
}
