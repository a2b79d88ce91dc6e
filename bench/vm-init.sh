#!/bin/bash
# SPDX-License-Identifier: MIT
# PID 1 of the benchmark VM (bench/vm.sh), on scripts/vm/pid1.sh's minimal
# system on the read-only 9p root: writable places podman needs, composefs.ko
# loaded, the bench disk on /tmp/b; bench/vm-suite.sh then prints its results
# on ttyS1 and the VM reboots (QEMU runs with -no-reboot, so that ends it).
. "$CFS_REPO/scripts/vm/pid1.sh"
mkdir -p /dev/shm /dev/pts
mount -t tmpfs shm /dev/shm
mount -t devpts devpts /dev/pts
mount -t cgroup2 cgroup2 /sys/fs/cgroup
ip link set lo up 2>/dev/null

B=/tmp/b
mkdir -p $B
# mkfs.ext4 of a file leaves the inode tables to be zeroed by ext4lazyinit
# after the first mount, in the background: its writes would land in the
# middle of the cold-cache measurements.
if ! mount -t ext4 -o noinit_itable /dev/vda $B; then
	echo "E mount of the bench disk failed" >&3
	finish
fi
# podman writes under /var/tmp (pull), /var/cache/containers and
# /var/lib/containers even with a private graphroot: give it those.
# /var/tmp gets an overlay on the bench disk, not a bind mount, so that its
# contents (a checkout may live there) stay visible.
mkdir -p $B/var-tmp/u $B/var-tmp/w
if ! mount -t overlay overlay \
	-o lowerdir=/var/tmp,upperdir=$B/var-tmp/u,workdir=$B/var-tmp/w /var/tmp; then
	echo "E overlay on /var/tmp failed" >&3
	finish
fi
mount -t tmpfs cc /var/cache/containers
mount -t tmpfs vlc /var/lib/containers
if ! insmod "$CFS_MODULE"; then
	echo "E insmod $CFS_MODULE failed" >&3
	finish
fi
timeout "${CFS_BENCH_LIMIT:-1800}" "$CFS_REPO/bench/vm-suite.sh" >&3 2>&1
echo "# suite exit $?" >&3
echo "# suite done" >&3
finish
