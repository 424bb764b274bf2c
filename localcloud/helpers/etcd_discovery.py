"""A tiny stand-in for the public etcd discovery service (discovery.etcd.io), stdlib only.

GET /new?size=N            -> text/plain "http://<host>:<port>/<token>" (a new discovery URL)
GET /<token>/_config/size  -> etcd v2 JSON {"node": {"value": "N", ...}} (what Magnum checks)
GET /<token>               -> etcd v2 JSON directory listing of registered members
PUT /<token>/<member>      -> registers value=<...> (what an etcd member would do at boot)
GET /health                -> {"health": "true"}

State lives in memory only; a discovery URL is meaningless after a restart, as it would be for
a cluster whose etcd never booted.
"""
import argparse
import json
import secrets
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CLUSTERS = {}
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    server_version = "localcloud-etcd-discovery/1"

    def _send(self, code, body, ctype="application/json"):
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        parsed = urllib.parse.urlparse(self.path)
        parts = [p for p in parsed.path.split("/") if p]
        if parts == ["health"]:
            return self._send(200, {"health": "true"})
        if parts == ["new"]:
            q = urllib.parse.parse_qs(parsed.query)
            try:
                size = int(q.get("size", ["3"])[0])
            except ValueError:
                return self._send(400, "size must be an integer", "text/plain")
            token = secrets.token_hex(16)
            with LOCK:
                CLUSTERS[token] = {"size": size, "members": {}}
            host = self.headers.get("Host") or "%s:%d" % self.server.server_address[:2]
            return self._send(200, "http://%s/%s" % (host, token), "text/plain")
        if not parts or parts[0] not in CLUSTERS:
            return self._send(404, {"errorCode": 100, "message": "Key not found"})
        token, cluster = parts[0], CLUSTERS[parts[0]]
        key = "/_etcd/registry/" + token
        if parts[1:] == ["_config", "size"]:
            return self._send(200, {"action": "get", "node": {
                "key": key + "/_config/size", "value": str(cluster["size"])}})
        if len(parts) == 1:
            nodes = [{"key": "%s/%s" % (key, m), "value": v}
                     for m, v in sorted(cluster["members"].items())]
            return self._send(200, {"action": "get", "node": {"key": key, "dir": True,
                                                               "nodes": nodes}})
        return self._send(404, {"errorCode": 100, "message": "Key not found"})

    def do_PUT(self):
        parts = [p for p in urllib.parse.urlparse(self.path).path.split("/") if p]
        if len(parts) != 2 or parts[0] not in CLUSTERS:
            return self._send(404, {"errorCode": 100, "message": "Key not found"})
        length = int(self.headers.get("Content-Length") or 0)
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        value = form.get("value", [""])[0]
        with LOCK:
            CLUSTERS[parts[0]]["members"][parts[1]] = value
        return self._send(201, {"action": "set", "node": {
            "key": "/_etcd/registry/%s/%s" % tuple(parts), "value": value}})

    def log_message(self, fmt, *args):
        print("%s %s" % (self.address_string(), fmt % args), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8099)
    args = ap.parse_args()
    srv = ThreadingHTTPServer((args.host, args.port), Handler)
    print("etcd discovery stand-in on http://%s:%d" % (args.host, args.port), flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
