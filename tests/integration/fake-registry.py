#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A registry (distribution API v2, read only) serving the images of an OCI
layout, with faults chosen by the first part of the repository name:

  good/NAME:TAG     as stored
  corrupt/NAME:TAG  layer blobs with one byte changed (same size)
  short/NAME:TAG    layer blobs 10 bytes short (and Content-Length says so)
  cut/NAME:TAG      the top layer's first request: full Content-Length, half
                    the bytes, then the connection is closed; later ones whole
  slow/NAME:TAG     layer blobs sent slowly (about 4 s each)
  mixed/NAME:TAG    the bottom layer slow, the top one corrupt, others whole:
                    one fetch fails while another is still under way
  auth/NAME:TAG     401 Unauthorized

TAG is a tag of the layout. Every request is logged to LOG, one line each.
Usage: fake-registry.py LAYOUT PORTFILE LOG (binds 127.0.0.1, a free port).
"""
import http.server
import json
import os
import sys
import time

LAYOUT, PORTFILE, LOG = sys.argv[1:4]
cut_done = set()


def tags():
    idx = json.load(open(os.path.join(LAYOUT, "index.json")))
    return {m["annotations"]["org.opencontainers.image.ref.name"]: m
            for m in idx["manifests"]}


def blob(digest):
    with open(os.path.join(LAYOUT, "blobs", *digest.split(":", 1)), "rb") as f:
        return f.read()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        with open(LOG, "a") as f:
            f.write("%s %s\n" % (getattr(self, "command", None),
                                  getattr(self, "path", None)))

    def send(self, code, body, ctype="application/octet-stream", extra=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def fail(self, code, err, msg):
        body = json.dumps({"errors": [{"code": err, "message": msg}]})
        extra = [("WWW-Authenticate", 'Basic realm="cfs-test"')] \
            if code == 401 else []
        self.send(code, body.encode(), "application/json", extra)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        parts = self.path.split("/")
        if self.path == "/v2/":
            return self.send(200, b"{}", "application/json")
        if len(parts) < 5 or parts[1] != "v2":
            return self.fail(404, "NAME_UNKNOWN", "no such repository")
        mode, kind, ref = parts[2], parts[-2], parts[-1]
        if mode == "auth":
            return self.fail(401, "UNAUTHORIZED", "authentication required")
        t = tags()
        if kind == "manifests":
            if ref not in t:
                return self.fail(404, "MANIFEST_UNKNOWN", "manifest unknown")
            m = t[ref]
            return self.send(200, blob(m["digest"]), m["mediaType"],
                             [("Docker-Content-Digest", m["digest"])])
        if kind != "blobs":
            return self.fail(404, "NAME_UNKNOWN", "no such endpoint")
        try:
            data = blob(ref)
        except OSError:
            return self.fail(404, "BLOB_UNKNOWN", "blob unknown")
        is_layer = not data.startswith(b"{")
        if not is_layer or mode == "good":
            return self.send(200, data)
        if mode == "short":
            return self.send(200, data[:-10])
        if mode == "mixed":
            if self.is_top(ref, t):
                mode = "corrupt"
            elif self.is_bottom(ref, t):
                mode = "slow"
            else:
                return self.send(200, data)
        if mode == "corrupt":
            i = len(data) // 2
            return self.send(200, data[:i] + bytes([data[i] ^ 1]) +
                             data[i + 1:])
        if mode == "slow":
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            step = max(1, len(data) // 40)
            for i in range(0, len(data), step):
                self.wfile.write(data[i:i + step])
                self.wfile.flush()
                time.sleep(0.1)
            return
        if mode == "cut" and ref not in cut_done and self.is_top(ref, t):
            cut_done.add(ref)
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[:len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        return self.send(200, data)

    @staticmethod
    def is_top(digest, t, at=-1):
        for m in t.values():
            layers = json.loads(blob(m["digest"])).get("layers", [])
            if layers and layers[at]["digest"] == digest:
                return True
        return False

    @staticmethod
    def is_bottom(digest, t):
        return Handler.is_top(digest, t, 0)


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".part", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(PORTFILE + ".part", PORTFILE)
srv.serve_forever()
