# composefs kernel module, test kernel and QEMU tier (included by Makefile).
#   make kernel [KERNEL_VARIANT=plain|debug|noverity]   bzImage + composefs.ko
#   make kernel-module [KERNEL_VARIANT=...]     composefs.ko only
#   make vm-check [VM_VARIANT=debug|plain|noverity]   boot the kernel, run the
#                                               suite (noverity: its section)
#   make kernel-patches                         regenerate kernel/patches/
# Build trees and ccache live in /var/cache/cfs-kernel (CFS_KCACHE).

KERNEL_VARIANT ?= plain
VM_VARIANT ?= debug

kernel:
	kernel/build.sh $(KERNEL_VARIANT)

kernel-module:
	kernel/build.sh $(KERNEL_VARIANT) module

vm-check: all
	kernel/build.sh $(VM_VARIANT)
	tests/vm/run.sh -k build/kernel/$(VM_VARIANT)/bzImage \
		-m build/kernel/$(VM_VARIANT)/composefs.ko \
		$(if $(filter noverity,$(VM_VARIANT)),-V -s noverity)

kernel-patches:
	kernel/mkpatches.sh

.PHONY: kernel kernel-module vm-check kernel-patches
