#!/bin/bash
# The initramfs that boots Debian's kernel in the stock-kernel VM:
#
#   tests/vm/stock/initramfs.sh UNPACKED-DIR OUT.cpio.gz
#
# busybox (static) and the modules the VM needs before it has a root
# (virtio PCI and disk, 9p over virtio, overlay), taken with their
# dependencies from the unpacked linux-image package (fetch.sh) in the
# order modprobe would load them. Its /init is rdinit.sh.
set -euo pipefail

dir=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
release=$(cat "$dir/release")
root=$dir/root
mods=(virtio_pci virtio_blk 9pnet_virtio 9p overlay)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,dev,proc,sys,host,pkg,rw,newroot,lib/modules}
cp /bin/busybox "$tmp/bin/busybox"
cp "$here/rdinit.sh" "$tmp/init"
for m in "${mods[@]}"; do
	modprobe -S "$release" -d "$root" --show-depends "$m" |
		awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' >"$tmp/paths"
if [ ! -s "$tmp/paths" ]; then
	echo "initramfs.sh: no modules found for $release in $root" >&2
	exit 1
fi
while read -r ko; do
	cp "$ko" "$tmp/lib/modules/"
	basename "$ko" >>"$tmp/lib/modules/order"
done <"$tmp/paths"
(cd "$tmp" && find . ! -name paths | cpio -o -H newc --quiet) |
	gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
