# Podman 4.3 inside the test VM (sourced by sections/podman.sh).
# The root is the host's, read-only over 9p: podman gets writable places
# on tmpfs or on the scratch disk, and its configuration from
# CONTAINERS_CONF / CONTAINERS_STORAGE_CONF files on tmpfs, so nothing of
# the host's /etc/containers is needed beyond policy.json and
# registries.conf (read only).
#   pod_env_up STORE   prepare everything; the cfs store is STORE
#                      (which cfs-podman setup adds to storage.conf)
#   pod_env_down       undo it (containers, images, mounts)

. "$here/../../scripts/podman-conf.sh"

PV=/tmp/podvm			# tmpfs: configuration, overlay uppers
PD=$S/podvm			# scratch disk: podman's store, big temp files
pod_mounts=()			# what pod_env_up mounted, unmounted in reverse

pod_mount() { # pod_mount TARGET MOUNT-ARGS...: mount and remember
	local target=$1
	shift
	mount "$@" "$target" || return 1
	pod_mounts+=("$target")
}

# A directory of the read-only root made writable by an overlay whose
# upper layer is under UPPERS, so that what it holds stays visible (the
# checkout itself may live under /var/tmp or /var/cache).
pod_writable() { # DIR UPPERS
	local up
	up=$2/ov$(echo "$1" | tr / _)
	mkdir -p "$up/upper" "$up/work"
	pod_mount "$1" -t overlay overlay \
		-o "lowerdir=$1,upperdir=$up/upper,workdir=$up/work"
}

# A file of the read-only root replaced by one of ours: the directory
# gets a tmpfs-backed overlay so the file can exist, then a bind mount.
pod_install_file() { # SRC DEST
	local src=$1 dest=$2
	if [ ! -e "$dest" ]; then
		pod_writable "$(dirname "$dest")" $PV || return 1
		: >"$dest" || return 1
	fi
	pod_mount "$dest" --bind "$src"
}

pod_env_up() { # STORE
	mkdir -p $PD/containers $PD/tmp
	podman_private_conf $PV /var/lib/containers/storage \
		/run/containers/storage "" $PD/tmp || return 1
	export TMPDIR=$PD/tmp
	# what a user does: cfs-podman adds the store to storage.conf
	$bin/cfs-podman --store "$1" setup --install >/dev/null || return 1
	grep -qF "additionalimagestores = [\"$1/podman\"]" \
		"$CONTAINERS_STORAGE_CONF" || return 1
	# podman refuses to start while a listed store does not exist, and
	# cfs-podman creates it only at the first add
	mkdir -p "$1/podman"
	mkdir -p /dev/shm /dev/pts
	mountpoint -q /dev/shm || pod_mount /dev/shm -t tmpfs shm || return 1
	mountpoint -q /dev/pts || pod_mount /dev/pts -t devpts devpts ||
		return 1
	mountpoint -q /sys/fs/cgroup ||
		pod_mount /sys/fs/cgroup -t cgroup2 cgroup2 || return 1
	# not an overlay: podman's overlay driver refuses one as graphroot
	pod_mount /var/lib/containers --bind $PD/containers || return 1
	pod_writable /var/tmp $PD || return 1
	pod_writable /var/cache $PD || return 1	# short-name aliases
	[ -n "${CFS_VM_INSTALLED:-}" ] && return 0 # the package's, in /sbin
	pod_install_file $bin/mount.composefs /sbin/mount.composefs || return 1
	if [ -e $bin/umount.composefs ]; then
		pod_install_file $bin/umount.composefs /sbin/umount.composefs ||
			return 1
	fi
}

pod_umount_tree() { # DIR: DIR and every mount below it, deepest first
	awk -v d="$1" '$2 == d || index($2, d "/") == 1 { print $2 }' \
		/proc/mounts | sort -r | while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
}

pod_env_down() {
	local i m
	pm rm -af -t 0 >/dev/null 2>&1
	pm rmi -af >/dev/null 2>&1
	# composefs mounts of the store (cfs-podman's, or left by a failure)
	awk -v s="$S/" '$3 == "composefs" && index($2, s) == 1 { print $2 }' \
		/proc/mounts | sort -r | while read -r m; do umount "$m"; done
	for ((i = ${#pod_mounts[@]} - 1; i >= 0; i--)); do
		pod_umount_tree "${pod_mounts[i]}"
	done
	pod_mounts=()
	unset CONTAINERS_CONF CONTAINERS_STORAGE_CONF TMPDIR
}
