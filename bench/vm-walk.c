// SPDX-License-Identifier: MIT
/*
 * vm-walk: the timers of the VM benchmark (bench/vm.sh).  Under TCG a process
 * start costs ~100 ms, so every timed operation runs inside this one program
 * with CLOCK_MONOTONIC around the system calls.
 *
 *   vm-walk walk [-c] [-L] DIR        stat-walk: readdir + lstat + readlink
 *                                     (-L: and stat of each link's target,
 *                                     not descending); prints "MS ENTRIES"
 *   vm-walk run [-c] CMD [ARG]...     fork+exec+wait, stdout to /dev/null;
 *                                     prints "MS"
 *   vm-walk open [-c] FILE            open(2) + read of the first 4 KiB;
 *                                     prints "MS READS" and "READS MS"
 *                                     of each step: walk, open, read
 *   vm-walk opens [-c] [-n N] DIR     open(2) + close(2) of every non-empty
 *                                     regular file under DIR (listed before
 *                                     the clock starts), N passes; prints
 *                                     "MS OPENS READS"
 *   vm-walk mount [-c] [-l] [-k] [-n N] [-w DIR] TYPE SRC TARGET [OPTS]
 *                                     mount(2) N times (on TARGET/0..N-1
 *                                     when N > 1; a "%d" in SRC becomes
 *                                     0..N-1); -l attaches SRC to a loop
 *                                     device first; -k keeps the mounts;
 *                                     -w walks DIR's path after -c's drop,
 *                                     so that only what is below is cold;
 *                                     prints "MEDIAN_MS MAX_MS TOTAL_MS
 *                                     LOOP_MS READS"; TYPE "bind" bind-mounts
 *   vm-walk farm DUMP STORE DIR       symlink farm from a composefs-dump(5)
 *                                     listing; prints "MS ENTRIES"
 *   vm-walk whiteouts DIR             OCI whiteouts (.wh.NAME, .wh..wh..opq)
 *                                     to overlayfs ones; prints "MS COUNT"
 *   vm-walk disk [-n N] DEV           N 4 KiB reads at random places of
 *                                     a block device or file, O_DIRECT; prints
 *                                     "MEDIAN_MS MAX_MS"
 *   vm-walk drop                      sync and drop the caches
 *
 * -c (cold) syncs and drops the page, dentry and inode caches and the block
 * devices' buffers just before the clock starts.  The program locks its own
 * pages first: it runs from the 9p root, and a page of it or of libc faulted
 * back in over 9p after the drop would be timed as part of the filesystem
 * under test.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define MAX_COUNT 1000 /* most mounts or reads one -n asks for */

static const char *prog = "vm-walk";

static void die(const char *subject, const char *msg)
{
	fprintf(stderr, "%s: %s: %s\n", prog, subject, msg);
	exit(1);
}

static void die_errno(const char *subject)
{
	die(subject, strerror(errno));
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void write_drop_caches(const char *what)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	if (fd < 0 || write(fd, what, strlen(what)) != (ssize_t)strlen(what))
		die_errno("/proc/sys/vm/drop_caches");
	close(fd);
}

/* BLKFLSBUF on every block device that has a medium. */
static void flush_block_devices(void)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	char dev[300];
	int fd;

	if (!d)
		die_errno("/sys/block");
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(dev, sizeof(dev), "/dev/%s", e->d_name);
		fd = open(dev, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			continue;
		ioctl(fd, BLKFLSBUF, 0); /* fails on a detached loop device */
		close(fd);
	}
	closedir(d);
}

/*
 * drop_caches alone leaves warm whatever the last operation touched: in 6.1
 * it skips pages still in a CPU's LRU-add batch and buffers held by the
 * per-CPU buffer-head LRU (ext4's inode-table and directory blocks).  A
 * "cold" mount after a mount of the same image then read 4 blocks instead
 * of 9.  BLKFLSBUF drains both and drops the block devices' caches; the
 * second drop_caches evicts the file pages the first could not.
 */
static void drop_caches(void)
{
	sync();
	write_drop_caches("3\n");
	flush_block_devices();
	write_drop_caches("3\n");
}

/* Reads completed by all block devices so far (/proc/diskstats). */
static unsigned long long block_reads(void)
{
	FILE *f = fopen("/proc/diskstats", "re");
	unsigned long long n, sum = 0;
	char line[512];

	if (!f)
		die_errno("/proc/diskstats");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*u %*u %*s %llu", &n) == 1)
			sum += n;
	fclose(f);
	return sum;
}

/* ---- walk ---- */

struct walk {
	bool follow;
	long entries;
};

