#!/bin/bash
# PID 1 of the composefs test VM: set up a minimal system on the
# read-only 9p root, load composefs.ko, run the suite with its TAP on
# ttyS1, then reboot (QEMU runs with -no-reboot, so that ends it).
. "$CFS_REPO/tests/vm/init-lib.sh"
. "$CFS_REPO/scripts/vm/pid1.sh"
mount -t debugfs debug /sys/kernel/debug 2>/dev/null
mkdir -p /tmp/mnt

if ! vm_unhide "$CFS_REPO" "$CFS_MODULE"; then
	echo "not ok - the checkout $CFS_REPO is visible in the VM" >&3
	echo "# suite done" >&3
	finish
fi

if ! insmod "$CFS_MODULE"; then
	echo "not ok - insmod $CFS_MODULE" >&3
	echo "# suite done" >&3
	finish
fi
echo "ok - insmod composefs.ko" >&3
timeout 3000 "$CFS_REPO/tests/vm/suite.sh" "${CFS_SUITE:-all}" >&3 2>&1
vm_step_done suite.sh "$?"
if ! rmmod composefs; then
	echo "not ok - rmmod composefs" >&3
else
	echo "ok - rmmod composefs" >&3
fi
echo "# suite done" >&3
finish
