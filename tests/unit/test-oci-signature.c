// SPDX-License-Identifier: MIT
/*
 * The parts of signature checking that take hostile input (oci/sig.h):
 * the signed payload's strict parser (repeated keys, escaped repeats,
 * unknown and missing fields, wrong types), docker references and the
 * signedIdentity rules, the signature blob formats, base64, sigstore's
 * public-key verification, and registries.d scopes.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "cfs/util.h"
#include "oci/sig.h"
#include "tap.h"

#define D64                                                                    \
	"sha256:"                                                              \
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static const char *simple_fmt =
	"{\"critical\":{\"type\":\"atomic container signature\","
	"\"image\":{\"docker-manifest-digest\":\"%s\"},"
	"\"identity\":{\"docker-reference\":\"%s\"}},"
	"\"optional\":{\"creator\":\"x\",\"timestamp\":1700000000}}";

static int parse(const char *json, const char *type, bool null_opt,
		 struct oci_sig_payload *p)
{
	return oci_sig_payload_parse(p, (const uint8_t *)json, strlen(json),
				     type, null_opt);
}

static bool refused(const char *json)
{
	struct oci_sig_payload p;
	int r = parse(json, OCI_SIG_SIMPLE_TYPE, false, &p);

	if (r == 0)
		oci_sig_payload_free(&p);
	return r < 0;
}

static void test_payload(void)
{
	struct oci_sig_payload p;
	char *good = xasprintf(simple_fmt, D64, "r.example/a:1");

	ok(parse(good, OCI_SIG_SIMPLE_TYPE, false, &p) == 0 &&
		   !strcmp(p.digest, D64) &&
		   !strcmp(p.reference, "r.example/a:1"),
	   "payload: a well-formed simple signing payload gives digest and "
	   "reference");
	oci_sig_payload_free(&p);
	ok(parse(good, OCI_SIG_COSIGN_TYPE, true, &p) < 0,
	   "payload: a simple signing type is refused where cosign's is "
	   "wanted");
	free(good);

	ok(parse("{\"critical\":{\"type\":\"cosign container image "
		 "signature\",\"image\":{\"docker-manifest-digest\":\"" D64
		 "\"},\"identity\":{\"docker-reference\":\"r.example/"
		 "a:1\"}},\"optional\":null}",
		 OCI_SIG_COSIGN_TYPE, true, &p) == 0,
	   "payload: cosign's with optional null is accepted");
	oci_sig_payload_free(&p);
	ok(refused("{\"critical\":{\"type\":\"atomic container signature\","
		   "\"image\":{\"docker-manifest-digest\":\"" D64 "\"},"
		   "\"identity\":{\"docker-reference\":\"r.example/a:1\"}},"
		   "\"optional\":null}"),
	   "payload: simple signing's optional must be an object");

	ok(refused("{\"critical\":{\"type\":\"atomic container signature\","
		   "\"image\":{\"docker-manifest-digest\":\"" D64 "\","
		   "\"docker-manifest-digest\":\"sha256:1111111111111111111111"
		   "111111111111111111111111111111111111111111\"},"
		   "\"identity\":{\"docker-reference\":\"r.example/a:1\"}},"
		   "\"optional\":{}}"),
	   "payload: the manifest digest given twice is refused");
	ok(refused("{\"critical\":{\"type\":\"atomic container signature\","
		   "\"image\":{\"docker-manifest-digest\":\"" D64 "\","
		   "\"docker-manifest-dige\\u0073t\":\"sha256:1\"},"
		   "\"identity\":{\"docker-reference\":\"r.example/a:1\"}},"
		   "\"optional\":{}}"),
	   "payload: a repeat spelled with an escape is refused too");
	ok(refused("{\"critical\":{\"type\":\"atomic container signature\","
		   "\"image\":{\"docker-manifest-digest\":\"" D64 "\"},"
		   "\"identity\":{\"docker-reference\":\"r.example/a:1\"}},"
		   "\"optional\":{},\"critical\":{}}"),
	   "payload: critical given twice is refused");
	ok(refused("{\"critical\":{\"type\":\"atomic container signature\","
		   "\"image\":{\"docker-manifest-digest\":\"" D64 "\"},"
		   "\"identity\":{\"docker-reference\":\"r.example/a:1\"},"
		   "\"extra\":1},\"optional\":{}}"),
	   "payload: an unknown field in critical is refused");
	ok(refused("{\"critical\":{\"type\":\"atomic container signature\","
		   "\"image\":{\"docker-manifest-digest\":\"" D64 "\"}},"
		   "\"optional\":{}}"),
	   "payload: critical without identity is refused");
	ok(refused("{\"critical\":{\"type\":\"atomic container signature\","
		   "\"image\":{\"docker-manifest-digest\":\"" D64 "\"},"
		   "\"identity\":{\"docker-reference\":\"r.example/a:1\"}}}"),
	   "payload: no optional is refused");
	ok(refused("{\"critical\":{\"type\":\"atomic container signature\","
		   "\"image\":{\"docker-manifest-digest\":7},"
		   "\"identity\":{\"docker-reference\":\"r.example/a:1\"}},"
		   "\"optional\":{}}"),
	   "payload: a digest that is not a string is refused");
	ok(refused("{\"critical\":{\"type\":\"atomic container signature\","
		   "\"image\":{\"docker-manifest-digest\":\"" D64 "\"},"
		   "\"identity\":{\"docker-reference\":\"r.example/a:1\\u0000"
		   "evil\"}},\"optional\":{}}"),
	   "payload: a reference with a NUL in it is refused");
	ok(refused("{\"critical\":{\"type\":\"atomic container signature\","
		   "\"image\":{\"docker-manifest-digest\":\"" D64 "\"},"
		   "\"identity\":{\"docker-reference\":\"r.example/a:1\"}},"
		   "\"optional\":{\"timestamp\":1.5}}"),
	   "payload: a timestamp that is not an integer is refused");
	ok(refused("{\"critical\":{\"type\":\"atomic container signature\","
		   "\"image\":{\"docker-manifest-digest\":\"" D64 "\"},"
		   "\"identity\":{\"docker-reference\":\"r.example/a:1\"}},"
		   "\"optional\":{\"timestamp\":1e300}}"),
	   "payload: a timestamp out of any integer's range is refused");
	ok(refused("{\"critical\":{\"type\":\"atomic container signature\","
		   "\"image\":{\"docker-manifest-digest\":\"" D64 "\"},"
		   "\"identity\":{\"docker-reference\":\"r.example/a:1\"}},"
		   "\"optional\":{\"creator\":5}}"),
	   "payload: a creator that is not a string is refused");
	ok(refused("{\"critical\":{\"type\":\"atomic container signature\","
		   "\"image\":{\"docker-manifest-digest\":\"" D64 "\"},"
		   "\"identity\":{\"docker-reference\":\"r.example/a:1\"}},"
		   "\"optional\":{}} {}"),
	   "payload: trailing data is refused");
	ok(refused("[1,2]") && refused("") && refused("{") &&
		   refused("\"atomic container signature\""),
	   "payload: not an object, empty, cut short: refused");
	ok(oci_json_unique_keys((const uint8_t *)"[{\"a\":1},{\"a\":2}]", 17) ==
			   0 &&
		   oci_json_unique_keys(
			   (const uint8_t *)"{\"a\":[\"a\",\"a\"],\"b\":1}",
			   21) == 0,
	   "unique keys: the same key in two objects, or a value equal to a "
	   "key, is fine");
}

static int id(const char *ident_json, const char *img, const char *sig)
{
	struct json_object *ident =
		ident_json ? json_tokener_parse(ident_json) : NULL;
	int r = oci_identity_match(ident, img, sig);

	json_object_put(ident);
	return r;
}

#define REMAP(from, to)                                                        \
	"{\"type\":\"remapIdentity\",\"prefix\":\"" from                       \
	"\",\"signedPrefix\":\"" to "\"}"

static void test_remap(void)
{
	const char *mirror = "mirror.example:5000/ns/busybox:1";
	const char *remap =
		REMAP("mirror.example:5000/ns", "docker.io/library");

	ok(id(remap, mirror, "docker.io/library/busybox:1") == 1 &&
		   id(remap, mirror, "busybox:1") == 1,
	   "remapIdentity: the mirror's image is matched as the signed name");
	ok(id(remap, mirror, mirror) == 0 &&
		   id(remap, mirror, "docker.io/library/busybox:2") == 0,
	   "remapIdentity: then not as its own name, nor another tag");
	ok(id(remap, "mirror.example:5000/nsx/busybox:1",
	      "docker.io/library/busybox:1") == 0 &&
		   id(remap, "mirror.example:5000/nsx/busybox:1",
		      "mirror.example:5000/nsx/busybox:1") == 1,
	   "remapIdentity: a prefix only at a / boundary; else as "
	   "matchRepoDigestOrExact");
	ok(id(REMAP("mirror.example:5000/ns/busybox", "docker.io/library/bb"),
	      mirror, "docker.io/library/bb:1") == 1,
	   "remapIdentity: a prefix that is the whole repository");
	ok(id(REMAP("mirror.example", "docker.io"), "mirror.example/busybox:1",
	      "docker.io/library/busybox:1") == 0 &&
		   id(REMAP("mirror.example", "docker.io"),
		      "mirror.example/busybox:1", "docker.io/busybox:1") == 0,
	   "remapIdentity: a rewritten name that is not canonical matches "
	   "nothing");
	ok(id(REMAP("", "docker.io"), mirror, "busybox:1") == -1 &&
		   id(REMAP("r.example/ns:tag", "docker.io"), mirror,
		      "busybox:1") == -1 &&
		   id(REMAP("r.example/ns@" D64, "docker.io"), mirror,
		      "busybox:1") == -1 &&
		   id(REMAP("-r.example", "docker.io"), mirror, "busybox:1") ==
			   -1 &&
		   id(REMAP("r.example:", "docker.io"), mirror, "busybox:1") ==
			   -1 &&
		   id(REMAP("r.example", "docker io"), mirror, "busybox:1") ==
			   -1 &&
		   id("{\"type\":\"remapIdentity\",\"prefix\":\"r.example\"}",
		      mirror, "busybox:1") == -1,
	   "remapIdentity: empty, tagged, digested, bad domains, a missing "
	   "signedPrefix: malformed");
}

static void test_identity(void)
{
	const char *tagged = "docker.io/library/busybox:latest";
	const char *digested = "r.example:5000/ns/app@" D64;

	ok(id(NULL, tagged, "busybox:latest") == 1 &&
		   id(NULL, tagged, "index.docker.io/library/busybox:latest") ==
			   1,
	   "default: a short or index.docker.io name normalises to the "
	   "image's");
	ok(id(NULL, tagged, "busybox") == 0,
	   "default: a signature with neither tag nor digest is refused");
	ok(id(NULL, tagged, "busybox:other") == 0,
	   "default: another tag is refused");
	ok(id(NULL, tagged, "docker.io/library/busybox@" D64) == 0,
	   "default: a digest does not match a tagged image");
	ok(id(NULL, digested, "r.example:5000/ns/app:v1") == 1,
	   "default: a digested image accepts any tag of its repository");
	ok(id(NULL, digested, "r.example:5000/ns/app2:v1") == 0 &&
		   id(NULL, digested, "r.example:5000/ns:v1") == 0 &&
		   id(NULL, digested, "r.example/ns/app:v1") == 0,
	   "default: a digested image refuses other repositories, parents and "
	   "ports");
	ok(id("{\"type\":\"matchExact\"}", digested,
	      "r.example:5000/ns/app@" D64) == 1 &&
		   id("{\"type\":\"matchExact\"}", digested,
		      "r.example:5000/ns/app:v1") == 0,
	   "matchExact: the same digest only");
	ok(id("{\"type\":\"matchRepository\"}", tagged, "busybox:1.36") == 1 &&
		   id("{\"type\":\"matchRepository\"}", tagged,
		      "busyboxy:latest") == 0 &&
		   id("{\"type\":\"matchRepository\"}", tagged,
		      "library/busybox/x:latest") == 0,
	   "matchRepository: any tag of the repository, never a prefix or a "
	   "child");
	ok(id("{\"type\":\"matchRepository\"}", NULL, "busybox:1") == 0,
	   "an image without a docker reference matches no image-based rule");
	ok(id("{\"type\":\"exactReference\",\"dockerReference\":\"r.example/"
	      "a:1\"}",
	      NULL, "r.example/a:1") == 1 &&
		   id("{\"type\":\"exactReference\",\"dockerReference\":"
		      "\"r.example/a:1\"}",
		      tagged, "r.example/a:2") == 0,
	   "exactReference: that reference, whatever the image");
	ok(id("{\"type\":\"exactRepository\",\"dockerRepository\":\"r."
	      "example/a\"}",
	      tagged, "r.example/a:9") == 1 &&
		   id("{\"type\":\"exactRepository\",\"dockerRepository\":"
		      "\"r.example/a\"}",
		      tagged, "r.example/ab:9") == 0,
	   "exactRepository: that repository only");
	test_remap();
	ok(id("{\"type\":\"matchAnything\"}", tagged, "busybox:latest") == -1 &&
		   id("{\"type\":\"matchRepository\",\"x\":1}", tagged,
		      "busybox:latest") == -1 &&
		   id("{\"type\":\"exactReference\"}", tagged,
		      "busybox:latest") == -1 &&
		   id("{\"type\":\"exactReference\",\"dockerReference\":"
		      "\"r.example/a\"}",
		      tagged, "r.example/a:1") == -1 &&
		   id("[]", tagged, "busybox:latest") == -1,
	   "unknown types, extra or missing fields, a name-only "
	   "exactReference: malformed");
}

static void test_hostile_references(void)
{
	static const char *const bad[] = {
		"Docker.io/library/busybox:latest",
		"docker.io/library/BusyBox:latest",
		"busybox:latest\n",
		"../busybox:latest",
		"docker.io//busybox:latest",
		"busybox:",
		"",
		":latest",
		"busybox:latest@sha256:1234",
		"busybox@md5:0123456789abcdef0123456789abcdef",
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd"
		"ef",
		"busybox:l\xc3\xa4test",
		"busybox:" /* a tag of 129 characters */
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaa",
	};
	char *long_name = xmalloc(300);
	size_t n_ok = 0, n = sizeof(bad) / sizeof(bad[0]);
	struct oci_dref r;

	for (size_t i = 0; i < n; i++)
		n_ok += id("{\"type\":\"matchRepository\"}",
			   "docker.io/library/busybox:latest", bad[i]) == 0;
	ok(n_ok == n, "hostile docker-references match nothing (%zu of %zu)",
	   n_ok, n);
	memset(long_name, 'a', 299);
	long_name[299] = '\0';
	long_name[5] = '/';
	ok(oci_dref_parse(&r, long_name) < 0,
	   "a reference over 255 bytes is refused");
	free(long_name);
	ok(oci_dref_parse(&r, "localhost/a:1@" D64) == 0 &&
		   !strcmp(r.name, "localhost/a") && !strcmp(r.tag, "1") &&
		   !strcmp(r.digest, D64),
	   "localhost is a registry; tag and digest are kept");
	oci_dref_free(&r);
}

