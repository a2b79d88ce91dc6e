#!/bin/bash
# In the stock-kernel VM: what a Debian 12 user does. `dpkg -i` of the cfs
# and composefs-dkms packages ($CFS_DEBS), DKMS building and installing
# the module for the running kernel; then the first `mount -t composefs`
# loads the module by itself (its fs-composefs alias). TAP lines.
set -u
rel=$(uname -r)
ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; }
is_ok() { if [ "$1" = 0 ]; then ok "$2"; else nok "$2"; fi; }

shopt -s nullglob
debs=("${CFS_DEBS:?}"/cfs_*.deb "$CFS_DEBS"/composefs-dkms_*.deb)
if [ ${#debs[@]} != 2 ]; then
	nok "the cfs and composefs-dkms packages are in $CFS_DEBS (found: ${debs[*]})"
	exit 1
fi
# man-db's trigger would rebuild its index of all of /usr/share/man.
rm -f /var/lib/man-db/auto-update
# The host's DKMS build (dkms-build.sh) as a binaries-only DKMS tarball
# where the package's postinst looks for one: it loads and installs that
# instead of compiling (minutes under TCG). Without it DKMS builds here.
if [ -n "${CFS_DKMS_TARBALL:-}" ]; then
	mkdir -p /usr/share/composefs-dkms &&
		cp "$CFS_DKMS_TARBALL" /usr/share/composefs-dkms/
	is_ok $? "the host's DKMS build is where the package's postinst loads it"
fi
t0=$SECONDS
dpkg -i "${debs[@]}" >/tmp/dpkg.log 2>&1
st=$?
is_ok $st "dpkg -i ${debs[*]##*/} ($((SECONDS - t0)) s)"
if [ $st != 0 ]; then
	tail -n 30 /tmp/dpkg.log | sed 's/^/#   /'
	find /var/lib/dkms -name make.log -exec tail -n 20 {} + 2>/dev/null |
		sed 's/^/#   make.log: /'
	exit 1
fi
dkms status composefs | grep -q ", $rel, x86_64: installed"
is_ok $? "dkms status: composefs installed for $rel" ||
	dkms status | sed 's/^/#   /'
ko=$(modinfo -n composefs 2>&1)
case $ko in /lib/modules/$rel/updates/dkms/composefs.ko*) st=0 ;; *) st=1 ;; esac
is_ok $st "modinfo: the module DKMS installed, in /lib/modules/$rel/updates/dkms ($ko)"
modinfo -F alias composefs | grep -qx fs-composefs
is_ok $? "modinfo: the module has the filesystem alias fs-composefs"
for h in /sbin/mount.composefs /sbin/umount.composefs; do
	[ -x "$(readlink -f $h)" ]
	is_ok $? "$h is installed (where mount(8) looks)"
done

# Autoload: nothing loaded it so far; a mount does.
! grep -q '^composefs ' /proc/modules
is_ok $? "composefs is not loaded before the first mount"
a=/tmp/autoload
mkdir -p $a/src $a/mnt && echo autoload >$a/src/file &&
	mkcfs $a/src $a/img --digest-store $a/store >/dev/null &&
	mount -t composefs $a/img $a/mnt -o basedir=$a/store &&
	grep -q '^composefs ' /proc/modules && [ "$(cat $a/mnt/file)" = autoload ]
is_ok $? "mount -t composefs loads the module by itself and mounts"
umount $a/mnt 2>/dev/null
rm -rf $a