static void walk_dir(struct walk *w, int dirfd, const char *path)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;

	if (!d)
		die_errno(path);
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		struct stat st;
		char buf[4096];
		int fd;

		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
			die_errno(name);
		w->entries++;
		if (S_ISLNK(st.st_mode)) {
			if (readlinkat(dirfd, name, buf, sizeof(buf)) < 0)
				die_errno(name);
			/* -L: stat what the link names, as a farm's user
			 * would; never descend (ls -lR does not either) */
			if (w->follow && fstatat(dirfd, name, &st, 0) &&
			    errno != ENOENT && errno != ELOOP)
				die_errno(name); /* dangling links are fine */
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		if (fd < 0)
			die_errno(name);
		walk_dir(w, fd, name);
	}
	closedir(d);
}

static int cmd_walk(bool cold, bool follow, const char *dir)
{
	struct walk w = {.follow = follow};
	double t0;
	int fd;

	if (cold)
		drop_caches();
	t0 = now_ms();
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		die_errno(dir);
	walk_dir(&w, fd, dir);
	printf("%.1f %ld\n", now_ms() - t0, w.entries);
	return 0;
}

/* ---- run ---- */

static int cmd_run(bool cold, char **argv)
{
	double t0;
	pid_t pid;
	int status;

	if (cold)
		drop_caches();
	t0 = now_ms();
	pid = fork();
	if (pid < 0)
		die_errno("fork");
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null < 0 || dup2(null, 1) < 0)
			_exit(126);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s: %s\n", prog, argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		die_errno("waitpid");
	printf("%.1f\n", now_ms() - t0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s: %s: failed (status %#x)\n", prog, argv[0],
			status);
		return 1;
	}
	return 0;
}

/* stat(2) of each ancestor of FILE and of FILE: the path walk. */
static void walk_path(const char *file)
{
	char path[4096];
	struct stat st;
	size_t i;

	if (strlen(file) >= sizeof(path))
		die(file, "path too long");
	strcpy(path, file);
	for (i = 1; path[i]; i++) {
		if (path[i] != '/')
			continue;
		path[i] = '\0';
		if (stat(path, &st))
			die_errno(path);
		path[i] = '/';
	}
	if (stat(path, &st))
		die_errno(path);
}

/*
 * open(2) and a read of the first 4 KiB: what any mount of a file-backed
 * image pays before its own work.  The path is walked first one stat(2) per
 * component, so that the block reads split into the path walk (directory
 * blocks and inodes, the file's own inode included), the open (ext4 loads
 * the fs-verity descriptor there) and the read (data and Merkle tree).
 */
static int cmd_open(bool cold, const char *file)
{
	unsigned long long reads[4];
	char page[4096];
	double t[4];
	int fd, i;

	if (cold)
		drop_caches();
	reads[0] = block_reads();
	t[0] = now_ms();
	walk_path(file);
	t[1] = now_ms();
	reads[1] = block_reads();
	fd = open(file, O_RDONLY);
	if (fd < 0)
		die_errno(file);
	t[2] = now_ms();
	reads[2] = block_reads();
	if (pread(fd, page, sizeof(page), 0) < 0)
		die_errno(file);
	t[3] = now_ms();
	reads[3] = block_reads();
	close(fd);
	printf("%.3f %llu", t[3] - t[0], reads[3] - reads[0]);
	for (i = 1; i < 4; i++)
		printf(" %llu %.3f", reads[i] - reads[i - 1], t[i] - t[i - 1]);
	printf("\n");
	return 0;
}

/* ---- opens ---- */

static struct {
	char **paths;
	size_t n, cap;
} opens_list;

static int opens_add(const char *path, const struct stat *st, int type,
		     struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode) || !st->st_size)
		return 0;
	if (opens_list.n == opens_list.cap) {
		opens_list.cap = opens_list.cap ? 2 * opens_list.cap : 1024;
		opens_list.paths = realloc(opens_list.paths,
					   opens_list.cap * sizeof(char *));
		if (!opens_list.paths)
			die("opens", "out of memory");
	}
	opens_list.paths[opens_list.n] = strdup(path);
	if (!opens_list.paths[opens_list.n++])
		die("opens", "out of memory");
	return 0;
}

/*
 * Opening files, each of which composefs opens and (with verity_check)
 * verifies the backing file of: cold, the first pass after the drop pays
 * the path walks and the backing inodes' and fs-verity descriptors' reads.
 */
