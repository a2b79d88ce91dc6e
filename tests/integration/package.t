#!/bin/bash
# SPDX-License-Identifier: MIT
# The Debian packages as a user gets them: make deb builds cfs and
# composefs-dkms without writing into the checkout, lintian finds no error
# or warning, cfs holds every tool, man page and the systemd unit at the
# paths mount(8) and systemd use and depends on every library its programs
# load, the packaged programs work, composefs-dkms holds the module's
# sources, and DKMS adds, builds, installs and removes that module for
# Debian 12's stock kernel (headers from the cache tests/vm/stock/fetch.sh
# fills) in a private DKMS tree. Nothing is installed on the host.
. "$(dirname "$0")/lib.sh"

require_host_tools dpkg-buildpackage dh dh_dkms lintian dkms modinfo git

cd "$TOP"
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
arch=$(dpkg --print-architecture)
deb=$TMP/deb
cfs_deb=$deb/cfs_${version}_$arch.deb
dkms_deb=$deb/composefs-dkms_${version}_all.deb

# --- the build ---------------------------------------------------------

# The checkout's files that git sees (ignored ones included), but build/.
tree_state() {
	git status --porcelain --ignored 2>&1 | grep -v '^!! build/$'
}
before=$(tree_state)
make -s deb DEBDIR="$deb" >"$TMP/make-deb.log" 2>&1
if ! ok $? "make deb builds the packages"; then
	diag_file "$TMP/make-deb.log" 40
	bail "no packages to test"
fi
is "$(tree_state)" "$before" "make deb writes nothing into the checkout"
[ -f "$cfs_deb" ] && [ -f "$dkms_deb" ]
ok $? "make deb leaves $(basename "$cfs_deb") and $(basename "$dkms_deb")"

