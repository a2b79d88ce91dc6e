# Host side of a test or bench VM, sourced by tests/vm/run.sh and
# bench/vm.sh: the test kernel under QEMU (TCG: KVM hangs on this kind of
# host) with the host's root as the VM's read-only root over virtio-9p,
# one virtio disk and two serial ports written to files.

# The kernel command line for the 9p root; the caller adds init= and its
# own variables.
vm_cmdline="root=root rootfstype=9p rootflags=trans=virtio,version=9p2000.L"
vm_cmdline+=" ro console=ttyS0 panic=-1 reboot=k"

vm_pid=
vm_initrd=	# an initramfs for vm_start, if the kernel needs one
vm_extra=()	# more QEMU arguments for vm_start

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
