#!/bin/busybox sh
# shellcheck shell=dash
# /init of the stock-kernel VM's initramfs (initramfs.sh): loads the
# modules that Debian's kernel needs to reach its root, then makes that
# root: an overlay whose lower layers are the unpacked kernel packages
# (9p tag pkg, so /lib/modules/RELEASE and the headers look
# installed) over the host's root (9p, read-only), with a tmpfs on top
# so that dpkg can install packages. Then switch_root to $CFS_INIT.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev

fail() {
	echo "not ok - initramfs: $*" >/dev/ttyS1
	echo "# suite done" >/dev/ttyS1
	echo b >/proc/sysrq-trigger
	sleep 10
}

while read -r m; do
	insmod "/lib/modules/$m" || fail "insmod $m"
done </lib/modules/order
# cache=loose as in scripts/vm/qemu.sh: both shares stay unchanged while
# the guest runs.
opts=trans=virtio,version=9p2000.L,ro,cache=loose
# The package tree is a directory of the host's root, shared on its own
# (run.sh): overlayfs refuses a layer below another layer's root on one
# superblock.
mount -t 9p -o $opts root /host || fail "mount the host's root (9p)"
mount -t 9p -o $opts pkg /pkg || fail "mount the unpacked packages (9p)"
if ! mount -t tmpfs -o mode=0755 rw /rw || ! mkdir /rw/upper /rw/work; then
	fail "tmpfs for the root's upper layer"
fi
mount -t overlay -o "lowerdir=/pkg:/host,upperdir=/rw/upper,workdir=/rw/work" \
	root /newroot || fail "overlay root"
umount /proc /sys
umount -l /dev
exec switch_root /newroot "$CFS_INIT"
