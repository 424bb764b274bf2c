"""Which service each thread is waiting for, so a stuck or timed-out call names it.

Every HTTP session the conductor opens to another service (Keystone, Heat, Barbican, Nova)
carries a requests session from ``tracked(service)``. It remembers, per thread, the last
request sent: which service, method and URL, since when, and whether it ended in a
timeout or a refused connection. Two readers use it:

* the operation watchdog (an operation past its maximum run time) says what the stuck
  thread is waiting for: "Barbican did not answer (POST http://.../v1/secrets, 31 s)";
* a failure caused by a timeout says which service did not answer, rather than a bare URL
  (keystoneauth raises "Request to <url> timed out" whichever service it was).

A thread that works for another (a pool storing certificate bundles in parallel) runs its
function through ``for_caller``: its requests then count as the caller's too.

Each request also carries the request id of the operation its thread works for
(``act_for``) as ``X-OpenStack-Request-ID``: Keystone, Heat and Barbican log it as their
global request id, so one cluster create can be followed from Magnum's access log to
heat-api's log by one id.

Keystone is recognised by URL (``name_endpoint``): every session also fetches tokens, and
those requests go to Keystone whatever the session is for.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import threading
import time
import urllib.parse
from collections.abc import Callable
from typing import Any, TypeVar

import requests

T = TypeVar("T")
_calls: dict[int, Call] = {}
#: helper thread -> the thread it works for
_owners: dict[int, int] = {}
_endpoints: dict[str, str] = {}
#: thread -> the request id its outbound requests carry (see ``act_for``)
_request_ids: dict[int, str] = {}
_lock = threading.Lock()
_REQUEST_ID = re.compile(r"req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: The header oslo.middleware's request_id filter takes as the global request id.
REQUEST_ID_HEADER = "X-OpenStack-Request-ID"


@dataclasses.dataclass
class Call:
    """One request as seen by the thread that sent it."""

    service: str
    method: str
    url: str
    started: float
    #: The thread the request is made for (the sender, or the one it works for).
    owner: int = 0
    timeout: float | None = None
    ended: float | None = None
    #: "timed out" or "connection failed" when the request got no answer.
    error: str | None = None

    def waited(self, now: float | None = None) -> float:
        return (self.ended or now or time.monotonic()) - self.started

    def describe(self) -> str:
        """``Keystone did not answer (POST http://host/v3/auth/tokens: timed out after 3 s)``."""
        if self.ended is None:
            state = f"no answer for {self.waited():.0f} s"
        elif self.error == "timed out" and self.timeout:
            state = f"timed out after {self.timeout:g} s"
        else:
            state = self.error or f"answered after {self.waited():.0f} s"
        return f"{self.service} did not answer ({self.method} {self.url}: {state})"


def _base(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}".rstrip("/")


def name_endpoint(url: str, service: str) -> None:
    """Requests to ``url`` (and below it) are ``service``'s, whichever session sends them."""
    base = _base(url)
    for suffix in ("/v3", "/v2.0"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    with _lock:
        _endpoints[base] = service


def service_of(url: str, default: str) -> str:
    base = _base(url)
    with _lock:
        for prefix, service in _endpoints.items():
            if base == prefix or base.startswith(prefix + "/"):
                return service
    return default


class TrackedSession(requests.Session):
    """A requests session that records each request of the sending thread."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        url = request.url or ""
        timeout = kwargs.get("timeout")
        if isinstance(timeout, tuple):
            timeout = max(t for t in timeout if t is not None) if any(timeout) else None
        me = threading.get_ident()
        owner = _owners.get(me, me)
        request_id = _request_ids.get(owner)
        if request_id and REQUEST_ID_HEADER not in request.headers:
            request.headers[REQUEST_ID_HEADER] = request_id
        call = Call(service_of(url, self.service), request.method or "GET",
                    url.split("?", 1)[0], time.monotonic(), owner=owner, timeout=timeout)
        _calls[me] = call
        try:
            return super().send(request, **kwargs)
        except requests.Timeout:
            call.error = "timed out"
            raise
        except requests.ConnectionError:
            call.error = "connection failed"
            raise
        finally:
            call.ended = time.monotonic()


def tracked(service: str) -> requests.Session:
    """The requests session to hand to a keystoneauth session talking to ``service``."""
    return TrackedSession(service)


def for_caller(func: Callable[..., T]) -> Callable[..., T]:
    """``func`` to run on a helper thread, its requests counted as the calling thread's."""
    caller = threading.get_ident()
    owner = _owners.get(caller, caller)

    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> T:
        me = threading.get_ident()
        _owners[me] = owner
        try:
            return func(*args, **kwargs)
        finally:
            _owners.pop(me, None)
    return run


def _no_answer(call: Call | None) -> bool:
    return call is not None and (call.ended is None or call.error is not None)


def unanswered(thread_ident: int | None = None) -> Call | None:
    """The thread's last request if it is still waiting or got no answer at all; else the
    longest such request of the threads working for it."""
    ident = threading.get_ident() if thread_ident is None else thread_ident
    own = _calls.get(ident)
    if _no_answer(own):
        return own
    helpers = [c for t, c in list(_calls.items())
               if t != ident and c.owner == ident and _no_answer(c)]
    return min(helpers, key=lambda c: c.started) if helpers else None


def act_for(request_id: str | None) -> None:
    """The calling thread's requests (and its helpers') carry ``request_id`` from now on
    (None: no id). Only ids of oslo's ``req-<uuid>`` shape are sent: the services accept
    nothing else as a global request id."""
    ident = threading.get_ident()
    if request_id and _REQUEST_ID.fullmatch(request_id):
        _request_ids[ident] = request_id
    else:
        _request_ids.pop(ident, None)


def forget(thread_ident: int | None = None) -> None:
    """Drop what the thread and its helpers sent, and the request id it acted for (a new
    operation starts on it)."""
    ident = threading.get_ident() if thread_ident is None else thread_ident
    _request_ids.pop(ident, None)
    _calls.pop(ident, None)
    for thread, call in list(_calls.items()):
        if call.owner == ident:
            _calls.pop(thread, None)
