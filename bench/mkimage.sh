#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds the benchmark image: a Debian-rootfs-like tree of more than 10,000
# files in three gzip layers (base, runtime, extras), made from bookworm
# packages fetched through this machine's apt sources.
#
#   bench/mkimage.sh [CACHEDIR]      (default /var/cache/cfs-bench)
#
# Result, cached under CACHEDIR/image-KEY (KEY hashes the package lists and
# this script, so reruns are instant):
#   layout/          OCI layout, tag "bench"
#   image.oci.tar    the same as an oci-archive
#   info             "files N", "entries N", "layerI BYTES" lines
# Prints the path of the result directory on its last line.
# Needs root (apt-get download, dpkg-deb -x owners), umoci, skopeo.
set -euo pipefail

cache=${1:-/var/cache/cfs-bench}
tag=bench

base_pkgs="libc6 libc-bin bash coreutils dpkg apt perl-base util-linux
	ncurses-base tzdata libc-l10n locales iso-codes manpages"
runtime_pkgs="libpython3.11-minimal libpython3.11-stdlib python3.11-minimal
	python3-pkg-resources python3-setuptools python3-pip libperl5.36
	perl-modules-5.36 systemd ncurses-term"
extras_pkgs="git git-man vim-runtime manpages-dev"

die() { echo "mkimage: $*" >&2; exit 1; }

for tool in apt-get dpkg-deb tar umoci skopeo sha256sum; do
	command -v "$tool" >/dev/null || die "$tool is missing"
done
[ "$(id -u)" = 0 ] || die "must run as root (apt-get download, dpkg-deb -x)"

key=$({ echo "$base_pkgs|$runtime_pkgs|$extras_pkgs"; cat "$0"; } |
	sha256sum | cut -c1-16)
out=$cache/image-$key
debs=$cache/debs

if [ -f "$out/info" ]; then
	echo "mkimage: cached image $out" >&2
	cat "$out/info" >&2
	echo "$out"
	exit 0
fi

# deb_of PKG: the newest downloaded .deb of PKG (empty when missing).
deb_of() {
	ls -1 "$debs/$1"_*.deb 2>/dev/null | sort -V | tail -n 1
}

fetch_debs() {
	local missing=() p
	mkdir -p "$debs"
	for p in $base_pkgs $runtime_pkgs $extras_pkgs; do
		[ -n "$(deb_of "$p")" ] || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return
	echo "mkimage: downloading ${#missing[@]} packages" >&2
	if ! (cd "$debs" && apt-get -q download "${missing[@]}") >&2; then
		apt-get -q update >&2
		(cd "$debs" && apt-get -q download "${missing[@]}") >&2 ||
			die "apt-get download failed"
	fi
}

# unpack_layer DIR PKG...: dpkg-deb -x each package into DIR.
unpack_layer() {
	local dir=$1 p deb
	shift
	mkdir -p "$dir"
	for p in "$@"; do
		deb=$(deb_of "$p")
		[ -n "$deb" ] || die "$p: no .deb in $debs"
		dpkg-deb -x "$deb" "$dir"
	done
}

# Layer 3 changes layer 1: whiteouts for a few files and one directory, an
# opaque directory, and replaced files (whole file and a changed mode).
edit_extras() {
	local top=$1 lower=$2 f
	for f in usr/share/zoneinfo/Antarctica/Troll \
		usr/share/zoneinfo/Arctic/Longyearbyen \
		usr/share/doc/bash/RBASH bin/dir; do
		[ -e "$lower/$f" ] || die "layer 1 has no $f to white out"
		mkdir -p "$top/$(dirname "$f")"
		: >"$top/$(dirname "$f")/.wh.$(basename "$f")"
	done
	[ -d "$lower/usr/share/zoneinfo/Indian" ] ||
		die "layer 1 has no usr/share/zoneinfo/Indian"
	: >"$top/usr/share/zoneinfo/.wh.Indian"
	mkdir -p "$top/usr/share/doc/apt"
	: >"$top/usr/share/doc/apt/.wh..wh..opq"
	echo "replaced by the extras layer" >"$top/usr/share/doc/apt/NEWS"
	mkdir -p "$top/etc"
	printf 'bench\n' >"$top/etc/hostname"
	cp -p "$lower/etc/bash.bashrc" "$top/etc/bash.bashrc"
	echo "# extras layer" >>"$top/etc/bash.bashrc"
	mkdir -p "$top/bin"
	cp -p "$lower/bin/vdir" "$top/bin/vdir"
	chmod 0700 "$top/bin/vdir"
}

# make_tar DIR TAR: a deterministic uncompressed tar of DIR's contents.
make_tar() {
	tar -C "$1" --sort=name --mtime=@0 --owner=0 --group=0 \
		--numeric-owner --xattrs -cf "$2" .
}

build_image() {
	local work=$out.tmp i
	rm -rf "$work"
	mkdir -p "$work"
	unpack_layer "$work/l1" $base_pkgs
	unpack_layer "$work/l2" $runtime_pkgs
	unpack_layer "$work/l3" $extras_pkgs
	edit_extras "$work/l3" "$work/l1"
	for i in 1 2 3; do
		make_tar "$work/l$i" "$work/l$i.tar"
	done
	umoci init --layout "$work/layout"
	umoci new --image "$work/layout:$tag"
	for i in 1 2 3; do
		umoci raw add-layer --image "$work/layout:$tag" "$work/l$i.tar"
	done
	umoci gc --layout "$work/layout"
	skopeo --insecure-policy copy -q "oci:$work/layout:$tag" \
		"oci-archive:$work/image.oci.tar"
	write_info "$work" >"$work/info"
	rm -rf "$work"/l[123] "$work"/l[123].tar
	rm -rf "$out"
	mv "$work" "$out"
	remove_stale_images
}

# Images made by older package lists or scripts are never used again.
remove_stale_images() {
	local dir
	for dir in "$cache"/image-*; do
		[ "$dir" = "$out" ] || rm -rf "$dir"
	done
}

# write_info WORK: file counts of the merged tree and gzip layer sizes.
write_info() {
	local work=$1 blob i=0
	echo "files $(count_merged "$work" -type f)"
	echo "entries $(count_merged "$work")"
	for blob in $(layer_blobs "$work/layout" "$tag"); do
		i=$((i + 1))
		echo "layer$i $(stat -c %s "$work/layout/blobs/sha256/$blob")"
	done
}

# count_merged WORK [FIND-ARGS]: entries of the three layers as applied.
count_merged() {
	local work=$1
	shift
	(cd "$work" && find l1 l2 l3 -mindepth 1 "$@" -printf '%P\n') |
		grep -v -e '\.wh\.' | sort -u | wc -l
}

# layer_blobs LAYOUT TAG: hex digests of the image's layers, in order.
layer_blobs() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
layout, tag = sys.argv[1:]
def blob(d):
    return json.load(open(f"{layout}/blobs/sha256/{d.split(':')[1]}"))
index = json.load(open(f"{layout}/index.json"))
desc = next(m for m in index["manifests"]
            if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == tag)
for layer in blob(desc["digest"])["layers"]:
    print(layer["digest"].split(":")[1])
EOF
}

fetch_debs
build_image
echo "mkimage: built $out" >&2
cat "$out/info" >&2
echo "$out"