static void test_blobs(void)
{
	static const uint8_t pgp[] = {0x89, 1, 2, 3};
	static const char sj[] =
		"\0sigstore-json\n{\"mimeType\":\"m\",\"payload\":\"aGk=\","
		"\"annotations\":{\"dev.cosignproject.cosign/"
		"signature\":\"c2ln\"}}";
	static const char ss[] = "\0simple-signing\n\x89xyz";
	struct oci_sigs s = {0};

	ok(oci_sig_from_blob(&s, pgp, sizeof(pgp), "a") == 0 &&
		   oci_sig_from_blob(&s, (const uint8_t *)ss, sizeof(ss) - 1,
				     "b") == 0 &&
		   oci_sig_from_blob(&s, (const uint8_t *)sj, sizeof(sj) - 1,
				     "c") == 0 &&
		   s.n == 3 && s.v[0].kind == OCI_SIG_SIMPLE &&
		   s.v[1].kind == OCI_SIG_SIMPLE && s.v[1].len == 4 &&
		   s.v[2].kind == OCI_SIG_SIGSTORE && s.v[2].len == 2 &&
		   !memcmp(s.v[2].data, "hi", 2) && !strcmp(s.v[2].mime, "m") &&
		   !strcmp(s.v[2].b64sig, "c2ln"),
	   "blobs: a GPG packet, simple-signing and sigstore-json are read");
	ok(oci_sig_from_blob(&s, (const uint8_t *)"", 0, "d") < 0 &&
		   oci_sig_from_blob(&s, (const uint8_t *)"{}", 2, "e") < 0 &&
		   oci_sig_from_blob(&s, (const uint8_t *)"\0x509\nabc", 9,
				     "f") < 0 &&
		   oci_sig_from_blob(&s, (const uint8_t *)"\0simple", 7, "g") <
			   0 &&
		   oci_sig_from_blob(
			   &s, (const uint8_t *)"\0sigstore-json\n{\"a\":1}",
			   22, "h") < 0 &&
		   s.n == 3,
	   "blobs: empty, text, unknown formats, no newline, a sigstore "
	   "chunk without its fields: refused");
	oci_sigs_free(&s);
}

