#!/bin/bash
# SPDX-License-Identifier: MIT
# Every tool and subcommand parses options GNU-style: anywhere on the line,
# "--" ends them; one usage-error style; --help on every subcommand; an
# unknown command named as such; cfs-podman's rm/ls and list --json.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs cfs-info cfs-store cfs-podman mkcfs mount.composefs \
	cfs-seal
require_root "fixtures are built and unpacked as root"
require_host_tools python3 skopeo
build_fixtures
plan 30

CS=$CFS_BIN/cfs-store
INFO=$CFS_BIN/cfs-info

# --- cfs-store: options after the operands act where they say ----------
A=$TMP/a B=$TMP/b
convert_fixture "$A" shared-a && convert_fixture "$B" shared-a && convert_fixture "$B" shared-b
ok $? "two stores, both holding shared-a"
run "$CS" -s "$A" rm shared-a --store "$B"
is "$st:$err" "0:" "rm NAME --store DIR: no error"
[ -e "$A/refs/shared-a" ] && [ ! -e "$B/refs/shared-a" ]
ok $? "rm NAME --store DIR removed from DIR, not from the first store"
run "$CS" ls --json --store "$B"
is "$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)))' \
	<"$TMP/out")" 1 "ls --json --store DIR lists DIR"
run "$CS" -s "$B" rm -- --store
is "$st" 1 "rm -- --store: '--store' is a name (not found, exit 1)"
case $err in *"--store"*) r=0 ;; *) r=1 ;; esac
ok $r "and the error names it"
run "$CS" gc "$B"
is "$st:$(head -n1 <<<"$err")" "2:cfs-store: gc: unexpected operand '$B'" \
	"gc DIR: a usage error naming the operand"

