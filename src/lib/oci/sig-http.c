// SPDX-License-Identifier: MIT
/*
 * Signatures from an http(s) lookaside, read as c/image's getOneSignature
 * reads them: GET, 404 means there is no such signature, 200 gives it (at
 * most OCI_SIG_MAX bytes), anything else is an error. libcurl does HTTP:
 * only http and https, redirects followed (at most 10, as Go's client),
 * certificates checked against the system's CAs.
 */
#include <pthread.h>
#include <string.h>

#include <curl/curl.h>

#include "internal.h"
#include "sig.h"
#include "cfs/util.h"

struct body {
	struct cfs_buf b;
	size_t limit;
	bool too_big;
};

static size_t take(char *p, size_t size, size_t n, void *arg)
{
	struct body *body = arg;
	size_t bytes = size * n; /* size is 1, says libcurl */

	if (bytes > body->limit - body->b.len) {
		body->too_big = true;
		return 0; /* makes libcurl stop with CURLE_WRITE_ERROR */
	}
	cfs_buf_append(&body->b, p, bytes);
	return bytes;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

static CURL *new_handle(const char *url, struct body *body)
{
	CURL *c = curl_easy_init();

	if (!c)
		return NULL;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "cfs");
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, take);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
	return c;
}

int oci_http_get(const char *url, size_t limit, uint8_t **data, size_t *len)
{
	struct body body = {.limit = limit};
	char shown[CFS_SHOWN_MAX];
	long status = 0;
	CURLcode e;
	CURL *c;

	pthread_once(&curl_once, curl_init);
	c = new_handle(url, &body);
	if (!c) {
		cfs_error("%s: cannot start libcurl",
			  cfs_printable(shown, sizeof(shown), url));
		return -1;
	}
	e = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	cfs_printable(shown, sizeof(shown), url);
	if (e == CURLE_OK && status == 404) {
		cfs_buf_free(&body.b);
		return 1;
	}
	if (body.too_big)
		cfs_error("%s: larger than %zu bytes", shown, limit);
	else if (e != CURLE_OK)
		cfs_error("%s: %s", shown, curl_easy_strerror(e));
	else if (status != 200)
		cfs_error("%s: HTTP status %ld", shown, status);
	if (e != CURLE_OK || status != 200) {
		cfs_buf_free(&body.b);
		return -1;
	}
	*data = body.b.data ? body.b.data : xmalloc(1);
	*len = body.b.len;
	return 0;
}
