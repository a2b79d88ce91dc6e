#!/bin/bash
# SPDX-License-Identifier: MIT
# The no-fs-verity QEMU tier: builds (or reuses, from /var/cache/cfs-kernel)
# kernel/build.sh's noverity kernel, a small one without CONFIG_FS_VERITY
# (kernel/config/noverity.config), plus composefs.ko built against it; boots
# it under qemu-system-x86_64 -accel tcg with tests/vm/run.sh -V (a scratch
# ext4 without the verity feature, which that kernel could only mount
# read-only) and runs the suite's setup and its noverity section: there
# composefs refuses digest= and verity_check=1|2 ("need a kernel with
# fs-verity") instead of mounting and failing every open, verity_check=0
# mounts and reads, and mount.composefs fails with one line. The other two
# tiers' kernels both have fs-verity (tests/integration/vm-stock.t says
# what each tier covers). Its TAP is this test's TAP.
. "$(dirname "$0")/lib.sh"
top=$TOP
log=$top/build/kernel-noverity.log
tap=$top/build/vm-noverity.tap
sections=${CFS_NOVERITY_SECTIONS:-noverity}

require_host_tools qemu-system-x86_64 mkfs.ext4 flock
ksrc=${CFS_KSRC:-/usr/src/linux-source-6.1.tar.xz}
[ -f "$ksrc" ] || skip_or_fail_in_ci "no kernel source $ksrc (linux-source-6.1)"
missing=$(vm_missing_sections "$sections")
if [ -n "$missing" ]; then
	ok 1 "sections the suite does not have: $missing"
	done_testing
fi

mkdir -p "$top/build"
t0=$SECONDS
# Niced: on a fresh machine this build runs beside the debug kernel's
# (vm.t), which starts make check's longest path; this tier's VM takes a
# minute.
if ! nice -n 10 make -s -C "$top" kernel KERNEL_VARIANT=noverity \
	>"$log" 2>&1; then
	ok 1 "build the noverity kernel and composefs.ko (log: $log)"
	diag_file <(tail -n 30 "$log")
	done_testing
fi
ok 0 "build the noverity kernel and composefs.ko ($((SECONDS - t0)) s)"

"$top/tests/vm/run.sh" -V -k "$top/build/kernel/noverity/bzImage" \
	-m "$top/build/kernel/noverity/composefs.ko" \
	-t "${CFS_VM_TIMEOUT:-900}" -s "$sections" >"$tap" 2>&1
tap_include "tests/vm/run.sh -V -s $sections" $? "$tap"
done_testing