static int cmd_opens(bool cold, int passes, const char *dir)
{
	unsigned long long reads;
	double t0;
	size_t i;
	int p, fd;

	if (passes < 1 || passes > MAX_COUNT)
		die("-n", "count out of range");
	if (nftw(dir, opens_add, 64, FTW_PHYS))
		die_errno(dir);
	if (!opens_list.n)
		die(dir, "no regular file with content");
	if (cold)
		drop_caches();
	reads = block_reads();
	t0 = now_ms();
	for (p = 0; p < passes; p++) {
		for (i = 0; i < opens_list.n; i++) {
			fd = open(opens_list.paths[i], O_RDONLY);
			if (fd < 0)
				die_errno(opens_list.paths[i]);
			close(fd);
		}
	}
	printf("%.3f %zu %llu\n", now_ms() - t0, passes * opens_list.n,
	       block_reads() - reads);
	return 0;
}

/* ---- disk ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * N reads of 4 KiB at random places of DEV (a block device or a file) with
 * O_DIRECT: what one cold block read costs, the unit of every cold number
 * here.
 */
static int cmd_disk(int n, const char *dev)
{
	static double ms[MAX_COUNT];
	unsigned long long size, blocks;
	struct stat st;
	void *buf;
	double t0;
	int fd, i;

	if (n < 1 || n > MAX_COUNT)
		die("-n", "count out of range");
	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0 || fstat(fd, &st))
		die_errno(dev);
	size = st.st_size;
	if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &size))
		die_errno(dev);
	blocks = size / 4096;
	if (!blocks)
		die(dev, "smaller than 4 KiB");
	if (posix_memalign(&buf, 4096, 4096))
		die(dev, "out of memory");
	srandom(1);
	for (i = 0; i < n; i++) {
		off_t off = (off_t)(random() % blocks) * 4096;

		t0 = now_ms();
		if (pread(fd, buf, 4096, off) != 4096)
			die_errno(dev);
		ms[i] = now_ms() - t0;
	}
	close(fd);
	free(buf);
	qsort(ms, n, sizeof(ms[0]), cmp_double);
	printf("%.3f %.3f\n", ms[n / 2], ms[n - 1]);
	return 0;
}

/* ---- mount ---- */

/* Attaches FILE read-only to a free loop device; its path goes to DEV. */
static void loop_attach(const char *file, char *dev, size_t len)
{
	struct loop_config cfg = {0};
	int ctl, n, fd, lfd;

	ctl = open("/dev/loop-control", O_RDWR);
	if (ctl < 0)
		die_errno("/dev/loop-control");
	n = ioctl(ctl, LOOP_CTL_GET_FREE);
	if (n < 0)
		die_errno("LOOP_CTL_GET_FREE");
	close(ctl);
	snprintf(dev, len, "/dev/loop%d", n);
	fd = open(file, O_RDONLY);
	if (fd < 0)
		die_errno(file);
	lfd = open(dev, O_RDWR);
	if (lfd < 0)
		die_errno(dev);
	cfg.fd = fd;
	cfg.info.lo_flags = LO_FLAGS_READ_ONLY | LO_FLAGS_AUTOCLEAR;
	if (ioctl(lfd, LOOP_CONFIGURE, &cfg))
		die_errno("LOOP_CONFIGURE");
	close(fd);
	/* the loop device stays until its last user, the mount, goes */
}

struct mount_req {
	const char *type, *src, *target, *opts;
	const char *warm_dir; /* walked after the drop: cached, not timed */
	bool loop, keep, cold;
	int count;
};

/* SRC with its first "%d" replaced by I (N different images). */
static void source_of(const char *src, int i, char *buf, size_t len)
{
	const char *p = strstr(src, "%d");

	if (!p)
		snprintf(buf, len, "%s", src);
	else
		snprintf(buf, len, "%.*s%d%s", (int)(p - src), src, i, p + 2);
}

/* One timed mount(2); adds the block reads it did to *READS. */
static double mount_one(const struct mount_req *r, const char *src,
			const char *target, double *loop_ms,
			unsigned long long *reads)
{
	unsigned long flags = MS_RDONLY;
	const char *type = r->type;
	unsigned long long reads0;
	char dev[64];
	double t0, ms;

	if (!strcmp(type, "bind")) {
		type = NULL;
		flags = MS_BIND;
	} else if (!strcmp(type, "overlay")) {
		flags = 0; /* writable when given an upperdir */
	}
	if (r->loop) {
		t0 = now_ms();
		loop_attach(src, dev, sizeof(dev));
		*loop_ms += now_ms() - t0;
		src = dev;
	}
	reads0 = block_reads();
	t0 = now_ms();
	if (mount(src, target, type, flags, r->opts))
		die_errno(target);
	ms = now_ms() - t0;
	*reads += block_reads() - reads0;
	return ms;
}

