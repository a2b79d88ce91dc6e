#!/bin/bash
# Fetch Debian 12's own kernel (the current linux-image-amd64 and its
# headers) into a cache outside the repository, unpacked, never installed:
#
#   tests/vm/stock/fetch.sh        prints the unpacked version's directory
#
# $CFS_KCACHE/stock/VERSION/ (VERSION = the linux-image-amd64 package
# version) holds debs/ (what apt-get download fetched), root/ (every
# package dpkg-deb -x'd into one tree: /boot/vmlinuz-*, /lib/modules/*,
# /usr/src/linux-headers-*, depmod run, the headers' Makefile made
# relative) and release (the kernel release, uname -r).
# A version already unpacked is reused; a newer candidate gets its own
# directory and older ones are removed (each is about 500 MB).
set -euo pipefail

cache=${CFS_KCACHE:-/var/cache/cfs-kernel}/stock

log() { echo "fetch.sh: $*" >&2; }

# The package that the meta-package PKG depends on (its versioned one).
dep_of() {
	apt-cache depends "$1" 2>/dev/null |
		awk '$1 == "Depends:" && $2 !~ /^</ { print $2; exit }'
}

version=$(apt-cache policy linux-image-amd64 | awk '$1 == "Candidate:" { print $2 }')
if [ -z "$version" ] || [ "$version" = "(none)" ]; then
	log "apt knows no linux-image-amd64 candidate (run apt-get update)"
	exit 1
fi
dir=$cache/$version
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -f "$dir/.ready" ]; then
	echo "$dir"
	exit 0
fi

image=$(dep_of linux-image-amd64)
headers=$(dep_of linux-headers-amd64)
pkgs=("$image" "$headers")
while read -r p; do
	pkgs+=("$p")
done < <(apt-cache depends "$headers" | awk '$1 == "Depends:" { print $2 }')
release=${image#linux-image-}

for d in "$cache"/*/; do
	[ "${d%/}" = "$dir" ] && continue
	[ -f "$d/.ready" ] && log "removing older ${d%/}" && rm -rf "${d%/}"
done
rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/root"
log "downloading ${pkgs[*]} ($version)"
# apt's sandbox user must be able to write the download directory.
chown _apt "$dir/debs" 2>/dev/null || true
(cd "$dir/debs" && apt-get download -q "${pkgs[@]}" >&2)
for deb in "$dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir/root"
done
# Merged /usr, as on the host: the VM lays this tree over the host's root,
# where a real lib/ would hide the host's lib -> usr/lib.
if [ -d "$dir/root/lib" ] && [ ! -L "$dir/root/lib" ]; then
	mkdir -p "$dir/root/usr/lib"
	mv "$dir/root/lib"/* "$dir/root/usr/lib/"
	rmdir "$dir/root/lib"
	ln -s usr/lib "$dir/root/lib"
fi
for f in "$dir/root/boot/vmlinuz-$release" "$dir/root/lib/modules/$release/modules.order" \
	"$dir/root/usr/src/linux-headers-$release/Module.symvers"; do
	if [ ! -e "$f" ]; then
		log "$f: missing from the unpacked packages"
		exit 1
	fi
done
# The headers' Makefile includes the -common tree by its absolute
# /usr/src path; relative, the unpacked tree builds where it lies.
sed -i 's|^include /usr/src/\(linux-headers-[^/]*\)/Makefile$|include ../\1/Makefile|' \
	"$dir/root/usr/src/linux-headers-$release/Makefile"
# The image's postinst would run depmod; modprobe needs its modules.dep.
depmod -b "$dir/root" "$release"
echo "$release" >"$dir/release"
touch "$dir/.ready"
echo "$dir"
