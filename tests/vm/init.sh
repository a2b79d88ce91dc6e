#!/bin/bash
# PID 1 of the composefs test VM: set up a minimal system on the
# read-only 9p root, load composefs.ko, run the suite with its TAP on
# ttyS1, then reboot (QEMU runs with -no-reboot, so that ends it).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C.UTF-8

mount -t proc proc /proc
mount -t sysfs sys /sys
mountpoint -q /dev || mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
mount -t debugfs debug /sys/kernel/debug 2>/dev/null
mkdir -p /tmp/mnt

finish() {
	sync
	echo b >/proc/sysrq-trigger
	sleep 10
}

exec 3>/dev/ttyS1
stty -F /dev/ttyS1 raw -echo 2>/dev/null
if ! insmod "$CFS_MODULE"; then
	echo "not ok - insmod $CFS_MODULE" >&3
	echo "# suite done" >&3
	finish
fi
echo "ok - insmod composefs.ko" >&3
timeout 3000 "$CFS_REPO/tests/vm/suite.sh" "${CFS_SUITE:-all}" >&3 2>&1
echo "# suite exit $?" >&3
if ! rmmod composefs; then
	echo "not ok - rmmod composefs" >&3
else
	echo "ok - rmmod composefs" >&3
fi
echo "# suite done" >&3
finish
