#!/bin/bash
# Build composefs.ko for Debian's kernel on the host with DKMS, from the
# composefs-dkms package, against the unpacked headers (fetch.sh): DKMS
# trees of its own, nothing installed on the host, nothing loaded.
#
#   tests/vm/stock/dkms-build.sh COMPOSEFS-DKMS.deb UNPACKED-DIR OUTDIR
#
# OUTDIR gets composefs.ko, make.log and NAME-VERSION.dkms.tar.gz (dkms
# mktarball --binaries-only): placed in the package's /usr/share/NAME-dkms,
# its postinst loads that build instead of compiling under TCG.
set -euo pipefail

deb=$(realpath "$1")
dir=$2
out=$(realpath -m "$3")
release=$(cat "$dir/release")
headers=$dir/root/usr/src/linux-headers-$release
work=$out/work

rm -rf "$out"
mkdir -p "$work/dkms" "$work/install"
dpkg-deb -x "$deb" "$work/pkg"
conf=$(echo "$work"/pkg/usr/src/*/dkms.conf)
if [ ! -f "$conf" ]; then
	echo "dkms-build.sh: $deb: no /usr/src/*/dkms.conf" >&2
	exit 1
fi
# shellcheck source=/dev/null
name=$(set +u && . "$conf" && echo "$PACKAGE_NAME")
# shellcheck source=/dev/null
version=$(set +u && . "$conf" && echo "$PACKAGE_VERSION")
trees=(--sourcetree "$work/pkg/usr/src" --dkmstree "$work/dkms"
	--installtree "$work/install" --kernelsourcedir "$headers")
dkms=(dkms -m "$name" -v "$version" -k "$release" "${trees[@]}")

dkms add -m "$name" -v "$version" "${trees[@]}" >/dev/null
built=$work/dkms/$name/$version/$release/x86_64
if ! "${dkms[@]}" build >"$out/dkms.log" 2>&1; then
	cat "$out/dkms.log" >&2
	cat "$work/dkms/$name/$version/build/make.log" >&2 2>/dev/null
	exit 1
fi
cp "$built/log/make.log" "$out/make.log"
cp "$built/module/$name.ko" "$out/"
vermagic=$(modinfo -F vermagic "$out/$name.ko")
if [ "${vermagic%% *}" != "$release" ]; then
	echo "dkms-build.sh: $name.ko is for '$vermagic', not $release" >&2
	exit 1
fi
"${dkms[@]}" mktarball --binaries-only \
	--archive "$out/$name-$version.dkms.tar.gz" >>"$out/dkms.log" 2>&1
rm -rf "$work"
