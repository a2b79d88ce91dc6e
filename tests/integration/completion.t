#!/bin/bash
# SPDX-License-Identifier: MIT
# bash completion, as a user meets it: make install puts one file per tool
# where bash-completion loads it by the command's name, and completing
# (COMP_WORDS as bash fills them) offers the commands, the options each
# tool's --help lists, the store's image names and directories.
. "$(dirname "$0")/lib.sh"

require_cfs_tools oci2cfs cfs-store cfs-info mkcfs cfs-podman cfs-seal
require_host_tools python3
build_fixtures
plan 18

D=$TMP/root
install_into "$D" >"$TMP/install.log" 2>&1
ok $? "make install" || diag_file "$TMP/install.log"
C=$D/usr/share/bash-completion/completions
n=0
for t in oci2cfs cfs-store cfs-info mkcfs cfs-podman cfs-seal; do
	bash -c ". '$C/$t' && complete -p $t" 2>/dev/null | grep -q _cfs_complete &&
		n=$((n + 1))
done
is "$n" 6 "each tool's completion file, loaded by name, completes that tool"

S=$TMP/store
"$CFS_BIN/oci2cfs" "$FX/layout" --ref realistic --store "$S" -q --sync=none &&
	"$CFS_BIN/oci2cfs" "$FX/layout" --ref shared-a --store "$S" -q --sync=none
ok $? "a store with two images"
mkdir -p "$TMP/dirs/only-dir"

complete_words() { # WORD... (the last is the one being completed)
	PATH=$CFS_BIN:$PATH bash -c '. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _cfs_complete
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' \
		_ "$C/oci2cfs" "$@"
}
is "$(complete_words cfs-store r)" "rm " "cfs-store r: rm"
is "$(complete_words cfs-info m)" "measure missing-objects " \
	"cfs-info m: its commands that start with m"
is "$(complete_words cfs-store fsck --re)" "--repair " \
	"cfs-store fsck --re: --repair, from --help"
is "$(complete_words oci2cfs --require-v)" "--require-verity " \
	"oci2cfs --require-v: --require-verity, from --help"
is "$(complete_words oci2cfs --require-s)" "--require-seal " \
	"oci2cfs --require-s: --require-seal"
is "$(complete_words cfs-seal --reg)" "--registries.d= " \
	"cfs-seal --reg: --registries.d=, a dot in its name"
is "$(complete_words cfs-seal --sign-by-s)" \
	"--sign-by-sigstore-private-key= " "cfs-seal --sign-by-s: the sigstore key"
is "$(complete_words cfs-store --store "$S" rm "")" \
	"realistic shared-a " "cfs-store --store S rm <TAB>: that store's images"
is "$(CFS_STORE=$S complete_words cfs-store rm sh)" "shared-a " \
	"cfs-store rm sh<TAB> with CFS_STORE: the image name"
echo "store = $S" >"$TMP/cfs.conf"
is "$(CFS_CONFIG=$TMP/cfs.conf complete_words cfs-podman remove r)" \
	"realistic " "cfs-podman remove r<TAB> with cfs.conf's store: the image name"
is "$(complete_words cfs-store rm x --store "$TMP/dirs/on")" \
	"$TMP/dirs/only-dir " "--store DIR<TAB>: directories"
is "$(complete_words cfs-store --store = "$TMP/dirs/on")" \
	"$TMP/dirs/only-dir " "--store=DIR<TAB>: directories"
is "$(complete_words oci2cfs --regis)" "--registries.d= " \
	"oci2cfs --regis<TAB>: --registries.d= whole, dot and all"
is "$(complete_words oci2cfs x --registries.d "$TMP/dirs/on")" \
	"$TMP/dirs/only-dir " "--registries.d DIR<TAB>: directories"
is "$(complete_words oci2cfs docker-)" "docker-archive: " \
	"oci2cfs docker-<TAB>: the transport"
