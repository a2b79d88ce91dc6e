/* SPDX-License-Identifier: MIT */
/*
 * A client of `skopeo experimental-image-proxy` (protocol 0.2, skopeo's
 * cmd/skopeo/proxy.go): JSON requests over a SOCK_SEQPACKET socket, payload
 * (manifest, blobs) through a pipe whose read end comes with the reply.
 */
#ifndef CFS_OCI_PROXY_H
#define CFS_OCI_PROXY_H

#include <stdint.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "cfs/oci.h"
#include "cfs/registry.h"

struct oci_proxy;
struct oci_proxy_pipe;

/*
 * Starts skopeo and opens one image ("docker://...", "containers-storage:..."
 * or any transport skopeo knows). platform: NULL, or "os/arch[/variant]"
 * passed to skopeo as --override-os/-arch/-variant, so that a manifest list
 * resolves to it. reg: NULL, or registry options (--tls-verify, --creds,
 * --authfile, --cert-dir) passed to skopeo, with strings that outlive p.
 */
int oci_proxy_open(struct oci_proxy **out, const char *name,
		   const char *platform, const struct cfs_registry_opts *reg);
void oci_proxy_close(struct oci_proxy *p);

/*
 * The image's manifest (as OCI) into a malloc'ed buffer of at most limit;
 * digest, if not NULL, gets the digest skopeo reports: that of the
 * manifest it read (before any conversion to OCI), for a manifest list
 * the chosen instance's.
 */
int oci_proxy_manifest(struct oci_proxy *p, size_t limit, uint8_t **data,
		       size_t *len, char digest[CFS_OCI_DIGEST_MAX + 1]);
/*
 * The config as skopeo converts it to OCI (GetFullConfig): for a docker
 * schema2 manifest, the one its OCI conversion names, which no registry
 * holds as a blob (into a malloc'ed buffer of at most limit).
 */
int oci_proxy_full_config(struct oci_proxy *p, size_t limit, uint8_t **data,
			  size_t *len);
/*
 * Starts streaming a blob. Blobs of one proxy are fetched one at a time:
 * this waits until any other open pipe of p is closed. The stream ends after
 * the proxy has checked the blob; a proxy-side error fails the last read.
 */
int oci_proxy_blob(struct oci_proxy *p, const char *digest, uint64_t size,
		   struct oci_proxy_pipe **out);
ssize_t oci_proxy_pipe_read(struct oci_proxy_pipe *pp, void *buf, size_t n);
void oci_proxy_pipe_close(struct oci_proxy_pipe *pp);

#endif
