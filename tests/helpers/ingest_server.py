#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A stand-in for Grafana Pyroscope's and Parca's ingest endpoints, for
tests/cli/profile.sh: it checks each request against the documented API
and keeps the profile it carries, so that the test decodes it with
go tool pprof. It is not a Pyroscope or Parca server.

  ingest_server.py PORTFILE OUTDIR [--fail N | --hang]

Listens on 127.0.0.1 on a free port (written to PORTFILE). Each request is
one line of OUTDIR/requests.log: "OK KIND N" or "BAD KIND why"; the
profile goes to OUTDIR/KIND-N.pb.gz. With --fail N the first N requests
get HTTP 500 (logged "FAIL KIND"); with --hang no request is ever answered
(logged "HANG KIND"): the client's timeout is what ends it.

Pyroscope (POST /ingest, documented in "Pyroscope server HTTP API"): the
query has name (APP{k=v,...}), from and until (UNIX seconds, from <=
until), format=pprof, sampleRate (Hz); the body is the pprof file.
Parca (POST /profiles/writeraw, ProfileStoreService.WriteRaw through its
gRPC gateway): a JSON WriteRawRequest, Content-Type application/json,
series[].labels.labels[] of name/value with a __name__, and
series[].samples[].rawProfile the pprof file in base64.
"""
import base64
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

portfile, outdir = sys.argv[1], sys.argv[2]
fail_left = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--fail" else 0
hang = len(sys.argv) > 3 and sys.argv[3] == "--hang"
lock = threading.Lock()
counts = {}


def log(line):
    with lock:
        with open(os.path.join(outdir, "requests.log"), "a") as f:
            f.write(line + "\n")


def keep(kind, data):
    with lock:
        counts[kind] = counts.get(kind, 0) + 1
        n = counts[kind]
    with open(os.path.join(outdir, "%s-%d.pb.gz" % (kind, n)), "wb") as f:
        f.write(data)
    return n


def check_pyroscope(q, headers, body):
    for k in ("name", "from", "until", "format", "sampleRate"):
        if len(q.get(k, [])) != 1:
            return "query parameter %s missing or repeated" % k
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+\{([A-Za-z0-9_.]+=[^,{}=]*(,[A-Za-z0-9_.]+=[^,{}=]*)*)?\}", q["name"][0]):
        return "name %r is not APP{label=value,...}" % q["name"][0]
    if not (q["from"][0].isdigit() and q["until"][0].isdigit() and int(q["from"][0]) <= int(q["until"][0])):
        return "from/until %s/%s are not UNIX seconds in order" % (q["from"][0], q["until"][0])
    if q["format"][0] != "pprof":
        return "format %s is not pprof" % q["format"][0]
    if not q["sampleRate"][0].isdigit():
        return "sampleRate %s is not Hz" % q["sampleRate"][0]
    if body[:2] != b"\x1f\x8b":
        return "the body is not a gzip'd pprof file"
    return None


def check_parca(headers, body):
    if headers.get("Content-Type", "").split(";")[0] != "application/json":
        return "Content-Type %r is not application/json" % headers.get("Content-Type")
    try:
        req = json.loads(body)
        series = req["series"]
        labels = {l["name"]: l["value"] for l in series[0]["labels"]["labels"]}
        raw = base64.b64decode(series[0]["samples"][0]["rawProfile"], validate=True)
    except Exception as e:  # noqa: BLE001 - any malformed request is a failure to report
        return "not a WriteRawRequest: %s" % e
    if "__name__" not in labels:
        return "no __name__ label"
    if raw[:2] != b"\x1f\x8b":
        return "rawProfile is not a gzip'd pprof file"
    return raw


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, code):
        self.send_response(code)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def do_GET(self):
        log("BAD GET %s" % self.path)
        self.reply(405)

    def do_POST(self):
        global fail_left
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        u = urlsplit(self.path)
        kind = {"/ingest": "pyroscope", "/profiles/writeraw": "parca"}.get(u.path)
        if kind is None:
            log("BAD unknown path %s" % u.path)
            return self.reply(404)
        if hang:
            log("HANG %s" % kind)
            time.sleep(60)
            return
        with lock:
            failing = fail_left > 0
            fail_left -= failing
        if failing:
            log("FAIL %s" % kind)
            return self.reply(500)
        if kind == "pyroscope":
            why = check_pyroscope(parse_qs(u.query), self.headers, body)
            data = body
        else:
            data = check_parca(self.headers, body)
            why = data if isinstance(data, str) else None
        if why:
            log("BAD %s %s" % (kind, why))
            return self.reply(400)
        log("OK %s %d" % (kind, keep(kind, data)))
        self.reply(200)


ThreadingHTTPServer.daemon_threads = True  # a hung request does not keep the server alive
srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