lintian --fail-on error,warning --pedantic "$deb"/*.changes \
	>"$TMP/lintian" 2>&1
ok $? "lintian: no error or warning" || diag_file "$TMP/lintian"
grep -v '^running with root' "$TMP/lintian" >"$TMP/lintian.notes"
[ -s "$TMP/lintian.notes" ] && diag "lintian says:" &&
	diag_file "$TMP/lintian.notes"

# --- cfs ---------------------------------------------------------------

root=$TMP/root
dpkg-deb -x "$cfs_deb" "$root" && dpkg-deb -e "$cfs_deb" "$TMP/cfs.ctl"
ok $? "cfs unpacks into a scratch root"

# Every tool make builds is packaged, in /usr/bin or (the mount helper,
# which mount(8) looks for in /sbin) in /sbin, with its man page.
built=$(cd build/bin && ls | sort)
packaged=$(cd "$root" && ls usr/bin sbin | grep -v -e : -e '^$' \
	-e '^umount\.composefs$' | sort)
is "$packaged" "$built" "cfs holds every tool make builds"
[ -x "$root/sbin/mount.composefs" ] && [ ! -e "$root/usr/bin/mount.composefs" ]
ok $? "mount.composefs is in /sbin, where mount(8) finds helpers"
is "$(readlink "$root/sbin/umount.composefs")" mount.composefs \
	"umount.composefs links to mount.composefs"
missing=
for f in "$root"/usr/bin/* "$root"/sbin/*; do
	f=$(basename "$f")
	ls "$root"/usr/share/man/man[18]/"$f".[18].gz >/dev/null 2>&1 ||
		missing="$missing $f"
done
is "${missing# }" "" "every packaged command has a man page"
missing=
for f in man/*.[158]; do
	s=${f##*.}
	[ -f "$root/usr/share/man/man$s/$(basename "$f").gz" ] ||
		missing="$missing $f"
done
is "${missing# }" "" "every man page of man/ is packaged"

unit=$root/lib/systemd/system/cfs-podman-sync.service
exec_start=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit" 2>/dev/null)
is "$exec_start" /usr/bin/cfs-podman \
	"the systemd unit runs the installed /usr/bin/cfs-podman"
[ -x "$root$exec_start" ] && ! grep -q @ "$unit"
ok $? "the unit's program is in the package, no @VARIABLE@ left"
grep -q "deb-systemd-helper enable 'cfs-podman-sync.service'" \
	"$TMP/cfs.ctl/postinst"
ok $? "installing cfs enables the unit"

# Every library a packaged program loads comes from a package that cfs
# depends on, so apt install ./cfs_*.deb pulls it in.
depends=$(dpkg-deb -f "$cfs_deb" Depends)
undeclared=
for lib in $(for f in "$root"/usr/bin/* "$root"/sbin/mount.composefs; do
	ldd "$f"; done | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u); do
	pkg=$(dpkg -S "$lib" 2>/dev/null || dpkg -S "$(readlink -f "$lib")" 2>/dev/null)
	pkg=${pkg%%:*}
	# ldd lists what the libraries load too: check only direct needs.
	soname=$(basename "$lib")
	for f in "$root"/usr/bin/* "$root"/sbin/mount.composefs; do
		readelf -d "$f"
	done | grep -qF "[$soname]" || continue
	case ", $depends" in
	*", $pkg "* | *", $pkg,"* | *", $pkg") ;;
	*) undeclared="$undeclared $soname($pkg)" ;;
	esac
done
is "${undeclared# }" "" "cfs depends on the package of every library it loads"
case "$(dpkg-deb -f "$cfs_deb" Recommends)" in
*composefs-dkms*) ok 0 "cfs recommends composefs-dkms" ;;
*) ok 1 "cfs recommends composefs-dkms" ;;
esac

# The packaged (hardened, stripped) programs work: an image of a small
# tree, checked, and each command's --help.
src=$TMP/src
mkdir -p "$src/etc" && printf 'hello\n' >"$src/etc/motd" &&
	ln -s motd "$src/etc/link"
"$root/usr/bin/mkcfs" --digest-store "$TMP/store" "$src" "$TMP/img" \
	>"$TMP/mkcfs.out" 2>&1
ok $? "packaged mkcfs makes an image" || diag_file "$TMP/mkcfs.out"
is "$("$root/usr/bin/cfs-info" check "$TMP/img" 2>&1)" "$TMP/img: ok" \
	"packaged cfs-info checks it"
bad=
for t in "$root"/usr/bin/* "$root/sbin/mount.composefs"; do
	"$t" --help >/dev/null 2>&1 || bad="$bad $(basename "$t")"
done
is "${bad# }" "" "every packaged command answers --help"

# --- composefs-dkms ----------------------------------------------------

droot=$TMP/dkms-root
usrc=$droot/usr/src/composefs-$version
dpkg-deb -x "$dkms_deb" "$droot" && dpkg-deb -e "$dkms_deb" "$TMP/dkms.ctl"
ok $? "composefs-dkms unpacks into a scratch root"
differ=
# (Dot files are tools' state, e.g. checkpatch's, not sources.)
for f in $(git ls-files kernel/fs/composefs | grep -v '/\.[^/]*$'); do
	cmp -s "$f" "$usrc/${f#kernel/fs/composefs/}" || differ="$differ $f"
done
cmp -s kernel/include/uapi/linux/composefs.h "$usrc/include/linux/composefs.h" ||
	differ="$differ composefs.h"
is "${differ# }" "" "/usr/src/composefs-$version holds the module's sources and header"
conf=$usrc/dkms.conf
grep -qx "PACKAGE_VERSION=\"$version\"" "$conf" &&
	grep -qx 'PACKAGE_NAME="composefs"' "$conf" &&
	grep -qx 'AUTOINSTALL="yes"' "$conf"
ok $? "dkms.conf: composefs $version, built for every new kernel"
case "$(dpkg-deb -f "$dkms_deb" Depends)" in
*dkms*) ok 0 "composefs-dkms depends on dkms" ;;
*) ok 1 "composefs-dkms depends on dkms" ;;
esac
grep -qx 'DKMS_NAME=composefs' "$TMP/dkms.ctl/postinst" &&
	grep -qx "DKMS_VERSION=$version" "$TMP/dkms.ctl/postinst" &&
	grep -q 'dkms remove' "$TMP/dkms.ctl/prerm"
ok $? "installing it runs DKMS, removing it removes the module"

# DKMS on the packaged sources for Debian 12's stock kernel, all in $TMP:
# its own DKMS tree and module tree, and no signing (dkms would otherwise
# make a MOK key pair in /var/lib/dkms).
stock_headers() { # sets rel, hdr
	local dir=
	if [ -x tests/vm/stock/fetch.sh ]; then
		dir=$(tests/vm/stock/fetch.sh 2>"$TMP/fetch.log") ||
			diag_file "$TMP/fetch.log"
	else
		dir=$(ls -d "${CFS_KCACHE:-/var/cache/cfs-kernel}"/stock/*/.ready \
			2>/dev/null | head -n 1)
		dir=${dir%/.ready}
	fi
	[ -n "$dir" ] && [ -f "$dir/release" ] || return 1
	rel=$(cat "$dir/release")
	hdr=$dir/root/usr/src/linux-headers-$rel
	[ -f "$hdr/Makefile" ]
}
if ! stock_headers; then
	skip 6 "no stock kernel headers (tests/vm/stock/fetch.sh fetches them)"
	done_testing
