#!/bin/bash
# Build the composefs test kernel and composefs.ko, outside the repository.
#
#   kernel/build.sh [VARIANT]          kernel (if needed) + module
#   kernel/build.sh [VARIANT] module   module only (kernel must exist)
#   kernel/build.sh [VARIANT] config   unpack and configure only
#
# VARIANT: plain (tinyconfig + config/base.config, the default), debug
# (plain + config/debug.config: KASAN, UBSAN, kmemleak) or noverity
# (tinyconfig + config/noverity.config only: a small kernel without
# fs-verity, for tests/integration/vm-noverity.t).
#
# The pristine linux-source-6.1 tree is unpacked once into $CFS_KCACHE
# (default /var/cache/cfs-kernel).  Each variant gets its own tree keyed by a
# hash of the config fragments and kernel/series/*.patch, so changing either
# starts a fresh tree while a kernel/fs/composefs edit only rebuilds the
# module (built externally with M=, from a copy of the sources in the cache).
# Results: build/kernel/<variant>/{bzImage,composefs.ko,composefs-export.ko}
# (see build_module), and
# build/kernel/{bzImage,composefs.ko} pointing at the last plain or debug
# variant built (tests/vm/run.sh's default; noverity never becomes that,
# as the whole suite needs fs-verity).
set -euo pipefail

variant=${1:-plain}
what=${2:-all}
case $variant in plain | debug | noverity) ;; *)
	echo "build.sh: unknown variant '$variant' (plain, debug or noverity)" >&2
	exit 2
	;;
esac

repo=$(cd "$(dirname "$0")/.." && pwd)
kdir=$repo/kernel
cache=${CFS_KCACHE:-/var/cache/cfs-kernel}
tarball=${CFS_KSRC:-/usr/src/linux-source-6.1.tar.xz}
jobs=${CFS_KJOBS:-2}
out=$repo/build/kernel

export CCACHE_DIR=$cache/ccache
export KBUILD_BUILD_TIMESTAMP='2023-01-20 00:00:00 UTC'
export KBUILD_BUILD_USER=cfs KBUILD_BUILD_HOST=cfs
# Not niced: with the QEMU tiers side by side (tests/run), the debug
# kernel's build is the start of make check's longest path.
kmake=(make -s ARCH=x86_64 "CC=ccache gcc" -j"$jobs")

log() { echo "build.sh: $*" >&2; }

case $variant in
plain) fragments=("$kdir/config/base.config") ;;
debug) fragments=("$kdir/config/base.config" "$kdir/config/debug.config") ;;
noverity) fragments=("$kdir/config/noverity.config") ;;
esac

key=$(cat "${fragments[@]}" "$kdir"/series/*.patch | sha256sum | cut -c1-16)
tree=$cache/tree-$variant-$key
# The module is built from a copy of this checkout's sources; each checkout
# (worktree, clean clone) gets its own copy, so that rsync's preserved mtimes
# never make one checkout's module reuse another's objects.
mod=$cache/mod-$variant-$key-$(printf '%s' "$repo" | sha256sum | cut -c1-8)
mkdir -p "$cache" "$out/$variant"
# One build of a variant at a time: checkouts share its tree. Variants
# build side by side (ccache takes concurrent use), so that on a fresh
# machine the debug kernel, which starts make check's longest path, never
# waits for the noverity one.
exec 9>"$cache/.lock-$variant"
flock 9

# Trees of this variant with other keys are stale configurations; each is
# over a gigabyte, so drop them when a new one is made.
prune_stale() {
	local d
	for d in "$cache"/tree-"$variant"-* "$cache"/mod-"$variant"-*; do
		case $d in *-"$key" | *-"$key"-*) continue ;; esac
		[ -d "$d" ] && log "removing stale $d" && rm -rf "$d"
	done
	return 0
}

unpack_tree() {
	local tmp=$tree.tmp
	prune_stale
	log "unpacking $tarball into $tree"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -xJf "$tarball" -C "$tmp" --strip-components=1
	for p in "$kdir"/series/*.patch; do
		log "applying $(basename "$p")"
		patch -s -p1 -d "$tmp" <"$p"
	done
	mv "$tmp" "$tree"
}

configure_tree() {
	log "configuring ($variant)"
	"${kmake[@]}" -C "$tree" tinyconfig >/dev/null
	(cd "$tree" && KCONFIG_CONFIG=.config \
		scripts/kconfig/merge_config.sh -m .config "${fragments[@]}" >/dev/null)
	"${kmake[@]}" -C "$tree" olddefconfig >/dev/null
	check_config
}

# Fail on any requested option that Kconfig dropped (missing dependency),
# and on any option asked to be off ("=n" or "# CONFIG_X is not set") that
# is on (something selects it).
check_config() {
	local line opt missing=0
	while read -r line; do
		case $line in
		CONFIG_*=y | CONFIG_*=m)
			grep -qx "$line" "$tree/.config" && continue
			log "$line did not stick (missing dependency?)"
			;;
		CONFIG_*=n | "# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%%[= ]*}
			grep -qE "^$opt=[ym]$" "$tree/.config" || continue
			log "$opt is on, asked to be off (selected by another option?)"
			;;
		*) continue ;;
		esac
		missing=1
	done < <(cat "${fragments[@]}")
	if [ $missing = 1 ]; then
		mv "$tree/.config" "$tree/.config.rejected"
		exit 1
	fi
}

build_kernel() {
	[ -d "$tree" ] || unpack_tree
	[ -f "$tree/.config" ] || configure_tree
	if [ ! -f "$tree/.built" ] || [ "$tree/.config" -nt "$tree/.built" ]; then
		log "building bzImage in $tree (-j$jobs)"
		local t0=$SECONDS
		"${kmake[@]}" -C "$tree" bzImage modules
		touch "$tree/.built"
		log "kernel built in $((SECONDS - t0)) s"
	fi
	ln -sfn "$tree/arch/x86/boot/bzImage" "$out/$variant/bzImage"
}

build_module() {
	[ -f "$tree/.built" ] || {
		log "no kernel built for $variant yet; run kernel/build.sh $variant"
		exit 1
	}
	mkdir -p "$mod/include/linux"
	rsync -a --delete --exclude include "$kdir/fs/composefs/" "$mod/"
	cp "$kdir/include/uapi/linux/composefs.h" "$mod/include/linux/composefs.h"
	# composefs.ko takes fs-verity digests from verity descriptors, as on a
	# distribution kernel; composefs-export.ko from fsverity_get_digest(),
	# which this kernel exports (kernel/series), as in tree.
	local v
	for v in descriptor export; do
		"${kmake[@]}" -C "$tree" M="$mod" CONFIG_COMPOSEFS_FS=m \
			COMPOSEFS_VERITY=$v KCFLAGS="-I$mod/include" modules
		cp "$mod/composefs.ko" "$out/$variant/composefs-$v.ko"
	done
	mv "$out/$variant/composefs-descriptor.ko" "$out/$variant/composefs.ko"
}

case $what in
all) build_kernel ;;
module) ;;
config)
	[ -d "$tree" ] || unpack_tree
	[ -f "$tree/.config" ] || configure_tree
	log "configured $tree"
	exit 0
	;;
*)
	log "unknown target '$what' (all, module or config)"
	exit 2
	;;
esac
build_module
if [ "$variant" != noverity ]; then
	ln -sfn "$variant/bzImage" "$out/bzImage"
	ln -sfn "$variant/composefs.ko" "$out/composefs.ko"
fi
log "ready: $out/$variant/bzImage $out/$variant/composefs.ko"