static void test_base64(void)
{
	uint8_t *b;
	size_t n;

	ok(oci_base64_decode("aGVsbG8=", &b, &n) == 0 && n == 5 &&
		   !memcmp(b, "hello", 5),
	   "base64: padded input decodes");
	free(b);
	ok(oci_base64_decode("", &b, &n) == 0 && n == 0, "base64: empty");
	free(b);
	ok(oci_base64_decode("aGVsbG8", &b, &n) < 0 &&
		   oci_base64_decode("aG=sbG8=", &b, &n) < 0 &&
		   oci_base64_decode("aGVsbG8===", &b, &n) < 0 &&
		   oci_base64_decode("aGVs\nbG8=", &b, &n) < 0 &&
		   oci_base64_decode("a=Vs", &b, &n) < 0,
	   "base64: no padding, '=' inside, too much padding, newlines: "
	   "refused");
}

static char *pem_of(EVP_PKEY *k)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *data, *out;
	long n;

	PEM_write_bio_PUBKEY(bio, k);
	n = BIO_get_mem_data(bio, &data);
	out = xstrndup(data, (size_t)n);
	BIO_free(bio);
	return out;
}

static char *sign_b64(EVP_PKEY *k, const char *msg)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char sig[1024];
	size_t n = sizeof(sig);
	char *out = xmalloc(4 * sizeof(sig) / 3 + 4);

	EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, k);
	EVP_DigestSign(ctx, sig, &n, (const unsigned char *)msg, strlen(msg));
	EVP_MD_CTX_free(ctx);
	EVP_EncodeBlock((unsigned char *)out, sig, (int)n);
	return out;
}