# --- cfs-info: missing-objects IMAGE --basedir DIR --------------------
m=$(ls "$A"/images/*.cfs)
run "$INFO" missing-objects "$m" --basedir "$A"
is "$st:$out:$err" "0::" "missing-objects IMAGE --basedir DIR: none missing"
run "$INFO" objects "$m" -- "$m"
is "$st" 0 "objects IMAGE -- IMAGE"
run "$INFO" dump --help
is "$st:$(head -c6 <<<"$out")" "0:Usage:" "cfs-info dump --help: the help"

# --- mkcfs: SOURCE IMAGE --digest-store DIR ---------------------------
mkdir -p "$TMP/src"
echo content >"$TMP/src/file"
run "$CFS_BIN/mkcfs" "$TMP/src" "$TMP/img.cfs" --digest-store "$TMP/objs" \
	--print-digest
[ "$st" = 0 ] && [ -n "$out" ] && [ -n "$(ls "$TMP/objs")" ]
ok $? "mkcfs SOURCE IMAGE --digest-store DIR --print-digest"

# --- mount.composefs: SOURCE TARGET -f -o OPTIONS (as mount(8) calls) --
mkdir -p "$TMP/mnt"
run "$CFS_BIN/mount.composefs" "$TMP/img.cfs" "$TMP/mnt" -f -o verity_check=3
case $err in *verity_check*) r=$st ;; *) r=9 ;; esac
is "$r" 1 "mount.composefs SOURCE TARGET -f -o ...: -o read"

# --- cfs-podman: ls, rm, list --json -----------------------------------
run "$CFS_BIN/cfs-podman" ls --json -s "$A"
is "$st:$(tr -d ' \n' <<<"$out")" "0:[]" "cfs-podman ls --json -s DIR: []"
run "$CFS_BIN/cfs-podman" list -s "$A"
list_out=$out
run "$CFS_BIN/cfs-podman" ls -s "$A"
is "$st:$out" "0:$list_out" "cfs-podman ls is list"
run "$CFS_BIN/cfs-podman" remove shared-a -s "$A"
remove_err=$err
run "$CFS_BIN/cfs-podman" rm shared-a -s "$A"
is "$st:$err" "1:$remove_err" "cfs-podman rm is remove"

# --- one usage-error style; --help on every subcommand ----------------
usage_style() { # TOOL STATUS ARGS...: exit STATUS, "TOOL: ..." + "Try ..."
	local tool=$1 want=$2
	shift 2
	run "$CFS_BIN/$tool" "$@"
	[ "$st" = "$want" ] &&
		[ "$(wc -l <"$TMP/err")" = 2 ] &&
		[ "$(head -n1 "$TMP/err" | cut -d: -f1)" = "$tool" ] &&
		[ "$(tail -n1 "$TMP/err")" = \
			"Try '$tool --help' for more information." ]
	ok $? "$tool $*: usage error in the one style"
	[ "$st" = "$want" ] || diag "status $st: $err"
}
usage_style cfs-store 2 ls --bogus
usage_style cfs-store 2 frob
usage_style cfs-info 2 frob
usage_style cfs-info 2 dump
usage_style mkcfs 2 onlyone
usage_style cfs-podman 2 frob
usage_style cfs-podman 2 list --purge
usage_style mount.composefs 1 onlyone
usage_style cfs-seal 2 onlyone
usage_style cfs-seal 2 --sign-passphrase-file=f a b
r=0
for t in "$CS --json" "$INFO -b /" "$CFS_BIN/cfs-podman --purge"; do
	run ${t%% *} frob ${t#* }
	case $err in *"unknown command 'frob'"*) ;; *) r=1 ;; esac
done
ok $r "an unknown command is named as such (before any option check)"

helps=0
for c in "cfs-store ls" "cfs-store rm" "cfs-store gc" "cfs-store fsck" \
	"cfs-store df" "cfs-info dump" "cfs-info ls" "cfs-info objects" \
	"cfs-info missing-objects" "cfs-info check" "cfs-info measure" \
	"cfs-podman setup" "cfs-podman add" "cfs-podman pull" \
	"cfs-podman list" "cfs-podman remove" "cfs-podman sync" \
	"cfs-podman check"; do
	run $CFS_BIN/$c --help
	if [ "$st" != 0 ] || [ "${out:0:6}" != Usage: ] || [ -n "$err" ]; then
		diag "$c --help: status $st, stderr: $err"
		helps=$((helps + 1))
	fi
done
is "$helps" 0 "--help on every subcommand prints the help, exit 0"
awk 'length > 80 { print FILENAME ": " $0; bad = 1 } END { exit bad }' \
	<("$CS" --help) <("$INFO" --help) <("$CFS_BIN/cfs-podman" --help) \
	<("$CFS_BIN/mkcfs" --help) <("$CFS_BIN/mount.composefs" --help) \
	<("$CFS_BIN/cfs-seal" --help) >"$TMP/wide"
ok $? "every help fits 80 columns"

# Help text is one string literal per line, each ending in "\n", so that
# clang-format never splits a phrase mid-word (issue 33).
split=
for f in store/main.c info/main.c mkcfs/main.c podman/main.c \
	mount-helper/main.c mount-helper/umount.c seal/main.c; do
	split="$split$(awk -v f="$f" '
		/(usage_text|umount_usage)\[\] =/ { u = 1; next }
		u && /;$/ { if ($0 !~ /\\n";$/) print f ":" NR; u = 0; next }
		u && $0 !~ /\\n"$/ { print f ":" NR }' "$TOP/src/$f")"
done
is "$split" "" "every help line is one literal ending in a newline"

# Every option a tool's --help lists is in its man page.
undocumented=
for t in cfs-store:8 cfs-info:1 cfs-podman:8 mkcfs:1 cfs-seal:1; do
	tool=${t%:*}
	for opt in $("$CFS_BIN/$tool" --help | grep -o -- '--[a-z][a-z-]*' |
		sort -u); do
		grep -q -- "$(echo "$opt" | sed 's/-/\\\\-/g')" \
			"$TOP/man/$tool.${t#*:}" || undocumented="$undocumented $tool:$opt"
	done
done
is "$undocumented" "" "every option in --help is in the man page"
