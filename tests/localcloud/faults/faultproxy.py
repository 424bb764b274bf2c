"""HTTP proxies in front of the local cloud's Keystone, Heat and Barbican that fail on demand.

One process serves several listeners (``python faultproxy.py CONFIG.json``), each in front of
one real service on 127.0.0.1, and a control port. It prints one JSON line once every port
listens: ``{"control": port, "listeners": {name: port}}``.

Keystone's answers are rewritten so that the catalog (token bodies, ``/v3/auth/catalog``,
version documents) names the proxies instead of the services: a process that finds Heat and
Barbican through Keystone then talks to them through the proxies, with no option of its own
changed. Request bodies get the reverse rewrite, so every service only ever sees its own URLs.

What a rule can do to the requests it matches (listener, method, path regex, how many times):

``pass``           forward (the default without a rule);
``hold``           keep the request, unsent, until ``release`` (then forward) or ``drop``
                   (close the connection: the call never reached the service);
``hold_response``  forward, then keep the answer until ``release`` / ``drop`` (the call took
                   effect and its caller never learns it);
``stall``          accept and read the request, never answer (until ``reset``);
``error``          answer ``status`` (default 503) with a JSON body, forward nothing;
``error_after``    forward, then answer ``status`` instead of the service's answer (the call
                   took effect, its caller is told it failed);
``reset``          close the connection without an answer.

A listener can also go ``down`` (its port refuses connections, open ones are cut) and ``up``.
Every request is an event (``GET /events``) the tests wait on: e.g. "the trust create is held".
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
              "trailers", "transfer-encoding", "upgrade", "content-length", "host"}
ACTIONS = {"pass", "hold", "hold_response", "stall", "error", "error_after", "reset"}


class Decision:
    """What the control port decided about a held request or answer."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.verdict: str | None = None

    def decide(self, verdict: str) -> None:
        self.verdict = verdict
        self.event.set()

    def wait(self) -> str:
        self.event.wait()
        return self.verdict or "drop"


