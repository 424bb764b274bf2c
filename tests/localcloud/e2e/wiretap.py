"""Watching where secrets go during a cluster's life: every DB row and every broker message.

``WireTap`` binds a queue of its own to the run's ``magnum`` exchange (RabbitMQ topic
exchange; routing key ``#``), so it receives a copy of every RPC request and notification our
services publish, on the real broker. ``RowTap`` snapshots every row of every table of the
run's database while the life runs. ``secrets_in`` decrypts, with the run's ``[crypto]`` key,
every token of ours found in the rows: the requester tokens the API sealed and the trustee
passwords and private keys the conductor encrypted. The test then asserts that none of those
values, and no PEM private key, appears in clear in any row or message.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from typing import Any

import kombu
import sqlalchemy as sa
from cryptography.fernet import Fernet, InvalidToken

from localcloud.scenario import services

#: Fernet tokens (ours and Keystone's alike start with the version byte 0x80).
_TOKEN = re.compile(r"gAAAAA[A-Za-z0-9_\-]+=*")
PEM_PRIVATE = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")


class WireTap:
    """A copy of every message published to the ``magnum`` exchange of one run."""

    def __init__(self, svc: services.MagnumServices) -> None:
        # kombu names the AMQP transport amqp://, oslo.messaging rabbit://
        self.url = f"{services.RABBIT.replace('rabbit://', 'amqp://', 1)}/{svc.vhost or ''}"
        self.messages: list[str] = []
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> WireTap:
        self._thread.start()
        if not self._ready.wait(60):
            raise RuntimeError("the wire tap did not bind within 60 s")
        if self._error is not None:
            raise self._error
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join(30)

    def _run(self) -> None:
        try:
            with kombu.Connection(self.url) as conn:
                exchange = kombu.Exchange("magnum", type="topic", passive=True)
                queue = kombu.Queue(f"security-tap-{uuid.uuid4().hex[:8]}", exchange,
                                    routing_key="#", exclusive=True, auto_delete=True)
                with conn.Consumer(queue, callbacks=[self._keep], accept=["json"]):
                    self._ready.set()
                    while not self._stop.is_set():
                        try:
                            conn.drain_events(timeout=0.5)
                        except TimeoutError:
                            continue
                    # the last messages of the life, already on their way
                    while True:
                        try:
                            conn.drain_events(timeout=2)
                        except TimeoutError:
                            break
        except BaseException as exc:  # reported by __enter__ or the test's assertions
            self._error = exc
            self._ready.set()

    def _keep(self, body: Any, message: Any) -> None:
        self.messages.append(body if isinstance(body, str) else json.dumps(body))
        message.ack()

    def payloads(self) -> list[dict]:
        """The oslo.messaging envelopes' inner messages, decoded."""
        out = []
        for text in self.messages:
            outer = json.loads(text)
            inner = outer.get("oslo.message")
            out.append(json.loads(inner) if isinstance(inner, str) else outer)
        return out


class RowTap:
    """Every distinct row of every table of the run's database, snapshotted while it runs."""

    def __init__(self, svc: services.MagnumServices, interval: float = 0.3) -> None:
        self.engine = sa.create_engine(svc.database_url())
        self.interval = interval
        self.rows: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> RowTap:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join(30)
        self.snapshot()
        self.engine.dispose()

    def snapshot(self) -> None:
        meta = sa.MetaData()
        meta.reflect(self.engine)
        with self.engine.connect() as conn:
            for table in meta.sorted_tables:
                for row in conn.execute(sa.select(table)):
                    self.rows.add(json.dumps({"table": table.name, **row._asdict()},
                                             default=str, sort_keys=True))

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.snapshot()
            except sa.exc.OperationalError:
                continue  # SQLite busy for a moment: the next snapshot catches up


def secrets_in(texts: set[str], key: str) -> dict[str, set[str]]:
    """What the tokens of ours found in ``texts`` hold, by kind: ``tokens`` (requester
    tokens the API sealed), ``secrets`` (anything else we encrypted: trustee passwords,
    private keys and passphrases)."""
    fernet = Fernet(key.encode("ascii"))
    found: dict[str, set[str]] = {"tokens": set(), "secrets": set()}
    for text in texts:
        for token in _TOKEN.findall(text):
            try:
                clear = fernet.decrypt(token.encode("ascii")).decode("utf-8")
            except InvalidToken:
                continue  # a Keystone token, or a sealed value of another key
            try:
                value = json.loads(clear)
            except ValueError:
                value = clear
            if isinstance(value, dict) and value.get("token"):
                found["tokens"].add(value["token"])
            else:
                found["secrets"].add(clear)
    return found
