// SPDX-License-Identifier: MIT
/*
 * Progress on stderr, only when it is a terminal: one status line (layers
 * done and cached, bytes fetched and unpacked, the layers being fetched
 * with their bytes so far), and a line per finished layer saying whether
 * it was fetched (and how much) or found in the layer cache. Blobs of a
 * registry are "fetched", those of local files "read". Every line fits the
 * terminal's width, read at each refresh (a resized window): the layers
 * being fetched are shown while they fit, the rest is cut.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/param.h>
#include <time.h>
#include <unistd.h>

#include "convert.h"
#include "cfs/util.h"

#define MIB (1024.0 * 1024.0)
#define RUNNING_SHOWN 2
#define LINE_MAX_COLS 512
#define DEFAULT_COLS 80

static bool enabled;
static const struct cfs_oci_image *image;
static const char *verb; /* "fetched" or "read" */
static atomic_uint layers_done, layers_cached;
static atomic_uint_fast64_t bytes, blob_bytes;
static atomic_uint_fast64_t *layer_blob_bytes;
static atomic_bool *layer_running;
static struct timespec last;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

void progress_start(bool on, const struct cfs_oci_image *img)
{
	enabled = on;
	image = img;
	verb = strncmp(img->source, "docker://", 9) ? "read" : "fetched";
	layer_blob_bytes =
		xcalloc(img->n_layers + 1, sizeof(*layer_blob_bytes));
	layer_running = xcalloc(img->n_layers + 1, sizeof(*layer_running));
}

void progress_add_bytes(uint64_t n)
{
	atomic_fetch_add(&bytes, n);
}

void progress_blob_bytes(size_t i, uint64_t n)
{
	atomic_store(&layer_running[i], true);
	atomic_fetch_add(&layer_blob_bytes[i], n);
	atomic_fetch_add(&blob_bytes, n);
}

/* "1.5 MiB", "12 KiB", "300 B" into buf */
static const char *human(char *buf, size_t len, uint64_t n)
{
	if (n >= 1024 * 1024)
		snprintf(buf, len, "%.1f MiB", (double)n / MIB);
	else if (n >= 1024)
		snprintf(buf, len, "%.0f KiB", (double)n / 1024.0);
	else
		snprintf(buf, len, "%u B", (unsigned int)n);
	return buf;
}

static const char *short_digest(size_t i)
{
	const char *d = image->layers[i].digest;

	return d[0] ? d : "-";
}

/*
 * Columns a line may take: one less than the terminal's, so that the
 * cursor never wraps to a line that \r cannot go back over.
 */
static size_t line_cols(void)
{
	struct winsize ws;
	size_t cols = DEFAULT_COLS;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		cols = ws.ws_col;
	return MIN(cols, LINE_MAX_COLS) - 1;
}

/* The line cut to the terminal's width, after a carriage return. */
static void put_line(const char *line, const char *end)
{
	fprintf(stderr, "\r\033[K%.*s%s", (int)line_cols(), line, end);
}

/* "; layer N: GOT of SIZE" of the layers being fetched, while they fit */
static void add_running(char *line, size_t cols)
{
	unsigned int shown = 0;
	size_t len = strlen(line);

	for (size_t i = 0; i < image->n_layers && shown < RUNNING_SHOWN; i++) {
		char got[32], size[32], part[96];
		int n;

		if (!atomic_load(&layer_running[i]))
			continue;
		n = snprintf(part, sizeof(part), "; layer %zu: %s of %s", i + 1,
			     human(got, sizeof(got),
				   atomic_load(&layer_blob_bytes[i])),
			     human(size, sizeof(size), image->layers[i].size));
		if (len + (size_t)n > cols)
			break;
		memcpy(line + len, part, (size_t)n + 1);
		len += (size_t)n;
		shown++;
	}
}

static void status_line(void)
{
	char line[LINE_MAX_COLS + 96];

	snprintf(line, LINE_MAX_COLS,
		 "layers %u/%zu (%u cached), %.1f MiB %s, %.1f MiB unpacked",
		 atomic_load(&layers_done), image->n_layers,
		 atomic_load(&layers_cached),
		 (double)atomic_load(&blob_bytes) / MIB, verb,
		 (double)atomic_load(&bytes) / MIB);
	add_running(line, line_cols());
	put_line(line, "");
	fflush(stderr);
}

void progress_layer_done(size_t i, bool cached)
{
	char got[32], line[LINE_MAX_COLS];

	atomic_fetch_add(&layers_done, 1);
	if (cached)
		atomic_fetch_add(&layers_cached, 1);
	atomic_store(&layer_running[i], false);
	if (!enabled)
		return;
	pthread_mutex_lock(&out_lock);
	if (cached)
		snprintf(line, sizeof(line), "layer %zu/%zu %.19s: cached",
			 i + 1, image->n_layers, short_digest(i));
	else
		snprintf(line, sizeof(line), "layer %zu/%zu %.19s: %s %s",
			 i + 1, image->n_layers, short_digest(i),
			 human(got, sizeof(got),
			       atomic_load(&layer_blob_bytes[i])),
			 verb);
	put_line(line, "\n");
	pthread_mutex_unlock(&out_lock);
}

void progress_refresh(void)
{
	struct timespec now;

	if (!enabled)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec - last.tv_sec < 1 &&
	    (now.tv_sec - last.tv_sec) * 1000000000L + now.tv_nsec -
			    last.tv_nsec <
		    200000000L)
		return;
	last = now;
	pthread_mutex_lock(&out_lock);
	status_line();
	pthread_mutex_unlock(&out_lock);
}

void progress_end(void)
{
	if (enabled)
		fputs("\r\033[K", stderr);
	free(layer_blob_bytes);
	free(layer_running);
	layer_blob_bytes = NULL;
	layer_running = NULL;
}
