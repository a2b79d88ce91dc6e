# SPDX-License-Identifier: MIT
# Shared helpers for the bash integration tests (TAP, run under prove).
# Source it: . "$(dirname "$0")/lib.sh"
#   ok STATUS NAME        pass if STATUS is 0 (e.g. `cmp a b; ok $? "same"`)
#   is GOT WANT NAME      pass if the strings are equal
#   skip N REASON         N skipped tests
#   diag MSG... / diag_file FILE [MAX]   comments on stderr
#   plan N / plan_skip_all REASON / done_testing
#   at_exit CMD           run CMD (eval) when the test exits (LIFO)
#   run CMD...            run it: $st, $out, $err
#   convert_fixture STORE TAG   oci2cfs the fixture layout's TAG into STORE
#   fake_podman_mounts AIS   podman configuration + bind-mounting helper
#   install_into DIR      make install of the tools under test into DIR
# Sets TOP (repo), CFS_BIN (default TOP/build/bin), TMP (removed at exit).

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CFS_BIN=${CFS_BIN:-$TOP/build/bin}
REFDUMP=$TOP/tests/integration/refdump.py
_tap_n=0
_tap_failed=0
_tap_planned=
_tap_exit_cmds=()

_tap_cleanup() {
	local st=$? i
	for ((i = ${#_tap_exit_cmds[@]} - 1; i >= 0; i--)); do
		eval "${_tap_exit_cmds[i]}" || true
	done
	[ -n "${TMP:-}" ] && rm -rf "$TMP"
	exit "$(_tap_exit_status "$st")"
}

# A test run directly (not under prove) must say by its exit status what
# prove sees in its TAP: a not-ok or a plan not met is a failure, whatever
# the last command's status was.
_tap_exit_status() { # STATUS
	if [ "$1" -ne 0 ]; then
		echo "$1"
	elif [ "$_tap_failed" -gt 0 ]; then
		echo 1
	elif [ -n "$_tap_planned" ] && [ "$_tap_n" -ne "$_tap_planned" ]; then
		echo 255
	else
		echo 0
	fi
}
trap _tap_cleanup EXIT
trap 'exit 130' INT TERM

at_exit() { _tap_exit_cmds+=("$*"); }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/cfs-it.XXXXXX")

plan() {
	_tap_planned=$1
	echo "1..$1"
}

plan_skip_all() {
	echo "1..0 # SKIP $*"
	echo "# SKIPPED: $*" >&2
	exit 0
}

# A missing prerequisite skips a test on a developer's machine, but in CI
# (scripts/deps installs everything, CI runs as root) it is a bug: fail.
skip_or_fail_in_ci() { # REASON
	if [ "${CI:-}" = true ]; then
		echo "1..1"
		echo "not ok 1 - $* (required in CI)"
		exit 1
	fi
	plan_skip_all "$@"
}

diag() {
	local line
	printf '%s\n' "$*" | while IFS= read -r line; do
		echo "# $line" >&2
	done
}

diag_file() { # FILE [MAX_LINES]
	local line
	head -n "${2:-60}" "$1" | while IFS= read -r line; do
		echo "#   $line" >&2
	done
}

ok() { # STATUS NAME
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_tap_n - $2"
		return 0
	fi
	echo "not ok $_tap_n - $2"
	_tap_failed=$((_tap_failed + 1))
	return 1
}

is() { # GOT WANT NAME
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
		return 0
	fi
	ok 1 "$3"
	diag "     got: '$1'" "expected: '$2'"
	return 1
}

skip() { # N REASON
	local i
	for ((i = 0; i < $1; i++)); do
		_tap_n=$((_tap_n + 1))
		echo "ok $_tap_n # SKIP $2"
	done
}

bail() {
	echo "Bail out! $*"
	exit 255
}

done_testing() {
	[ -z "$_tap_planned" ] && echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ]
	exit $?
}

# run CMD... -> $st (status), $out (stdout), $err (stderr)
run() {
	"$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

# Converts the fixture layout's image TAG into STORE, quietly.
convert_fixture() { # STORE TAG
	"$CFS_BIN/oci2cfs" "$FX/layout" --ref "$2" --store "$1" -q \
		--sync=none >/dev/null
}

# Fails (not skips) when a tool under test is not built: the tests exist to
# be run, a missing binary is an error of the build.
require_cfs_tools() { # NAME...
	local t missing=
	for t in "$@"; do
		[ -x "$CFS_BIN/$t" ] || missing="$missing $t"
	done
	[ -z "$missing" ] && return 0
	echo "1..1"
	echo "not ok 1 - ${missing# } not built (looked in $CFS_BIN; run make)"
	exit 1
}

require_root() { # REASON
	[ "$(id -u)" -eq 0 ] || skip_or_fail_in_ci "must run as root: $*"
}

require_host_tools() { # NAME...
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null ||
			skip_or_fail_in_ci "$t is not installed"
	done
}

# Builds the fixtures (once per checkout; build.sh is idempotent and a lock
# keeps parallel tests from racing) and sets FX to their directory.
build_fixtures() {
	FX=${CFS_FIXTURES:-$TOP/oci-fixtures/out}
	mkdir -p "$FX"
	if ! flock "$FX/.lock" "$TOP/oci-fixtures/build.sh" "$FX" \
		>"$TMP/fixtures.log" 2>&1; then
		diag "oci-fixtures/build.sh failed:"
		diag_file "$TMP/fixtures.log"
		bail "cannot build the fixtures"
	fi
}

# For the QEMU tiers: the fixtures in oci-fixtures/out, where the VMs read
# them (their root is the host's, read-only), with the reference dump of
# each in its refcache. One tier at a time builds them (a lock): the
# other, run side by side, finds them made.
vm_fixtures() {
	(
		unset CFS_FIXTURES
		build_fixtures
		exec 5>"$FX/.refs.lock"
		flock 5
		while read -r -u 4 _ ref; do
			reference_dump "$FX/layout" "$ref" "$TMP/ref" || exit 1
		done 4<"$FX/fixtures.list"
	)
}

# The names in a comma-separated list of VM suite sections that the suite
# does not have (tests/vm/suite.sh would only say "command not found" and
# go on), on one line.
vm_missing_sections() { # LIST
	local s missing=()
	for s in ${1//,/ }; do
		grep -q "^$s()" "$TOP/tests/vm/suite.sh" ||
			[ -f "$TOP/tests/vm/sections/$s.sh" ] || missing+=("$s")
	done
	echo "${missing[*]}"
}

# Config digest (hex) of a tagged image in an OCI layout.
config_hex() { # LAYOUT TAG
	python3 "$TOP/tests/integration/layout-config.py" "$1" "$2"
}

# Objects of a store: files named DIR/xx/yyyy... (62 hex), one per line.
store_objects() { # STORE
	find "$1" -mindepth 2 -maxdepth 2 -type f \
		-regextype posix-extended \
		-regex '.*/[0-9a-f]{2}/[0-9a-f]{62}' | sort
}

# Prints every object whose name is not its fs-verity digest; status 1 if any.
store_mismatches() { # STORE
	store_objects "$1" | xargs -r -d '\n' fsverity digest \
		--hash-alg=sha256 --block-size=4096 |
		awk '{ d = substr($1, 8); n = $2; sub(/.*\//, "", n);
		       p = $2; sub(/\/[^\/]*$/, "", p); sub(/.*\//, "", p);
		       if (p n != d) { print $2 " has digest " d; bad = 1 } }
		     END { exit bad }'
}

# The dump of a manifest, normalised like the reference.
cfs_dump_normalised() { # MANIFEST OUT
	"$CFS_BIN/cfs-info" dump "$1" >"$2.raw" &&
		python3 "$REFDUMP" --normalise-dump "$2.raw" >"$2"
}

# The reference dump of a tagged image: umoci unpack + refdump.py. Cached
# in FX/refcache under a key of the manifest digest, refdump.py and umoci's
# version, so a rebuilt but unchanged fixture is not unpacked again.
reference_dump() { # LAYOUT TAG OUT
	local b=$TMP/unpack/$2 key cache st
	key=$({ python3 - "$1" "$2" <<'EOF'
import json, os, sys
idx = json.load(open(os.path.join(sys.argv[1], "index.json")))
print([m["digest"] for m in idx["manifests"] if m.get("annotations", {})
       .get("org.opencontainers.image.ref.name") == sys.argv[2]][0])
EOF
		cat "$REFDUMP"
		umoci --version
	} | sha256sum | cut -c1-32)
	cache=${FX:-$TMP}/refcache/$2.$key
	if [ -f "$cache" ]; then
		cp "$cache" "$3"
		return 0
	fi
	rm -rf "$b"
	mkdir -p "$TMP/unpack" "$(dirname "$cache")"
	umoci unpack --image "$1:$2" "$b" >"$b.log" 2>&1 &&
		python3 "$REFDUMP" --normalise "$b/rootfs" >"$3"
	st=$?
	[ $st -ne 0 ] && diag_file "$b.log" 20
	[ $st -eq 0 ] && cp "$3" "$cache.part" && mv "$cache.part" "$cache"
	rm -rf "$b"
	return $st
}

# verity_fs SIZE: a loop-mounted ext4 with the verity feature at $TMP/vfs
# (unmounted at exit); fails where this kernel or host cannot enable
# fs-verity there, the reason in $TMP/verity.err.
verity_fs() {
	command -v mkfs.ext4 >/dev/null && command -v fsverity >/dev/null ||
		return 1
	truncate -s "$1" "$TMP/ext4.img" &&
		mkfs.ext4 -q -b 4096 -O verity "$TMP/ext4.img" >/dev/null 2>&1 &&
		mkdir -p "$TMP/vfs" &&
		mount -o loop "$TMP/ext4.img" "$TMP/vfs" 2>/dev/null || return 1
	at_exit umount "$TMP/vfs"
	echo probe >"$TMP/vfs/probe" && fsverity enable "$TMP/vfs/probe" \
		2>"$TMP/verity.err"
}

# tap_include NAME STATUS FILE: the TAP a runner (tests/vm/run.sh,
# tests/vm/stock/run.sh) wrote to FILE, renumbered into this test's, its
# other lines as comments; then one test that NAME ran to its end: exit
# STATUS 0 and as many tests as its plan. A runner that refused to start,
# failed or stopped early is a not-ok, never a shorter pass.
tap_include() { # NAME STATUS FILE
	local line status rest plan= n0=$_tap_n
	while IFS= read -r line; do
		case $line in
		"ok"* | "not ok"*)
			status=${line%%ok*}ok
			rest=${line#"$status"}
			rest=$(printf '%s' "$rest" | sed -E 's/^ *[0-9]+//')
			_tap_n=$((_tap_n + 1))
			[ "$status" = ok ] || _tap_failed=$((_tap_failed + 1))
			echo "$status $_tap_n$rest"
			;;
		"1.."*) plan=${line#1..} ;;
		"#"*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done <"$3"
	[ "$2" -eq 0 ] && [ -n "$plan" ] && [ "$plan" -gt 0 ] &&
		[ "$plan" -eq $((_tap_n - n0)) ]
	ok $? "$1 ran to its end (exit $2; plan ${plan:-missing}, $((_tap_n - n0)) tests)"
}

# True when a command exited with STATUS 1 after exactly one line on stderr
# (saved in FILE) holding STRING (a fixed string; it may start with -).
failed_one_line() { # STATUS FILE STRING
	[ "$1" = 1 ] && [ "$(wc -l <"$2")" = 1 ] && grep -qF -- "$3" "$2"
}

# A TCP port on 127.0.0.1 that is free now.
# A private GNUPGHOME under TMP for the test's own keys (its agents are
# stopped at exit); then gpg_key makes a key without a passphrase: its
# fingerprint on stdout, its public key in FILE if given.
gpg_home() {
	export GNUPGHOME=$TMP/gnupg
	mkdir -m 700 "$GNUPGHOME"
	at_exit 'gpgconf --kill all 2>/dev/null'
}
gpg_key() { # UID [FILE]
	local fpr
	gpg --batch --passphrase '' --quick-gen-key "$1" default default never \
		>"$TMP/gpg.log" 2>&1 || { cat "$TMP/gpg.log" >&2; return 1; }
	fpr=$(gpg --with-colons --list-keys "$1" 2>/dev/null |
		awk -F: '/^fpr/ { print $10; exit }')
	[ -n "$fpr" ] && { [ -z "${2:-}" ] || gpg --export "$fpr" >"$2"; } &&
		echo "$fpr"
}

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_port() { # PORT
	local i
	for i in $(seq 50); do
		python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# A docker-registry on 127.0.0.1:$REGISTRY_PORT serving from DIR, its log
# in DIR.log, stopped at exit. HTTP_YAML goes under its http: section
# (e.g. tls:), TOP_YAML at the top level (e.g. auth:), both indented as
# they would be there.
start_registry() { # DIR [HTTP_YAML [TOP_YAML]]
	REGISTRY_PORT=$(free_port)
	cat >"$1.yml" <<EOC
version: 0.1
log:
  level: info
storage:
  filesystem:
    rootdirectory: $1
http:
  addr: 127.0.0.1:$REGISTRY_PORT
${2:-}
${3:-}
EOC
	docker-registry serve "$1.yml" >"$1.log" 2>&1 &
	at_exit "kill $! 2>/dev/null; wait $! 2>/dev/null"
	wait_port "$REGISTRY_PORT" ||
		{ diag_file "$1.log"; bail "docker-registry did not start"; }
}

# fake_podman_mounts AIS: a private podman configuration whose additional
# image store is AIS, and a mount helper for cfs-podman that bind-mounts
# $TMP/tree instead of mounting composefs; mounts under TMP go at exit.
fake_podman_mounts() {
	. "$TOP/scripts/podman-conf.sh"
	podman_private_conf "$TMP/pconf" "$TMP/graph" "$TMP/run" "$1" ||
		bail "cannot write the podman configuration"
	at_exit 'findmnt -rn -o TARGET | grep "^$TMP/" | sort -r |
		while read -r m; do umount "$m"; done'
	mkdir -p "$TMP/tree" && echo hi >"$TMP/tree/f"
	printf '#!/bin/sh\nexec mount --bind "$FAKE_TREE" "$2"\n' \
		>"$TMP/fake-mount"
	chmod +x "$TMP/fake-mount"
	export CFS_MOUNT_HELPER=$TMP/fake-mount FAKE_TREE=$TMP/tree
}

# make install of the tools under test into DIR (PREFIX=/usr, as the
# package has it), built as they were: the sanitizer build with SAN=1, so
# that make never rebuilds them with other flags.
install_into() { # DIR
	local build=${CFS_BIN%/bin} san=
	[ "$build" = "$TOP/build/san" ] && san=SAN=1
	make -s -C "$TOP" install DESTDIR="$1" PREFIX=/usr SBINDIR=/usr/sbin \
		BUILD="$build" $san
}
