#!/bin/bash
# In the stock-kernel VM, last: the kernel is tainted by nothing but the
# out-of-tree (O, bit 12) and unsigned (E, bit 13) module. One TAP line.
t=$(cat /proc/sys/kernel/tainted)
other=$((t & ~((1 << 12) | (1 << 13))))
if [ "$other" = 0 ]; then
	echo "ok - kernel taint $t: only the out-of-tree module's (O, E)"
else
	echo "not ok - kernel taint $t: flags $other beyond the out-of-tree module's"
	dmesg | grep -iE 'taint|warn|bug' | head -n 20 | sed 's/^/#   /'
fi
