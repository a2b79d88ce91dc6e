# Guest side of the test VMs, sourced by their PID 1 (tests/vm/init.sh,
# tests/vm/stock/init.sh) before scripts/vm/pid1.sh: what both need
# beyond that, so that a run that could not start or stopped early says
# so in its TAP (on fd 3, ttyS1).

# vm_unhide PATH...: pid1.sh mounts tmpfs on /tmp and /run, which hides
# whatever the host keeps there, such as a checkout cloned under /tmp.
# Binds each PATH that is not visible back from the root file system as
# the host shares it (read-only, like the rest of the root); status 1 if
# one cannot be.
vm_unhide() {
	local p root=/run/cfs-host-root
	for p in "$@"; do
		[ -z "$p" ] || [ -e "$p" ] && continue
		if ! mountpoint -q "$root"; then
			mkdir -p "$root" && mount --bind / "$root" || return 1
		fi
		if [ -d "$root$p" ]; then
			mkdir -p "$p"
		elif [ -e "$root$p" ]; then
			mkdir -p "$(dirname "$p")" && : >"$p"
		else
			return 1
		fi
		mount --bind "$root$p" "$p" || return 1
	done
}

# vm_step_done NAME STATUS: a step (the suite, install.sh) ran to its
# end when it exits 0: its failures are its own not-ok lines. Any other
# status (timeout's 124, set -u, an exit on a failed setup) means the
# tests after that point never ran: a not-ok of its own.
vm_step_done() {
	echo "# $1 exit $2" >&3
	[ "$2" -eq 0 ] || echo "not ok - $1 stopped early (exit $2)" >&3
}
