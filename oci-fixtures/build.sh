#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds every OCI test fixture into OUTDIR (default oci-fixtures/out).
#   OUTDIR/layout/          one OCI layout, one tag per fixture
#   OUTDIR/fixtures.list    "TAG REFERENCE-TAG" per line (see README.md)
#   OUTDIR/archives/        oci-archive and docker-archive variants
#   OUTDIR/archives.list    "FILE REF REFERENCE-TAG" per line
#   OUTDIR/bad/, bad.list   broken inputs for errors.t
# Deterministic (fixed times, owners, order; gzip -n) and idempotent: the
# same host gives the same layout bytes. Needs python3, gzip, zstd, skopeo.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/out}
mkdir -p "$out"
out=$(cd "$out" && pwd)

for tool in python3 gzip zstd skopeo; do
	command -v "$tool" >/dev/null ||
		{ echo "build.sh: $tool is missing" >&2; exit 1; }
done

# Nothing to do when neither the scripts nor the one host file they copy
# (/bin/busybox) have changed: tests running in parallel may be reading
# the fixtures.
stamp=$({
	cat "$here"/*.py "$here/build.sh"
	sha256sum /bin/busybox
	skopeo --version
	zstd --version
} | sha256sum | cut -c1-64)
if [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$stamp" ]; then
	echo "fixtures in $out are up to date"
	exit 0
fi
rm -f "$out/.stamp"

python3 "$here/fixtures.py" "$out"

# Archive variants, made by skopeo from the layout.
archive() { # TAG KIND REF
	local tag=$1 kind=$2 ref=$3 file
	file=$out/archives/$tag.$kind.tar
	rm -f "$file"
	case $kind in
	oci) skopeo --insecure-policy copy -q "oci:$out/layout:$tag" \
		"oci-archive:$file:$ref" ;;
	docker) skopeo --insecure-policy copy -q "oci:$out/layout:$tag" \
		"docker-archive:$file:$ref" ;;
	esac
	# skopeo stamps archive members with the time of the copy.
	PYTHONPATH=$here python3 -c 'import ocilayout, sys; ocilayout.retar(sys.argv[1])' "$file"
	# skopeo writes docker-archive RepoTags fully qualified (docker.io/...).
	[ "$kind" = docker ] && ref=$(tar -xOf "$file" manifest.json |
		python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["RepoTags"][0])')
	echo "$file $ref $tag" >>"$out/archives.list"
}
rm -rf "$out/archives" "$out/archives.list"
mkdir -p "$out/archives"
archive realistic oci realistic
archive realistic docker cfs/realistic:latest
archive hardlinks docker cfs/hardlinks:v1
archive whiteout oci whiteout

python3 "$here/mkbad.py" "$out"
echo "$stamp" >"$out/.stamp"
echo "fixtures built in $out"
