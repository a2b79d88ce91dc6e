/* SPDX-License-Identifier: MIT */
/*
 * The base of libcfs, one header for all of it: errors, memory (hex,
 * buffers), file I/O, and the tools' shared option parsing. The base's
 * files include only each other's headers in this order (error.h needs
 * only cfs/escape.h, mem.h nothing, file-io.h both and the fs-verity ioctl
 * leaf), never a header of a subsystem above them.
 */
#ifndef CFS_UTIL_H
#define CFS_UTIL_H

#include <stdbool.h>

#include "cfs/error.h"
#include "cfs/file-io.h"
#include "cfs/mem.h"
#include "cfs/tool-options.h"

#endif