static bool verifies(const char *pem, const char *msg, const char *b64)
{
	return oci_sigstore_verify((const uint8_t *)pem, strlen(pem),
				   (const uint8_t *)msg, strlen(msg), b64) == 0;
}

static void test_sigstore(void)
{
	EVP_PKEY *ec = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	EVP_PKEY *ec2 = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	EVP_PKEY *rsa = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
	EVP_PKEY *ed = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	char *pem = pem_of(ec), *pem2 = pem_of(ec2), *rpem = pem_of(rsa);
	char *edpem = pem_of(ed);
	char *sig = sign_b64(ec, "payload"), *rsig = sign_b64(rsa, "payload");

	ok(verifies(pem, "payload", sig), "sigstore: ECDSA P-256 verifies");
	ok(!verifies(pem, "payloaD", sig), "sigstore: another payload fails");
	ok(!verifies(pem2, "payload", sig), "sigstore: another key fails");
	ok(verifies(rpem, "payload", rsig) && !verifies(rpem, "x", rsig),
	   "sigstore: RSA PKCS#1 v1.5 verifies, and only its payload");
	ok(!verifies(edpem, "payload", sig), "sigstore: Ed25519 is refused");
	ok(!verifies("not a key", "payload", sig) &&
		   !verifies(pem, "payload", "!!!!") &&
		   !verifies(pem, "payload", ""),
	   "sigstore: no PEM key, bad base64, an empty signature: refused");
	free(pem);
	free(pem2);
	free(rpem);
	free(edpem);
	free(sig);
	free(rsig);
	EVP_PKEY_free(ec);
	EVP_PKEY_free(ec2);
	EVP_PKEY_free(rsa);
	EVP_PKEY_free(ed);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(path);
}

