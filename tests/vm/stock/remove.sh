#!/bin/bash
# In the stock-kernel VM, after the suite: what `apt remove cfs
# composefs-dkms` does to a Debian 12 user's system. The tools and the
# module go (dkms status empty, no module file left for the running
# kernel); a loaded module stays loaded until reboot. TAP lines.
set -u
rel=$(uname -r)
ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; }
is_ok() { if [ "$1" = 0 ]; then ok "$2"; else nok "$2"; fi; }

dpkg -r cfs composefs-dkms >/tmp/dpkg-remove.log 2>&1
st=$?
is_ok $st "dpkg -r cfs composefs-dkms"
[ $st = 0 ] || tail -n 20 /tmp/dpkg-remove.log | sed 's/^/#   /'
[ -z "$(dkms status composefs 2>/dev/null)" ]
is_ok $? "dkms status: composefs gone"
[ -z "$(find /lib/modules/"$rel" -name 'composefs.ko*' 2>/dev/null)" ]
is_ok $? "no composefs module left in /lib/modules/$rel"
! modinfo composefs >/dev/null 2>&1
is_ok $? "modinfo no longer finds composefs"
[ ! -e /sbin/mount.composefs ] && [ ! -e /usr/sbin/mount.composefs ] &&
	! command -v oci2cfs >/dev/null
is_ok $? "mount.composefs and the tools are removed"