static int cmd_mount(const struct mount_req *r)
{
	static double ms[MAX_COUNT];
	char target[4096], src[4096];
	double total = 0, loop_ms = 0;
	unsigned long long reads = 0;
	int i;

	if (r->count < 1 || r->count > MAX_COUNT)
		die("-n", "count out of range");
	if (r->cold)
		drop_caches();
	if (r->warm_dir)
		walk_path(r->warm_dir);
	for (i = 0; i < r->count; i++) {
		if (r->count == 1) {
			snprintf(target, sizeof(target), "%s", r->target);
		} else {
			snprintf(target, sizeof(target), "%s/%d", r->target, i);
			if (mkdir(target, 0755) && errno != EEXIST)
				die_errno(target);
		}
		source_of(r->src, i, src, sizeof(src));
		ms[i] = mount_one(r, src, target, &loop_ms, &reads);
		total += ms[i];
	}
	for (i = 0; !r->keep && i < r->count; i++) {
		if (r->count > 1)
			snprintf(target, sizeof(target), "%s/%d", r->target, i);
		if (umount2(r->count > 1 ? target : r->target, 0))
			die_errno("umount");
	}
	qsort(ms, r->count, sizeof(ms[0]), cmp_double);
	printf("%.3f %.3f %.3f %.3f %llu\n", ms[r->count / 2], ms[r->count - 1],
	       total, loop_ms, reads);
	return 0;
}

/* ---- farm ---- */

/* Decodes a composefs-dump(5) field in place: \\, \xXY, \n \r \t; "-" is
 * the empty field. */
static char *unescape(char *s)
{
	char *in = s, *out = s;

	if (!strcmp(s, "-"))
		return s + 1;
	while (*in) {
		if (*in != '\\') {
			*out++ = *in++;
			continue;
		}
		in++;
		switch (*in) {
		case 'x': {
			char hex[3] = {in[1], in[2], 0};

			*out++ = (char)strtol(hex, NULL, 16);
			in += 3;
			break;
		}
		case 'n':
			*out++ = '\n', in++;
			break;
		case 't':
			*out++ = '\t', in++;
			break;
		case 'r':
			*out++ = '\r', in++;
			break;
		default:
			*out++ = *in++;
		}
	}
	*out = 0;
	return s;
}

struct dump_entry {
	char *path, *payload, *content;
	unsigned int mode;
	bool hardlink;
	uid_t uid;
	gid_t gid;
	dev_t rdev;
};

static bool parse_dump_line(char *line, struct dump_entry *e)
{
	char *f[11];
	char *save = NULL;
	int i;

	for (i = 0; i < 11; i++) {
		f[i] = strtok_r(i ? NULL : line, " \n", &save);
		if (!f[i])
			return false;
	}
	e->path = unescape(f[0]);
	e->hardlink = f[2][0] == '@';
	e->mode = strtoul(f[2] + e->hardlink, NULL, 8);
	e->uid = strtoul(f[4], NULL, 10);
	e->gid = strtoul(f[5], NULL, 10);
	e->rdev = strtoull(f[6], NULL, 10);
	e->payload = unescape(f[8]);
	e->content = unescape(f[9]);
	return true;
}

static void write_file(const char *path, const struct dump_entry *e)
{
	size_t len = strlen(e->content);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, e->mode & 07777);

	if (fd < 0 || write(fd, e->content, len) != (ssize_t)len)
		die_errno(path);
	if (fchown(fd, e->uid, e->gid))
		die_errno(path);
	close(fd);
}

static void farm_entry(const struct dump_entry *e, const char *store,
		       const char *dir)
{
	char path[8192], target[8192];

	snprintf(path, sizeof(path), "%s%s", dir, e->path);
	if (e->hardlink) {
		snprintf(target, sizeof(target), "%s%s", dir, e->payload);
		if (link(target, path))
			die_errno(path);
		return;
	}
	switch (e->mode & S_IFMT) {
	case S_IFDIR:
		if (strcmp(e->path, "/") && (mkdir(path, e->mode & 07777) ||
					     lchown(path, e->uid, e->gid)))
			die_errno(path);
		break;
	case S_IFLNK:
		if (symlink(e->payload, path))
			die_errno(path);
		break;
	case S_IFREG:
		if (!*e->payload) {
			write_file(path, e);
			break;
		}
		snprintf(target, sizeof(target), "%s/%s", store, e->payload);
		if (symlink(target, path))
			die_errno(path);
		break;
	default:
		if (mknod(path, e->mode, e->rdev))
			die_errno(path);
	}
}

