# Guest side of the test and bench VMs (host side: qemu.sh), sourced by
# their PID 1 scripts (tests/vm/init.sh, tests/vm/stock/init.sh,
# bench/vm-init.sh): a minimal system on the read-only 9p root, output to
# ttyS1 on fd 3, and the way out.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C.UTF-8

mount -t proc proc /proc
mount -t sysfs sys /sys
mountpoint -q /dev || mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run

exec 3>/dev/ttyS1
stty -F /dev/ttyS1 raw -echo 2>/dev/null

# Reboot, which ends QEMU (-no-reboot); PID 1 must never exit.
finish() {
	sync
	echo b >/proc/sysrq-trigger
	sleep 10
}
