# Section "podman": composefs images in the real podman 4.3.1, on this
# kernel, through cfs-podman's additional image store (issue 5).
# Needs the OCI fixtures built on the host (oci-fixtures/build.sh).
# The section's function is named podman, so podman itself is called as
# pm (command podman) throughout.
. "$here/podman-env.sh"
. "$here/podman-steps.sh"

# cfs-podman pull docker:// from a registry on the VM's loopback (issue
# 15): pulled, converted and registered under the name pulled, which podman
# runs.
pod_registry_pull() {
	local reg=127.0.0.1:5001 d=$S/pod-registry pid i name
	name=$reg/cfs/realistic:1
	ip link set lo up
	mkdir -p $d/data $S/tmp
	printf 'version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: %s\nhttp:\n  addr: %s\n' \
		$d/data $reg >$d/registry.yml
	docker-registry serve $d/registry.yml >$d/registry.log 2>&1 &
	pid=$!
	for i in $(seq 60); do
		curl -fs http://$reg/v2/ >/dev/null && break
		sleep 0.5
	done
	printf '[[registry]]\nlocation = "%s"\ninsecure = true\n' $reg >$d/registries.conf
	echo '{"default":[{"type":"insecureAcceptAnything"}]}' >$d/policy.json
	if pod_check "push realistic to the VM's registry" env TMPDIR=$S/tmp \
		skopeo --insecure-policy --tmpdir $S/tmp copy -q \
		--dest-tls-verify=false oci:$L:realistic docker://$name &&
		pod_check "cfs-podman pull docker://$name" \
			env CONTAINERS_REGISTRIES_CONF=$d/registries.conf TMPDIR=$S/tmp \
			$CP pull --signature-policy $d/policy.json docker://$name; then
		pod_is "$(pm run --rm --network none $name 2>&1)" "hello from cfs" \
			"podman run $name runs the pulled image"
		pod_check "cfs-podman remove the pulled image" $CP remove $name
	fi
	pod_sealed_pull $reg $d
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
}

# A sealed image (issue 32): cfs-seal pushes it, cfs-podman pull
# --require-seal takes it, podman runs it, and its composefs mount carries
# digest= its seal; a manifest replaced in the store after the pull is
# refused at the next mount by name.
pod_sealed_pull() { # REGISTRY DIR
	local reg=$1 d=$2 name=$1/cfs/sealed:1 seal id m mnt=$S/sealed-mnt
	local other=$S/sealed-other.cfs
	local reg_env="env CONTAINERS_REGISTRIES_CONF=$d/registries.conf TMPDIR=$S/tmp"
	if ! seal=$($reg_env $bin/cfs-seal --tls-verify=false \
		--signature-policy $d/policy.json oci:$L:realistic docker://$name \
		2>$S/seal.err); then
		nok "cfs-seal oci:$L:realistic docker://$name"
		sed 's/^/#   /' $S/seal.err
		return
	fi
	ok "cfs-seal pushes realistic sealed for $seal"
	pod_check "cfs-podman pull --require-seal docker://$name" \
		$reg_env $CP pull --require-seal --signature-policy $d/policy.json \
		docker://$name || return
	pod_is "$(pm run --rm --network none $name 2>&1)" "hello from cfs" \
		"podman run $name runs the sealed image"
	id=$(pod_config_hex realistic)
	m=$(awk -v s="$CS/images/$id.cfs" '$1 == s && $3 == "composefs" { print $4 }' /proc/mounts)
	case ,$m, in *,digest=$seal,*) ok "its mount has digest= its seal: $m" ;;
	*) nok "its mount has digest= its seal ($seal): $m" ;; esac
	# the stored manifest replaced by another (fs-verity on, as any)
	mkdir -p $mnt
	ln $CS/images/$id.cfs $S/sealed-orig.cfs
	# (oci2cfs -o enables fs-verity on the file where the disk has it)
	if $bin/oci2cfs $L --ref shared-a --store $CS -q -o $other >/dev/null &&
		{ fsverity measure $other >/dev/null 2>&1 ||
			fsverity enable $other; } &&
		mv $other $CS/images/$id.cfs; then
		ok "the stored manifest replaced by shared-a's (fs-verity on)"
	else
		nok "the stored manifest replaced by shared-a's (fs-verity on)"
	fi
	if mount -t composefs $name $mnt -o store=$CS 2>$S/seal-mount.err; then
		nok "a replaced manifest of a sealed image mounts by name"
		umount $mnt
	else
		case $(cat $S/seal-mount.err) in
		*"does not match the image's seal $seal"*)
			ok "a replaced manifest of a sealed image is refused: $(cat $S/seal-mount.err)" ;;
		*) nok "a replaced manifest is refused for its seal: $(cat $S/seal-mount.err)" ;;
		esac
	fi
	mv $S/sealed-orig.cfs $CS/images/$id.cfs
	pod_check "cfs-podman remove the sealed image" $CP remove $name
}

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
	pod_registry_pull
	pod_env_down
}
