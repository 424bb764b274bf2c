"""magnum-api's gunicorn: the worker class, the logger class and the fork hooks.

* Keep-alive without lost requests. A client loses a request when the server closes an idle
  connection at the instant the client sends on it: gunicorn's gthread worker closes even
  when the request has just reached the socket (the kernel answers it with a reset), and a
  client that checked the connection a moment before the close sends into it. Python's
  requests does not retry either case. :class:`ThreadWorker` therefore (1) serves a request
  already on the socket instead of closing, and (2) closes an idle connection only
  :data:`CLOSE_GRACE` seconds after ``[api] keepalive``, so that a client polling every
  ``keepalive`` seconds (the interval at which a plain expiry would collide with it) always
  finds the connection open, and one idle longer finds it closed before it sends. The
  default ``keepalive`` (75 s) is longer than clients poll, so this only matters at the
  edges; a connection is only ever closed before any byte of a request is read, so a
  client that retries (Go's net/http, hence terraform) never sends a request twice.
* Errors in the error envelope, from the server too. The limits (:data:`LIMITS`) are set so
  that what the application answers with its own envelope reaches it: a request line up
  to 8190 bytes (gunicorn's ceiling; the application refuses over-long paths and query
  strings itself), header fields up to 32 KiB (old PKI tokens), 256 header fields, and any
  method name (``get`` reaches the application, which answers 405). What gunicorn must
  still answer itself (a request line past 8190 bytes: 414; larger or more headers: 431;
  an unparseable request line, header or chunk, or a repeated Content-Type or
  Content-Length: 400) is written as the same JSON envelope, not gunicorn's HTML page.
* One log: gunicorn's own messages (worker boots, signals, errors) go through oslo.log like
  every other line, instead of gunicorn's handler and format.
* Lean workers: the master imports and builds everything once (``preload_app``), then freezes
  the garbage collector's generations so that the workers' collections do not write to, and
  so copy, the pages they share with the master. Whatever holds a connection (the database
  engine, the RPC transport, keystoneauth sessions) is created after the fork, per worker.
"""

from __future__ import annotations

import json
import socket
import time
from typing import Any

from gunicorn import glogging, util
from gunicorn.workers import gthread

#: gunicorn settings that let every request the application can judge reach it.
LIMITS = {
    "limit_request_line": 8190,
    "limit_request_field_size": 32768,
    "limit_request_fields": 256,
    "permit_unconventional_http_method": True,
}


def write_error(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's own error responses, in the API's error envelope (section 4.1)."""
    detail = mesg or reason
    body = json.dumps({"errors": [{
        "request_id": "", "code": "client" if status_int < 500 else "server",
        "status": status_int, "title": detail.split(".", 1)[0], "detail": detail,
        "links": []}]}).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin1") + body)


def pending_data(sock: socket.socket) -> bool:
    """Whether the peer has sent bytes (or closed) that are waiting to be read."""
    try:
        sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except BlockingIOError:
        return False
    except OSError:
        pass  # reset by the peer: reading it ends the connection cleanly
    return True


#: Seconds past ``[api] keepalive`` before an idle connection is closed: more than a
#: busy client's timer and thread scheduling overshoot an interval by.
CLOSE_GRACE = 2.0


class ThreadWorker(gthread.ThreadWorker):
    """gthread, expiring idle keep-alive connections without dropping a request in flight,
    and answering the requests it cannot parse in the error envelope."""

    def init_process(self) -> None:
        util.write_error = write_error  # what Worker.handle_error writes with
        super().init_process()

    def murder_keepalived(self, force: bool = False) -> None:
        if force:
            super().murder_keepalived(force=True)
            return
        now = time.monotonic() - CLOSE_GRACE
        while self.keepalived_conns and self.keepalived_conns[0].timeout <= now:
            conn = self.keepalived_conns.popleft()
            try:
                self.poller.unregister(conn.sock)
            except (OSError, KeyError, ValueError):
                pass
            if pending_data(conn.sock):
                # The next request arrived just as the connection expired: serve it (an
                # end of stream or a reset is read, and the connection closed, the same way).
                self.enqueue_req(conn)
                continue
            self.nr_conns -= 1
            conn.close()


class OsloLogger(glogging.Logger):
    """gunicorn's error log through the root logger, which oslo.log has set up."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        for handler in list(self.error_log.handlers):
            if getattr(handler, "_gunicorn", False):
                self.error_log.removeHandler(handler)
        self.error_log.propagate = True


def preload() -> None:
    """Import in the master what a worker would otherwise import on its first request (see
    ``magnum_common.prefork.import_backends``)."""
    from magnum_common import prefork

    prefork.import_backends()


def pre_fork(server: Any, worker: Any) -> None:
    """In the master, before each fork: everything alive now is shared, never collected."""
    from magnum_common import prefork

    prefork.freeze()


def post_fork(server: Any, worker: Any) -> None:
    """Connections must never be shared across a fork."""
    from magnum_common import rpc
    from magnum_common.db import api as db_api

    db_api.reset_engine()
    rpc.cleanup()
