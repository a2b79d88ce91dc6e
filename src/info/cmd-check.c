// SPDX-License-Identifier: MIT
/* cfs-info check and measure. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "info.h"
#include "cfs/util.h"
#include "cfs/verity.h"

int cmd_check(int argc, char **argv, const char *basedir)
{
	int ret = 0;

	if (need_operands(argc, 1, "check") < 0)
		return 2;
	for (int i = 1; i < argc; i++) {
		struct info_image ii;

		/* Opening validates every rule of the format. */
		if (info_open(&ii, argv[i]) < 0) {
			ret = 1;
			continue;
		}
		printf("%s: ok\n", argv[i]);
		info_close(&ii);
	}
	return ret;
}

static int measure_fd(const char *name, int fd, uint8_t out[CFS_DIGEST_SIZE])
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		cfs_error("%s", strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		cfs_error("not a regular file");
		return -1;
	}
	return cfs_verity_digest_fd(fd, (uint64_t)st.st_size, out);
}

static int measure_one(const char *path, uint8_t out[CFS_DIGEST_SIZE])
{
	uint8_t *data;
	size_t len;
	int fd, r;

	if (strcmp(path, "-") == 0) {
		if (cfs_read_file(path, &data, &len) < 0)
			return -1;
		r = cfs_verity_digest_mem(data, len, out);
		free(data);
		return r;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		cfs_error("%s", strerror(errno));
		return -1;
	}
	r = measure_fd(path, fd, out);
	close(fd);
	return r;
}

int cmd_measure(int argc, char **argv, const char *basedir)
{
	char hex[2 * CFS_DIGEST_SIZE + 1];
	uint8_t digest[CFS_DIGEST_SIZE];
	int ret = 0;

	if (need_operands(argc, 1, "measure") < 0)
		return 2;
	for (int i = 1; i < argc; i++) {
		if (measure_one(argv[i], digest) < 0) {
			fprintf(stderr, "%s: %s: %s\n", TOOL, argv[i],
				cfs_strerror());
			ret = 1;
			continue;
		}
		cfs_hex(hex, digest, CFS_DIGEST_SIZE);
		printf("%s %s\n", hex, argv[i]);
	}
	return ret;
}
