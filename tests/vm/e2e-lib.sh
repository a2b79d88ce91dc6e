# Helpers shared by the fixtures and e2e sections of the VM suite
# (tests/vm/sections/{fixtures,e2e}.sh source this file; suite.sh has
# already set repo, here, bin, py, S and ok/nok/check).
FX=${CFS_FIXTURES:-$repo/oci-fixtures/out}
cfs_sbin_dir=/tmp/cfs-sbin

# is_ok STATUS NAME: one TAP line; returns STATUS (for a diagnostic after ||).
is_ok() {
	if [ "$1" = 0 ]; then
		ok "$2"
	else
		nok "$2"
	fi
	return "$1"
}

diag_lines() { # FILE [MAX]: the file as TAP comments
	head -n "${2:-20}" "$1" | sed 's/^/#   /'
}

# The fixtures must have been built on the host before boot (the VM's root
# is read-only): tests/integration/vm.t does, or oci-fixtures/build.sh.
fixtures_ready() { # SECTION
	if [ -f "$FX/.stamp" ] && [ -s "$FX/fixtures.list" ] &&
		[ -f "$FX/layout/index.json" ]; then
		return 0
	fi
	nok "$1: the OCI fixtures are missing in $FX: build them on the host before booting (oci-fixtures/build.sh $FX, as tests/integration/vm.t does)"
	return 1
}

# mount(8) runs /sbin/mount.TYPE: the root is read-only, so an overlay on
# /sbin adds our helper (as mount.composefs and umount.composefs) for the
# rest of the run.
helper_install() {
	local sbin
	[ -n "${CFS_VM_INSTALLED:-}" ] && return 0 # the package's, in /sbin
	sbin=$(readlink -f /sbin)
	[ -x "$sbin/mount.composefs" ] &&
		[ "$(readlink "$sbin/mount.composefs")" = "$bin/mount.composefs" ] &&
		return 0
	mkdir -p $cfs_sbin_dir
	ln -sf "$bin/mount.composefs" $cfs_sbin_dir/mount.composefs
	ln -sf "$bin/mount.composefs" $cfs_sbin_dir/umount.composefs
	mount -t overlay cfs-sbin -o "lowerdir=$cfs_sbin_dir:$sbin" "$sbin"
}

helper_remove() {
	local sbin
	sbin=$(readlink -f /sbin)
	grep -q "^cfs-sbin $sbin overlay " /proc/mounts && umount "$sbin"
	rm -rf $cfs_sbin_dir
}

# Objects of a store (relative paths xx/yyyy...), sorted.
store_objects() { # STORE
	(cd "$1" && find . -mindepth 2 -maxdepth 2 -type f -regextype posix-extended \
		-regex '\./[0-9a-f]{2}/[0-9a-f]{62}' | cut -c3- | sort)
}

# Every file of a store with its sha256, and every symlink with its target
# (the layer cache's scratch .tmp/ left out): compare before/after.
store_state() { # STORE
	(cd "$1" && find . -path ./.tmp -prune -o -type f -print0 | sort -z |
		xargs -0 -r sha256sum &&
		find . -type l -printf '%p -> %l\n' | sort)
}

# The reference dump of a fixture tag (umoci unpack + refdump.py
# --normalise; from the host's cache, or unpacked here): fixtures-compare.py.
ref_dump() { # REFTAG OUT
	$py $here/fixtures-compare.py ref "$FX" $S "$1" >"$2"
}

# The mounted tree compared with the reference of REFTAG (TAP lines).
dump_equals_ref() { # NAME MNT REFTAG
	echo "$1 $2 $3" | $py $here/fixtures-compare.py compare "$FX" $S
}

# run_cmd CMD...: sets st (status); output in /tmp/run.{out,err}.
run_cmd() {
	"$@" >/tmp/run.out 2>/tmp/run.err
	st=$?
}

# expect_fail STATUS MESSAGE NAME: the last run_cmd exited STATUS and its
# stderr contains MESSAGE (one line).
expect_fail() {
	if [ "$st" = "$1" ] && grep -qF -- "$2" /tmp/run.err &&
		[ "$(wc -l </tmp/run.err)" = 1 ]; then
		ok "$3"
		return 0
	fi
	nok "$3"
	echo "#   status $st (want $1), want a one-line message with: $2"
	diag_lines /tmp/run.err 5
	return 1
}
