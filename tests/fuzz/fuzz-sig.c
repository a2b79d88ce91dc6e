// SPDX-License-Identifier: MIT
/*
 * libFuzzer: arbitrary bytes as what a signature brings: a signed payload
 * (simple signing and cosign), the docker-reference it names (matched
 * under every signedIdentity type), a lookaside signature blob. Each must
 * fail with one printable line or give NUL-free strings; the repeated-key
 * scan must never accept what json-c cannot parse.
 */
#include <stdint.h>

#include "fuzz-common.h"
#include "oci/sig.h"

static const char *const idents[] = {
	NULL,
	"{\"type\":\"matchExact\"}",
	"{\"type\":\"matchRepository\"}",
	"{\"type\":\"exactReference\",\"dockerReference\":\"r.example/a:1\"}",
	"{\"type\":\"exactRepository\",\"dockerRepository\":\"r.example/a\"}",
	"{\"type\":\"remapIdentity\",\"prefix\":\"r.example\","
	"\"signedPrefix\":\"docker.io/library\"}",
};

static void one_line(void)
{
	fuzz_assert(!strchr(cfs_strerror(), '\n'));
}

static void payload(const uint8_t *data, size_t size, const char *type,
		    bool null_optional)
{
	struct oci_sig_payload p;

	if (oci_sig_payload_parse(&p, data, size, type, null_optional) < 0) {
		one_line();
		return;
	}
	fuzz_assert(p.digest && p.reference);
	for (size_t i = 0; i < sizeof(idents) / sizeof(idents[0]); i++) {
		struct json_object *id =
			idents[i] ? json_tokener_parse(idents[i]) : NULL;

		fuzz_assert(oci_identity_match(id, "r.example/a:1",
					       p.reference) >= 0);
		one_line();
		json_object_put(id);
	}
	oci_sig_payload_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct oci_sigs sigs = {0};
	char *ref = xstrndup((const char *)data, size);

	payload(data, size, OCI_SIG_SIMPLE_TYPE, false);
	payload(data, size, OCI_SIG_COSIGN_TYPE, true);
	if (oci_identity_match(NULL, "docker.io/library/a:1", ref) == 0)
		one_line();
	free(ref);
	if (oci_sig_from_blob(&sigs, data, size, "blob") < 0)
		one_line();
	oci_sigs_free(&sigs);
	return 0;
}
