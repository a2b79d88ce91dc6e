#!/bin/bash
# SPDX-License-Identifier: MIT
# The TAP plumbing the other tests stand on: a .t run directly exits
# non-zero when it printed a not-ok or missed its plan (lib.sh).
. "$(dirname "$0")/lib.sh"

plan 5

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