class State:
    """Rules, events and held requests, shared by every listener thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.rules: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.pending: dict[int, Decision] = {}
        self.next_rule = 1
        self.rewrites: list[tuple[str, str, str]] = []   # (listener, upstream, proxy)

    def add_rule(self, rule: dict[str, Any]) -> dict[str, Any]:
        action = rule.get("action", "pass")
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}")
        re.compile(rule.get("path", ""))
        with self.lock:
            rule = {"listener": "*", "method": "*", "path": "", "times": None,
                    "status": 503, **rule, "id": self.next_rule, "hits": 0}
            self.next_rule += 1
            self.rules.append(rule)
        return rule

    def match(self, listener: str, method: str, path: str) -> dict[str, Any] | None:
        with self.lock:
            for rule in self.rules:
                if rule["listener"] not in ("*", listener):
                    continue
                if rule["method"] not in ("*", method):
                    continue
                if not re.search(rule["path"], path):
                    continue
                if rule["times"] is not None and rule["hits"] >= rule["times"]:
                    continue
                rule["hits"] += 1
                return dict(rule)
        return None

    def record(self, **event: Any) -> dict[str, Any]:
        with self.lock:
            event = {"id": len(self.events) + 1, "t": time.time(), **event}
            self.events.append(event)
        return event

    def update(self, event: dict[str, Any], **values: Any) -> None:
        with self.lock:
            event.update(values)

    def release_all(self, verdict: str) -> int:
        with self.lock:
            pending = list(self.pending.values())
            self.pending.clear()
        for decision in pending:
            decision.decide(verdict)
        return len(pending)

    # --- URL rewriting ----------------------------------------------------------------
    def outbound(self, listener: str, text: str) -> str:
        """Service -> client: every proxied service's URL becomes its proxy's; the service
        behind ``listener`` becomes ``listener`` itself (two listeners may share one)."""
        mapping: dict[str, str] = {}
        for _name, upstream, proxy in sorted(self.rewrites, key=lambda r: r[0] != listener):
            mapping.setdefault(upstream, proxy)
        return _replace(text, mapping)

    def inbound(self, text: str) -> str:
        return _replace(text, {proxy: upstream for _, upstream, proxy in self.rewrites})


def _replace(text: str, mapping: dict[str, str]) -> str:
    """One pass, whole URLs only (``:5000`` is not the start of ``:50001``)."""
    if not mapping:
        return text
    pattern = "|".join(re.escape(k) for k in sorted(mapping, key=len, reverse=True))
    return re.sub(f"(?:{pattern})(?![0-9])", lambda m: mapping[m.group(0)], text)


STATE = State()


def _textual(content_type: str | None) -> bool:
    return bool(content_type) and ("json" in content_type or content_type.startswith("text/"))


class ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    listener = ""
    upstream = ""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _cut(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _wait(self, event: dict[str, Any], state: str) -> str:
        decision = Decision()
        with STATE.lock:
            STATE.pending[event["id"]] = decision
        STATE.update(event, state=state)
        return decision.wait()

    def _forward(self, body: bytes) -> tuple[int, str, list[tuple[str, str]], bytes]:
        up = urlsplit(self.upstream)
        if body and _textual(self.headers.get("Content-Type")):
            body = STATE.inbound(body.decode("utf-8")).encode("utf-8")
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        headers["Host"] = up.netloc
        headers["Content-Length"] = str(len(body))
        conn = http.client.HTTPConnection(up.hostname, up.port, timeout=600)
        try:
            conn.request(self.command, self.path, body=body, headers=headers)
            answer = conn.getresponse()
            data = answer.read()
            out_headers = [(k, v) for k, v in answer.getheaders() if k.lower() not in HOP_BY_HOP]
            return answer.status, answer.reason, out_headers, data
        finally:
            conn.close()

    def _answer(self, status: int, reason: str, headers: list[tuple[str, str]],
                data: bytes) -> None:
        content_type = next((v for k, v in headers if k.lower() == "content-type"), None)
        if data and _textual(content_type):
            data = STATE.outbound(self.listener, data.decode("utf-8")).encode("utf-8")
        self.send_response_only(status, reason)
        for key, value in headers:
            if key.lower() == "location":
                value = STATE.outbound(self.listener, value)
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self.wfile.flush()

    def _fail(self, event: dict[str, Any], rule: dict[str, Any]) -> None:
        data = json.dumps({"error": {"code": rule["status"], "title": "Injected fault",
                                     "message": f"faultproxy rule {rule['id']}"}}).encode()
        STATE.update(event, state="answered", status=rule["status"])
        self._answer(rule["status"], "Injected fault", [("Content-Type", "application/json")],
                     data)

    def _handle(self) -> None:
        body = self._body()
        rule = STATE.match(self.listener, self.command, self.path)
        action = rule["action"] if rule else "pass"
        event = STATE.record(listener=self.listener, method=self.command, path=self.path,
                             rule=rule["id"] if rule else None, action=action,
                             state="received", client_port=self.client_address[1],
                             server_port=self.server.server_address[1])
        if action == "stall":
            STATE.update(event, state="stalled")
            self._wait(event, "stalled")
            STATE.update(event, state="dropped")
            self._cut()
            return
        if action == "reset":
            STATE.update(event, state="dropped")
            self._cut()
            return
        if action == "error":
            self._fail(event, rule)
            return
        if action == "hold" and self._wait(event, "held") != "release":
            STATE.update(event, state="dropped")
            self._cut()
            return
        STATE.update(event, state="forwarded")
        try:
            status, reason, headers, data = self._forward(body)
        except OSError as exc:
            STATE.update(event, state="upstream-error", error=str(exc))
            self._answer(502, "Bad Gateway", [("Content-Type", "application/json")],
                         json.dumps({"error": {"code": 502, "message": str(exc)}}).encode())
            return
        STATE.update(event, status=status)
        if action == "error_after":
            self._fail(event, rule)
            return
        if action == "hold_response" and self._wait(event, "held_response") != "release":
            STATE.update(event, state="dropped")
            self._cut()
            return
        STATE.update(event, state="answered")
        self._answer(status, reason, headers, data)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("do_"):
            return self._handle
        raise AttributeError(name)


class Listener:
    """One proxied service: its port stays the same across down / up."""

    def __init__(self, name: str, upstream: str, port: int = 0) -> None:
        self.name = name
        self.upstream = upstream.rstrip("/")
        self.port = port
        self.server: ThreadingHTTPServer | None = None
        self.connections: set[socket.socket] = set()
        self.up()

    def up(self) -> None:
        if self.server is not None:
            return
        listener = self
        handler = type(f"Handler_{self.name}", (ProxyHandler,),
                       {"listener": self.name, "upstream": self.upstream})

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            allow_reuse_address = True
            request_queue_size = 128

            def process_request_thread(self, request, client_address):
                listener.connections.add(request)
                try:
                    super().process_request_thread(request, client_address)
                finally:
                    listener.connections.discard(request)

        self.server = Server(("127.0.0.1", self.port), handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1},
                         daemon=True).start()

    def down(self) -> None:
        if self.server is None:
            return
        self.server.shutdown()
        self.server.server_close()
        self.server = None
        for conn in list(self.connections):
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


LISTENERS: dict[str, Listener] = {}


class ControlHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _reply(self, status: int, doc: Any) -> None:
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _doc(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"{}")

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path == "/events":
            since = int(dict(p.split("=") for p in url.query.split("&") if p).get("since", 0))
            with STATE.lock:
                events = [dict(e) for e in STATE.events if e["id"] > since]
            self._reply(200, {"events": events})
        elif url.path == "/rules":
            with STATE.lock:
                self._reply(200, {"rules": [dict(r) for r in STATE.rules]})
        else:
            self._reply(200, {"listeners": {n: lst.port for n, lst in LISTENERS.items()},
                              "down": [n for n, lst in LISTENERS.items() if lst.server is None]})

    def do_POST(self) -> None:
        parts = [p for p in urlsplit(self.path).path.split("/") if p]
        try:
            if parts == ["rules"]:
                self._reply(201, STATE.add_rule(self._doc()))
            elif len(parts) == 3 and parts[0] == "events" and parts[2] in ("release", "drop"):
                with STATE.lock:
                    decision = STATE.pending.pop(int(parts[1]), None)
                if decision is None:
                    self._reply(404, {"error": f"event {parts[1]} is not waiting"})
                    return
                decision.decide(parts[2])
                self._reply(200, {"decided": parts[2]})
            elif parts in (["release-all"], ["drop-all"]):
                verdict = "release" if parts[0] == "release-all" else "drop"
                self._reply(200, {"decided": STATE.release_all(verdict)})
            elif len(parts) == 3 and parts[0] == "listeners" and parts[2] in ("down", "up"):
                getattr(LISTENERS[parts[1]], parts[2])()
                self._reply(200, {"listener": parts[1], "state": parts[2]})
            elif parts == ["reset"]:
                with STATE.lock:
                    STATE.rules.clear()
                dropped = STATE.release_all("drop")
                for lst in LISTENERS.values():
                    lst.up()
                self._reply(200, {"dropped": dropped})
            else:
                self._reply(404, {"error": f"no such control path {self.path}"})
        except (KeyError, ValueError, re.error) as exc:
            self._reply(400, {"error": str(exc)})

    def do_DELETE(self) -> None:
        parts = [p for p in urlsplit(self.path).path.split("/") if p]
        with STATE.lock:
            if parts == ["rules"]:
                STATE.rules.clear()
            elif len(parts) == 2 and parts[0] == "rules":
                STATE.rules[:] = [r for r in STATE.rules if r["id"] != int(parts[1])]
        self._reply(200, {"rules": len(STATE.rules)})


def main(config_path: str) -> None:
    config = json.loads(open(config_path).read())
    for name, spec in config["listeners"].items():
        LISTENERS[name] = Listener(name, spec["upstream"], spec.get("port", 0))
    STATE.rewrites = [(lst.name, lst.upstream, lst.url) for lst in LISTENERS.values()]
    control = ThreadingHTTPServer(("127.0.0.1", config.get("control_port", 0)), ControlHandler)
    control.daemon_threads = True
    print(json.dumps({"control": control.server_address[1],
                      "listeners": {n: lst.port for n, lst in LISTENERS.items()}}), flush=True)
    control.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1])
