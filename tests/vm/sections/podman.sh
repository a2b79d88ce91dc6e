# Section "podman": composefs images in the real podman 4.3.1, on this
# kernel, through cfs-podman's additional image store (issue 5).
# Needs the OCI fixtures built on the host (oci-fixtures/build.sh).
# The section's function is named podman, so podman itself is called as
# pm (command podman) throughout.
. "$here/podman-env.sh"
. "$here/podman-steps.sh"

podman() {
	local FX=$repo/oci-fixtures/out
	CS=$S/cfs			# the cfs store, fs-verity capable
	AIS=$CS/podman			# its additional image store
	CP="$bin/cfs-podman --store $CS"
	if [ ! -f $FX/layout/index.json ] || [ ! -f $FX/archives/realistic.oci.tar ]; then
		nok "podman: fixtures missing (run oci-fixtures/build.sh on the host)"
		return
	fi
	L=$FX/layout
	ARCHIVE=$FX/archives/realistic.oci.tar
	if ! pod_env_up "$CS"; then
		nok "podman: environment (writable places, mount.composefs)"
		pod_env_down
		return
	fi
	if ! pod_check "podman info runs in the VM" pm info; then
		pod_env_down
		return
	fi
	pod_shared && pod_reboot
	pod_shared_remove
	pod_pulled && pod_realistic && pod_exit_umount && pod_writes
	pod_remove
	pod_env_down
}