static bool config_is(const char *dir, const char *ref, const char *url,
		      bool att)
{
	struct oci_sig_config c;
	bool same;

	if (oci_registries_d(&c, dir, ref) < 0)
		return false;
	same = !strcmp(c.lookaside, url) && c.attachments == att;
	if (!same)
		fprintf(stderr, "# %s: got %s %d\n", ref, c.lookaside,
			c.attachments);
	oci_sig_config_free(&c);
	return same;
}

static void test_registries_d(void)
{
	char dir[] = "/tmp/test-oci-signature.XXXXXX", *builtin;
	struct oci_sig_config c;

	if (!mkdtemp(dir)) {
		ok(0, "temp directory");
		return;
	}
	write_file(dir, "a.yaml",
		   "default-docker:\n  lookaside: file:///def\n"
		   "  use-sigstore-attachments: true\n"
		   "docker:\n"
		   "  r.example/ns:\n    lookaside: file:///ns\n"
		   "  r.example/ns/app:v1:\n    sigstore: file:///tag\n"
		   "    use-sigstore-attachments: false\n");
	write_file(dir, "b.yaml",
		   "docker:\n  \"*.example.org\":\n"
		   "    lookaside: file:///wild\n");
	write_file(dir, "ignored.yml", "default-docker: [broken\n");
	ok(config_is(dir, "r.example/ns/app:v1", "file:///tag", false),
	   "registries.d: the image's own identity first, the older sigstore "
	   "key too");
	ok(config_is(dir, "r.example/ns/app:v2", "file:///ns", true),
	   "registries.d: then its namespace; attachments from default-docker");
	ok(config_is(dir, "reg.example.org:5000/x:1", "file:///wild", true),
	   "registries.d: then *.domain, the port left out");
	ok(config_is(dir, "other.example/x:1", "file:///def", true),
	   "registries.d: else default-docker");
	write_file(dir, "c.yaml",
		   "docker:\n  r.example/ns:\n"
		   "    lookaside: file:///again\n");
	ok(oci_registries_d(&c, dir, "r.example/ns/app:v1") < 0,
	   "registries.d: a namespace defined in two files is an error");
	write_file(dir, "c.yaml", "docker: [\n");
	ok(oci_registries_d(&c, dir, "r.example/ns/app:v1") < 0,
	   "registries.d: bad YAML is an error");
	write_file(dir, "c.yaml",
		   "docker:\n  q.example:\n"
		   "    use-sigstore-attachments: maybe\n");
	ok(oci_registries_d(&c, dir, "q.example/a:1") < 0,
	   "registries.d: an attachments flag that is not a boolean is an "
	   "error");
	for (const char *f = "a.yaml\0b.yaml\0c.yaml\0ignored.yml\0"; *f;
	     f += strlen(f) + 1) {
		char *p = xasprintf("%s/%s", dir, f);

		unlink(p);
		free(p);
	}
	builtin = geteuid() == 0 || !getenv("HOME")
			  ? xstrdup("file:///var/lib/containers/sigstore")
			  : xasprintf("file://%s/.local/share/containers/"
				      "sigstore",
				      getenv("HOME"));
	ok(config_is(dir, "q.example/a:1", builtin, false),
	   "registries.d: nothing configured: c/image's built-in lookaside");
	free(builtin);
	rmdir(dir);
}

int main(void)
{
	test_payload();
	test_identity();
	test_hostile_references();
	test_blobs();
	test_base64();
	test_sigstore();
	test_registries_d();
	return tap_done();
}
