# Host side of the test and bench VMs, sourced by tests/vm/run.sh (the
# debug test kernel), tests/vm/stock/run.sh (Debian's kernel) and
# bench/vm.sh: a kernel under QEMU (TCG: KVM hangs on this kind of host)
# with the host's root as the VM's read-only root over virtio-9p, one
# virtio disk and two serial ports written to files. The guest side is
# pid1.sh.

# The kernel command line for the 9p root; the caller adds init= and its
# own variables. cache=loose keeps what the guest read of the root in its
# page cache: without it every exec and library load is read anew over 9p,
# which made each tool start take seconds and a conversion 3.7x as long.
# The root is read-only to the guest, and nothing the guest reads of it
# changes while it runs (the build, the fixtures and the packages are made
# before it boots), so nothing it caches goes stale. A caller may set
# vm_9p_cache before sourcing this file (bench/vm.sh keeps none).
vm_cmdline="root=root rootfstype=9p"
vm_cmdline+=" rootflags=trans=virtio,version=9p2000.L"
vm_cmdline+=",cache=${vm_9p_cache:-loose}"
vm_cmdline+=" ro console=ttyS0 panic=-1 reboot=k"

vm_pid=
vm_initrd=	# an initramfs for vm_start, if the kernel needs one
vm_extra=()	# more QEMU arguments for vm_start
# vm_suite's scratch ext4 has the verity feature; empty for a kernel
# without fs-verity, whose ext4 would mount such a disk read-only only.
vm_scratch_verity=yes

# vm_start KERNEL CMDLINE MEM DISK CACHE CONSOLE-LOG OUTPUT-LOG QEMU-LOG:
# boots in the background (vm_pid). ttyS0 is the kernel's console, ttyS1
# the suite's output; -no-reboot makes the guest's reboot end QEMU.
vm_start() {
	qemu-system-x86_64 -accel tcg -m "$3" -smp 1 -display none \
		-monitor none -no-reboot -kernel "$1" -append "$2" \
		${vm_initrd:+-initrd "$vm_initrd"} "${vm_extra[@]}" \
		-virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap \
		-drive "file=$4,if=virtio,format=raw,cache=$5" \
		-serial "file:$6" -serial "file:$7" </dev/null >"$8" 2>&1 &
	vm_pid=$!
}

# vm_wait LIMIT: waits for QEMU to end; kills it after LIMIT seconds and
# returns 1 then.
vm_wait() {
	local start=$SECONDS rc=0
	while kill -0 "$vm_pid" 2>/dev/null; do
		if [ $((SECONDS - start)) -ge "$1" ]; then
			kill -KILL "$vm_pid" 2>/dev/null
			rc=1
			break
		fi
		sleep 1
	done
	wait "$vm_pid" 2>/dev/null
	vm_pid=
	return $rc
}

# vm_kill: for the caller's EXIT trap; QEMU never outlives its caller.
vm_kill() {
	if [ -n "$vm_pid" ] && kill -0 "$vm_pid" 2>/dev/null; then
		kill -KILL "$vm_pid" 2>/dev/null
		wait "$vm_pid" 2>/dev/null
	fi
	vm_pid=
}

# vm_workdir TEMPLATE KEEP: makes the work directory $tmp (mktemp -d
# TEMPLATE) and the EXIT trap that kills QEMU and removes $tmp, or keeps
# it (and says so) when KEEP is not empty.
vm_workdir() {
	tmp=$(mktemp -d "$1") || exit 2
	vm_keep=$2
	trap vm_cleanup EXIT
	trap 'exit 130' INT TERM
}

vm_cleanup() {
	vm_kill
	if [ -n "$vm_keep" ]; then
		echo "# kept $tmp" >&2
	else
		rm -rf "$tmp"
	fi
}

# vm_suite NAME KERNEL CMDLINE MEM LIMIT BAD: the run of a test VM whose
# PID 1 prints TAP on ttyS1 and "# suite done" when it is through, with a
# fresh 1 GiB ext4 scratch disk (with the verity feature unless
# vm_scratch_verity is empty), in $tmp (vm_workdir). Prints
# the VM's TAP lines, then two checks: NAME ran to the end within LIMIT
# seconds, and no line of the kernel log matches the regex BAD; then the
# plan. CFS_VM_LOG=FILE keeps the kernel log.
vm_suite() {
	local name=$1 kernel=$2 cmdline=$3 mem=$4 limit=$5 bad=$6
	local start=$SECONDS timed_out=0 n

	truncate -s 1G "$tmp/scratch.img"
	mkfs.ext4 -q -F -b 4096 ${vm_scratch_verity:+-O verity} \
		"$tmp/scratch.img" || exit 2
	: >"$tmp/console.log"
	: >"$tmp/tap.log"
	vm_start "$kernel" "$cmdline" "$mem" "$tmp/scratch.img" unsafe \
		"$tmp/console.log" "$tmp/tap.log" "$tmp/qemu.out"
	vm_wait "$limit" || timed_out=1

	tr -d '\r' <"$tmp/tap.log" >"$tmp/tap.txt"
	grep -E '^(ok|not ok|#)' "$tmp/tap.txt"
	n=$(grep -cE '^(ok|not ok)' "$tmp/tap.txt")

	n=$((n + 1))
	if grep -q '^# suite done' "$tmp/tap.txt" && [ $timed_out = 0 ]; then
		echo "ok $n - $name ran to the end ($((SECONDS - start)) s)"
	else
		echo "not ok $n - $name did not finish (timeout ${limit}s: $timed_out)"
		tail -n 40 "$tmp/console.log" | tr -d '\r' | sed 's/^/# console: /'
		sed 's/^/# qemu: /' "$tmp/qemu.out"
	fi

	n=$((n + 1))
	if grep -qE "$bad" "$tmp/console.log"; then
		echo "not ok $n - kernel log clean"
		tr -d '\r' <"$tmp/console.log" | grep -E -A 20 "$bad" |
			head -n 80 | sed 's/^/# kernel: /'
	else
		echo "ok $n - kernel log clean"
	fi
	if [ -n "${CFS_VM_LOG:-}" ]; then
		tr -d '\r' <"$tmp/console.log" >"$CFS_VM_LOG"
	fi
	echo "1..$n"
}
