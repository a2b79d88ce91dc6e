#!/bin/bash
# SPDX-License-Identifier: MIT
# The QEMU tier: builds (or reuses, from /var/cache/cfs-kernel) the debug
# test kernel with KASAN, UBSAN and kmemleak plus composefs.ko (and
# composefs-export.ko, see kernel/build.sh), boots it under
# qemu-system-x86_64 -accel tcg with this checkout shared read-only, and
# runs the in-VM suite (tests/vm/). Its TAP is this test's TAP.
. "$(dirname "$0")/lib.sh"
top=$TOP
variant=${CFS_VM_VARIANT:-debug}
log=$top/build/kernel-$variant.log

# The whole suite on the KASAN kernel takes well over run.sh's default of
# 900 s under TCG, so it is split over two VMs booted side by side (each
# QEMU uses one core); their TAP is merged and renumbered here.
# podman runs in the stock-kernel tier only, the noverity section in the
# no-fs-verity tier only (tests/integration/vm-stock.t says what each tier
# covers): podman's kernel paths are overlay and e2e's.
# CFS_VM_SECTIONS=a,b runs only those sections, in one VM.
groups=("basic,verity,overlay,tmpfs,hostile,cycles,veritydigest,corruptlog,upper" "backing,fixtures,e2e,store")
[ -n "${CFS_VM_SECTIONS:-}" ] && groups=("$CFS_VM_SECTIONS")
missing=$(vm_missing_sections "$(IFS=,; echo "${groups[*]}")")
if [ -n "$missing" ]; then
	ok 1 "sections the suite does not have: $missing"
	done_testing
fi

mkdir -p "$top/build"
if ! make -s -C "$top" kernel KERNEL_VARIANT="$variant" >"$log" 2>&1; then
	ok 1 "build the $variant test kernel (log: $log)"
	diag_file <(tail -n 30 "$log")
	done_testing
fi
# The fixtures and e2e sections read the OCI fixtures and their reference
# dumps from the host; a failure shows up as those sections' not-ok.
vm_fixtures >"$top/build/vm-fixtures.log" 2>&1 ||
	echo "# building the fixtures failed: see build/vm-fixtures.log" >&2
pids=()
for i in "${!groups[@]}"; do
	"$top/tests/vm/run.sh" -k "$top/build/kernel/$variant/bzImage" \
		-m "$top/build/kernel/$variant/composefs.ko" \
		-t "${CFS_VM_TIMEOUT:-3000}" -s "${groups[i]}" \
		>"$top/build/vm-$i.tap" 2>&1 &
	pids+=($!)
done
for i in "${!groups[@]}"; do
	wait "${pids[i]}"
	st=$?
	echo "# --- VM $((i + 1)): ${groups[i]}"
	tap_include "tests/vm/run.sh -s ${groups[i]}" $st "$top/build/vm-$i.tap"
done
done_testing
