#!/bin/bash
# SPDX-License-Identifier: MIT
# The TAP plumbing the other tests stand on: a .t run directly exits
# non-zero when it printed a not-ok or missed its plan (lib.sh), a QEMU
# runner that refused, failed or stopped early is a not-ok in its tier
# (lib.sh tap_include), and the VMs' PID 1 reports a step that stopped
# early and sees a checkout the host keeps under /tmp (tests/vm/init-lib.sh).
. "$(dirname "$0")/lib.sh"

plan 14

# A test script using lib.sh: BODY after sourcing it; prints its status.
status_of() { # BODY
	printf '. "%s"\n%s\n' "$TOP/tests/integration/lib.sh" "$1" >"$TMP/case.t"
	bash "$TMP/case.t" >"$TMP/case.out" 2>&1
	echo $?
}

is "$(status_of 'plan 2; ok 1 first; ok 0 second')" 1 \
	"a not-ok, then an ok: the test exits 1"
is "$(status_of 'plan 3; ok 0 first')" 255 \
	"1 test of a plan of 3: the test exits 255"
is "$(status_of 'plan 1; ok 0 only')" 0 "every test ok: exit 0"
is "$(status_of 'ok 0 a; ok 1 b; done_testing')" 1 \
	"done_testing after a not-ok: exit 1"
is "$(status_of 'plan 1; ok 0 a; exit 3')" 3 "an explicit exit status stays"

# tap_include on what runners leave behind.
include() { # STATUS RUNNER-OUTPUT
	printf '%s' "$2" >"$TMP/runner.tap"
	status_of "tap_include runner $1 '$TMP/runner.tap'; done_testing"
}

is "$(include 0 $'ok 1 - a\nok 2 - b\n1..2\n')" 0 \
	"a runner that passed its plan: exit 0"
grep -qx 'ok 3 - runner ran to its end (exit 0; plan 2, 2 tests)' "$TMP/case.out" &&
	grep -qx 'ok 2 - b' "$TMP/case.out" && grep -qx '1..3' "$TMP/case.out"
ok $? "its tests renumbered, one more for the run, one plan" ||
	diag_file "$TMP/case.out"

is "$(include 2 $'stock/run.sh: -d /tmp/x: the VM cannot see the host\'s /tmp\n')" 1 \
	"a runner that refused to start (exit 2, no TAP): exit 1"
grep -q '^not ok 1 - runner ran to its end (exit 2; plan missing' "$TMP/case.out" &&
	grep -q "^# stock/run.sh: -d /tmp/x" "$TMP/case.out"
ok $? "its refusal is a not-ok, its message a comment" ||
	diag_file "$TMP/case.out"

is "$(include 137 $'ok 1 - a\nok 2 - b\n')" 1 \
	"a runner killed half way (no plan, exit 137): exit 1"
is "$(include 0 $'ok 1 - a\n1..2\n')" 1 \
	"a runner that printed fewer tests than its plan: exit 1"

is "$(vm_missing_sections basic,no-such,e2e,podman,other)" "no-such other" \
	"the QEMU tiers name the sections the suite does not have"

# The VMs' PID 1 side (tests/vm/init-lib.sh), on fd 3 as in the VM.
(
	. "$TOP/tests/vm/init-lib.sh"
	vm_step_done suite.sh 0 3>"$TMP/step0"
	vm_step_done suite.sh 124 3>"$TMP/step124"
)
! grep -q '^not ok' "$TMP/step0" &&
	grep -qx 'not ok - suite.sh stopped early (exit 124)' "$TMP/step124"
ok $? "in the VM, a step killed by its timeout is a not-ok, one that ended is not"

# pid1.sh mounts tmpfs on /tmp and /run: vm_unhide binds a checkout under
# /tmp back, read-only, from the root the host shares.
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
	skip 1 "needs root and unshare for a mount namespace"
else
	mkdir -p "$TMP/clone/tests" && echo here >"$TMP/clone/tests/file"
	unshare -m --propagation private bash -c '
		. "$1/tests/vm/init-lib.sh"
		mount --make-rprivate / &&
			mount -t tmpfs tmp /tmp && mount -t tmpfs run /run &&
			[ ! -e "$2/tests/file" ] &&
			vm_unhide "$2" && [ "$(cat "$2/tests/file")" = here ]' \
		_ "$TOP" "$TMP/clone" >"$TMP/unhide.out" 2>&1
	ok $? "a checkout hidden under a tmpfs /tmp is visible again" ||
		diag_file "$TMP/unhide.out"
fi
