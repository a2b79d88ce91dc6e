#!/bin/bash
# SPDX-License-Identifier: MIT
# The QEMU tier: builds (or reuses, from /var/cache/cfs-kernel) the debug
# test kernel with KASAN, UBSAN and kmemleak plus composefs.ko, boots it
# under qemu-system-x86_64 -accel tcg with this checkout shared read-only,
# and runs the in-VM suite (tests/vm/). Its TAP is this test's TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
variant=${CFS_VM_VARIANT:-debug}
log=$top/build/kernel-$variant.log

mkdir -p "$top/build"
if ! make -s -C "$top" kernel KERNEL_VARIANT="$variant" >"$log" 2>&1; then
	echo "1..1"
	echo "not ok 1 - build the $variant test kernel (log: $log)"
	tail -n 30 "$log" | sed 's/^/# /'
	exit 1
fi
exec "$top/tests/vm/run.sh" -k "$top/build/kernel/$variant/bzImage" \
	-m "$top/build/kernel/$variant/composefs.ko"
