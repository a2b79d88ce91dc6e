# A private podman configuration, so that tests and the bench never touch
# the host's /etc/containers or /var/lib/containers.  Sourced by
# the podman tests in tests/integration/, tests/vm/podman-env.sh and
# bench/ (pull.sh, vm-suite.sh).
#
#   podman_private_conf DIR GRAPHROOT RUNROOT [ADDITIONAL-STORE [COPY-TMP]]
#
# writes DIR/storage.conf and DIR/containers.conf (overlay driver, runc,
# cgroupfs, no events log, temp files and network configs under DIR;
# COPY-TMP: where podman stages pulled blobs) and exports
# CONTAINERS_STORAGE_CONF and CONTAINERS_CONF.
podman_private_conf() {
	local dir=$1 graph=$2 run=$3 ais=${4:-} copytmp=${5:-}

	mkdir -p "$dir/net" || return 1
	export CONTAINERS_STORAGE_CONF=$dir/storage.conf
	export CONTAINERS_CONF=$dir/containers.conf
	{
		printf '[storage]\ndriver = "overlay"\n'
		printf 'graphroot = "%s"\nrunroot = "%s"\n' "$graph" "$run"
		if [ -n "$ais" ]; then
			printf '\n[storage.options]\n'
			printf 'additionalimagestores = ["%s"]\n' "$ais"
		fi
	} >"$CONTAINERS_STORAGE_CONF" || return 1
	{
		# the same limits in every test and bench container
		printf '[containers]\n'
		printf 'default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]\n'
		printf '\n[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\n'
		printf 'events_logger = "none"\ntmp_dir = "%s/libpod"\n' "$dir"
		[ -n "$copytmp" ] &&
			printf 'image_copy_tmp_dir = "%s"\n' "$copytmp"
		printf '\n[network]\nnetwork_config_dir = "%s/net"\n' "$dir"
	} >"$CONTAINERS_CONF"
}
