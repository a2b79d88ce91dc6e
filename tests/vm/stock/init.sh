#!/bin/bash
# PID 1 of the stock-kernel VM (after rdinit.sh's switch_root): installs
# the cfs and composefs-dkms packages with dpkg (DKMS builds the module
# for the running kernel), checks that the first composefs mount loads
# the module by itself, runs the suite's sections on the installed tools,
# removes both packages again, and checks the kernel's taint flags. TAP on
# ttyS1; then reboot.
. "$CFS_REPO/tests/vm/init-lib.sh"
. "$CFS_REPO/scripts/vm/pid1.sh"
here=$CFS_REPO/tests/vm/stock
mount -t debugfs debug /sys/kernel/debug 2>/dev/null
if ! vm_unhide "$CFS_REPO" "$CFS_DEBS" "${CFS_DKMS_TARBALL:-}"; then
	echo "not ok - the checkout $CFS_REPO and $CFS_DEBS are visible in the VM" >&3
	echo "# suite done" >&3
	finish
fi
echo "ok - Debian's kernel $(uname -r) booted, root = packages over the host (overlay)" >&3

# What udev would make: the <(...) of dkms needs /dev/fd; and nothing
# loads device or loop drivers on demand.
ln -sfn /proc/self/fd /dev/fd
modprobe loop max_loop=8

timeout 3000 "$here/install.sh" >&3 2>&1
vm_step_done install.sh "$?"
if [ -e /sbin/mount.composefs ] || [ -e /usr/sbin/mount.composefs ]; then
	CFS_VM_BIN=/usr/bin CFS_VM_INSTALLED=1 timeout 3000 \
		"$CFS_REPO/tests/vm/suite.sh" "${CFS_SUITE:-all}" >&3 2>&1
	vm_step_done suite.sh "$?"
	timeout 600 "$here/remove.sh" >&3 2>&1
	vm_step_done remove.sh "$?"
fi
"$here/taint.sh" >&3 2>&1
echo "# suite done" >&3
finish