static int cmd_farm(const char *dump, const char *store, const char *dir)
{
	struct dump_entry e;
	char *line = NULL;
	size_t cap = 0;
	long n = 0;
	double t0 = now_ms();
	FILE *in = fopen(dump, "r");

	if (!in)
		die_errno(dump);
	if (mkdir(dir, 0755) && errno != EEXIST)
		die_errno(dir);
	while (getline(&line, &cap, in) > 0) {
		if (!parse_dump_line(line, &e))
			die(dump, "malformed line");
		farm_entry(&e, store, dir);
		n++;
	}
	fclose(in);
	free(line);
	printf("%.1f %ld\n", now_ms() - t0, n);
	return 0;
}

/* ---- whiteouts ---- */

static long whiteouts_dir(int dirfd, const char *path)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;
	long n = 0;

	if (!d)
		die_errno(path);
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		int fd;

		if (!strcmp(name, ".wh..wh..opq")) {
			if (unlinkat(dirfd, name, 0) ||
			    fsetxattr(dirfd, "trusted.overlay.opaque", "y", 1,
				      0))
				die_errno(name);
			n++;
		} else if (!strncmp(name, ".wh.", 4)) {
			if (unlinkat(dirfd, name, 0) ||
			    mknodat(dirfd, name + 4, S_IFCHR | 0600,
				    makedev(0, 0)))
				die_errno(name);
			n++;
		} else if (de->d_type == DT_DIR && strcmp(name, ".") &&
			   strcmp(name, "..")) {
			fd = openat(dirfd, name,
				    O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
			if (fd < 0)
				die_errno(name);
			n += whiteouts_dir(fd, name);
		}
	}
	closedir(d);
	return n;
}

static int cmd_whiteouts(const char *dir)
{
	double t0 = now_ms();
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	long n;

	if (fd < 0)
		die_errno(dir);
	n = whiteouts_dir(fd, dir);
	printf("%.1f %ld\n", now_ms() - t0, n);
	return 0;
}

/* ---- main ---- */

static void usage(void)
{
	fprintf(stderr,
		"usage: %s walk [-c] [-L] DIR | run [-c] CMD... |\n"
		"       open [-c] FILE | opens [-c] [-n N] DIR |\n"
		"       mount [-c] [-l] [-k] [-n N] [-w DIR] TYPE SRC TARGET "
		"[OPTS] |\n"
		"       farm DUMP STORE DIR | whiteouts DIR |\n"
		"       disk [-n N] DEV | drop\n",
		prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct mount_req r = {.count = 1};
	bool follow = false;
	const char *cmd;
	int opt;

	if (argc < 2)
		usage();
	cmd = argv[1];
	argv++, argc--;
	while ((opt = getopt(argc, argv, "+cLlkn:w:")) != -1) {
		switch (opt) {
		case 'c':
			r.cold = true;
			break;
		case 'L':
			follow = true;
			break;
		case 'l':
			r.loop = true;
			break;
		case 'k':
			r.keep = true;
			break;
		case 'n':
			r.count = atoi(optarg);
			break;
		case 'w':
			r.warm_dir = optarg;
			break;
		default:
			usage();
		}
	}
	argv += optind, argc -= optind;
	if (mlockall(MCL_CURRENT))
		die_errno("mlockall");
	if (!strcmp(cmd, "walk") && argc == 1)
		return cmd_walk(r.cold, follow, argv[0]);
	if (!strcmp(cmd, "run") && argc >= 1)
		return cmd_run(r.cold, argv);
	if (!strcmp(cmd, "open") && argc == 1)
		return cmd_open(r.cold, argv[0]);
	if (!strcmp(cmd, "opens") && argc == 1)
		return cmd_opens(r.cold, r.count, argv[0]);
	if (!strcmp(cmd, "mount") && (argc == 3 || argc == 4)) {
		r.type = argv[0], r.src = argv[1], r.target = argv[2];
		r.opts = argc == 4 ? argv[3] : NULL;
		return cmd_mount(&r);
	}
	if (!strcmp(cmd, "farm") && argc == 3)
		return cmd_farm(argv[0], argv[1], argv[2]);
	if (!strcmp(cmd, "whiteouts") && argc == 1)
		return cmd_whiteouts(argv[0]);
	if (!strcmp(cmd, "disk") && argc == 1)
		return cmd_disk(r.count, argv[0]);
	if (!strcmp(cmd, "drop") && argc == 0) {
		drop_caches();
		return 0;
	}
	usage();
	return 2;
}