fi
export sign_file=$TMP/no-sign-file
dk=(--dkmstree "$TMP/dkms" --sourcetree "$droot/usr/src"
	--installtree "$TMP/modules")
mkdir -p "$TMP/dkms" "$TMP/modules/$rel"
dkms add -m composefs -v "$version" "${dk[@]}" >"$TMP/dkms.log" 2>&1 &&
	dkms build -m composefs -v "$version" -k "$rel" \
		--kernelsourcedir "$hdr" "${dk[@]}" >>"$TMP/dkms.log" 2>&1
if ! ok $? "dkms builds composefs $version for $rel"; then
	diag_file "$TMP/dkms.log"
	diag_file "$TMP/dkms/composefs/$version/build/make.log"
fi
# A kernel other than 6.1 (bookworm-backports') is skipped (77), which
# lets its installation go on, rather than a build that fails it.
dkms build -m composefs -v "$version" -k 6.12.9+bpo-amd64 \
	--kernelsourcedir "$hdr" "${dk[@]}" >"$TMP/dkms-other.log" 2>&1
is $? 77 "dkms skips a kernel that is not 6.1"
ko=$TMP/dkms/composefs/$version/$rel/$(uname -m)/module/composefs.ko
vermagic=$(modinfo -F vermagic "$ko" 2>/dev/null)
aliases=$(modinfo -F alias "$ko" 2>/dev/null)
[ "${vermagic%% *}" = "$rel" ] && [[ $'\n'$aliases$'\n' == *$'\nfs-composefs\n'* ]]
ok $? "the module is for $rel, mount -t composefs loads it (fs-composefs)"
dkms install -m composefs -v "$version" -k "$rel" --kernelsourcedir "$hdr" \
	--no-depmod "${dk[@]}" >>"$TMP/dkms.log" 2>&1 &&
	cmp -s "$ko" "$TMP/modules/$rel/updates/dkms/composefs.ko"
ok $? "dkms installs it into updates/dkms" || diag_file "$TMP/dkms.log"
is "$(dkms status -m composefs "${dk[@]}" 2>&1)" \
	"composefs/$version, $rel, $(uname -m): installed" \
	"dkms status shows it installed"
dkms remove -m composefs -v "$version" --all --no-depmod "${dk[@]}" \
	>>"$TMP/dkms.log" 2>&1 &&
	[ ! -e "$TMP/modules/$rel/updates/dkms/composefs.ko" ]
ok $? "dkms remove removes the module"

done_testing
