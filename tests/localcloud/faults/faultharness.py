"""The fault suite's harness: our services as real processes, behind proxies that fail.

* :class:`FaultProxy` runs ``faultproxy.py``: HTTP proxies in front of the local cloud's
  Keystone, Heat and Barbican that hold, stall, fail or refuse requests on demand. The
  conductors find Heat and Barbican through Keystone's (rewritten) catalog, so every call
  they make to the cloud passes a proxy.
* :class:`TcpCut` runs ``tcp_proxy.py`` in front of a TCP service (the machine's RabbitMQ,
  MariaDB, PostgreSQL): ``cut()`` is an outage for the processes behind it and nobody else.
* :class:`Magnum` writes magnum.conf (the local cloud's fragment first, then ours), prepares
  a database and runs ``magnum-api`` and any number of ``magnum-conductor`` processes, each
  its own process group, so a conductor is killed with ``kill -9`` of its whole group.
* :class:`Api` talks to our magnum-api over HTTP as the local cloud's demo user.
* :class:`Cloud` looks at what exists in the real Keystone, Heat and Barbican, as admin.

Nothing here knows the conductor's internals: a case waits for a call to reach a proxy (or
for a row in the database), acts, and judges by the API, the rows and the cloud.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
import sqlalchemy as sa
import yaml

from localcloud.scenario import leftovers, paths, procs, services

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
TCP_PROXY = REPO / "tests" / "functional" / "conductor" / "tcp_proxy.py"
BIN = Path(sys.executable).parent
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
SERVERS = {"mysql": ("127.0.0.1", 3306, "mysql+pymysql://root@{addr}"),
           "postgresql": ("127.0.0.1", 5432, "postgresql+psycopg2://postgres@{addr}")}
BROKER = ("127.0.0.1", 5672)
CLOUD = {"keystone": "http://127.0.0.1:5000", "heat": "http://127.0.0.1:8004",
         "barbican": "http://127.0.0.1:9311"}

IMAGE = "fedora-coreos-40"
#: The local cloud's own network and subnet (127.10.0.0/16): a subnet of the driver's own
#: would get a 10.x range, which the local cloud refuses.
FIXED_NETWORK = "private"
FIXED_SUBNET = "private-subnet"
KUBE_TAG = "v1.31.4"
NEW_KUBE_TAG = "v1.32.1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Verdict(AssertionError):
    """Raised by a wait's predicate: the outcome is final, waiting longer changes nothing."""


def wait_for(predicate: Callable[[], Any], timeout: float, what: str,
             interval: float = 0.5) -> Any:
    """``predicate()`` until truthy; its errors count as "not yet" (except a
    :class:`Verdict`); fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        try:
            last = predicate()
        except Verdict:
            raise
        except Exception as exc:  # the thing observed may be half there
            last = exc
        else:
            if last:
                return last
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what} "
                                 f"(last seen: {last!r})")
        time.sleep(interval)


# --- the HTTP fault proxy ----------------------------------------------------------------
class FaultProxy:
    """``faultproxy.py`` as a process, and its control API."""

    def __init__(self, run_dir: Path) -> None:
        config = run_dir / "faultproxy.json"
        config.write_text(json.dumps({"listeners": {
            "keystone": {"upstream": CLOUD["keystone"]},       # the conductors'
            "keystone-api": {"upstream": CLOUD["keystone"]},   # magnum-api's token checks
            "heat": {"upstream": CLOUD["heat"]},
            "barbican": {"upstream": CLOUD["barbican"]}}}))
        self.log = open(run_dir / "faultproxy.log", "w")
        self.proc = subprocess.Popen([sys.executable, str(HERE / "faultproxy.py"), str(config)],
                                     stdout=subprocess.PIPE, stderr=self.log, text=True,
                                     start_new_session=True)
        ports = json.loads(self.proc.stdout.readline())
        self.control = f"http://127.0.0.1:{ports['control']}"
        self.ports: dict[str, int] = ports["listeners"]

    def url(self, listener: str) -> str:
        return f"http://127.0.0.1:{self.ports[listener]}"

    def _call(self, method: str, path: str, doc: Any = None) -> Any:
        data = json.dumps(doc).encode() if doc is not None else None
        req = urllib.request.Request(self.control + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as answer:
            return json.load(answer)

    def rule(self, action: str, listener: str = "*", method: str = "*", path: str = "",
             times: int | None = None, status: int = 503) -> int:
        """Add a rule (see faultproxy.py); returns its id."""
        return self._call("POST", "/rules", {"action": action, "listener": listener,
                                             "method": method, "path": path, "times": times,
                                             "status": status})["id"]

    def clear(self, rule_id: int | None = None) -> None:
        self._call("DELETE", "/rules" if rule_id is None else f"/rules/{rule_id}")

    def events(self, since: int = 0) -> list[dict[str, Any]]:
        return self._call("GET", f"/events?since={since}")["events"]

    def last_event_id(self) -> int:
        events = self.events()
        return events[-1]["id"] if events else 0

    def wait_event(self, timeout: float, what: str, since: int = 0,
                   **match: Any) -> dict[str, Any]:
        """The first event (after ``since``) whose fields equal ``match`` (``path`` is a
        substring); e.g. ``wait_event(60, "trust create held", rule=rid, state="held")``."""
        def found():
            for event in self.events(since):
                if all((v in event.get(k, "")) if k == "path" else event.get(k) == v
                       for k, v in match.items()):
                    return event
            return None
        return wait_for(found, timeout, what)

    def release(self, event_id: int) -> None:
        self._call("POST", f"/events/{event_id}/release")

    def drop(self, event_id: int) -> None:
        self._call("POST", f"/events/{event_id}/drop")

    def down(self, listener: str) -> None:
        self._call("POST", f"/listeners/{listener}/down")

    def up(self, listener: str) -> None:
        self._call("POST", f"/listeners/{listener}/up")

    def reset(self) -> None:
        """No rules, nothing held (held requests are dropped), every listener up."""
        self._call("POST", "/reset")

    def stop(self) -> None:
        procs.stop(self.proc.pid, timeout=5)
        self.log.close()


class TcpCut:
    """``tcp_proxy.py`` in front of one TCP service; ``cut()`` closes every connection
    through it and refuses new ones until ``restore()``."""

    def __init__(self, upstream: tuple[str, int], listen: str = "127.0.0.1",
                 port: int | None = None, prefix: list[str] | None = None) -> None:
        self.upstream = upstream
        self.listen = listen
        self.port = port or free_port()
        self.prefix = prefix or []
        self.proc: subprocess.Popen | None = None
        self.restore()

    @property
    def address(self) -> str:
        return f"{self.listen}:{self.port}"

    def restore(self) -> None:
        if self.proc is not None:
            return
        self.proc = subprocess.Popen(
            [*self.prefix, sys.executable, str(TCP_PROXY), str(self.port),
             "--upstream", f"{self.upstream[0]}:{self.upstream[1]}", "--listen", self.listen],
            stdout=subprocess.PIPE, text=True, start_new_session=True)
        assert self.proc.stdout.readline().strip() == "ready"

    def cut(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    stop = cut


class PrivateRabbit:
    """A RabbitMQ node of one case: its own node name, a port on 127.0.0.1, its data under
    the case's directory. The machine's broker, which other tests use, is never touched."""

    SERVER = "/usr/lib/rabbitmq/bin/rabbitmq-server"

    def __init__(self, run_dir: Path) -> None:
        self.dir = run_dir / "rabbitmq"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.name = f"faults-{WORKER}-{os.getpid()}-{uuid.uuid4().hex[:4]}@localhost"
        (self.dir / "rabbitmq.conf").write_text(f"listeners.tcp.local = 127.0.0.1:{self.port}\n")
        (self.dir / "enabled_plugins").write_text("[].\n")
        (self.dir / "env.conf").write_text("")
        self.proc: procs.Proc | None = None
        self.start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _env(self) -> dict[str, str]:
        return {**os.environ, "HOME": str(self.dir), "RABBITMQ_NODENAME": self.name,
                "RABBITMQ_CONF_ENV_FILE": str(self.dir / "env.conf"),
                "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1", "RABBITMQ_NODE_PORT": str(self.port),
                "RABBITMQ_DIST_PORT": str(free_port()),
                "RABBITMQ_CONFIG_FILE": str(self.dir / "rabbitmq.conf"),
                "RABBITMQ_ENABLED_PLUGINS_FILE": str(self.dir / "enabled_plugins"),
                "RABBITMQ_MNESIA_BASE": str(self.dir / "mnesia"),
                "RABBITMQ_LOG_BASE": str(self.dir / "log"),
                "RABBITMQ_PID_FILE": str(self.dir / "pid"), "ERL_EPMD_ADDRESS": "127.0.0.1",
                "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS":
                    "-kernel inet_dist_use_interface {127,0,0,1}"}

    def start(self, timeout: float = 240) -> None:
        self.proc = procs.start("rabbitmq", [self.SERVER], self.dir / "server.log",
                                env=self._env())

        def answers():
            if not self.proc.alive():
                raise Verdict("the private RabbitMQ exited:\n" + (self.dir / "server.log")
                              .read_text(errors="replace")[-3000:])
            with socket.create_connection(("127.0.0.1", self.port), timeout=2):
                return True
        wait_for(answers, timeout, "the private RabbitMQ listening", 0.5)

    def crash(self) -> None:
        """SIGKILL of the node: its (transient) queues and the messages in them are lost."""
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, 9)
            except ProcessLookupError:
                pass
            wait_for(lambda: not self.proc.alive(), 20, "the private RabbitMQ gone")
            self.proc = None

    def restart(self) -> None:
        self.crash()
        self.start()

    def stop(self) -> None:
        if self.proc is not None:
            procs.stop(self.proc.pid, timeout=20)
            self.proc = None
        import shutil

        shutil.rmtree(self.dir, ignore_errors=True)


class NetnsHost:
    """A host of its own for a conductor: a network namespace joined to this one by a veth
    pair whose two ends have 127.77.N.1 (here) and 127.77.N.2 (inside) addresses, and a clock
    of its own (libfaketime) for what runs in it.

    A process inside reaches the services it needs at the usual 127.0.0.1 ports: a relay in
    the namespace forwards each port through the veth to a relay here, which forwards it to
    the real service on this side's 127.0.0.1. Nothing else is reachable from inside.
    """

    def __init__(self, ports: list[int]) -> None:
        index = int(uuid.uuid4().int % 200) + 20
        tag = f"{os.getpid() % 10000}x{index}"
        self.name, self.outer, self.inner = f"flt{tag}", f"fo{tag}", f"fi{tag}"
        self.here, self.there = f"127.77.{index}.1", f"127.77.{index}.2"
        self.relays: list[TcpCut] = []
        self._ip("netns", "add", self.name)
        try:
            self._plumb()
            for port in ports:
                self.relays.append(TcpCut(("127.0.0.1", port), listen=self.here, port=port))
                self.relays.append(TcpCut((self.here, port), listen="127.0.0.1", port=port,
                                          prefix=self.prefix()))
        except Exception:
            self.remove()
            raise

    @staticmethod
    def _ip(*args: str, inside: str | None = None) -> None:
        argv = ["ip", *(["netns", "exec", inside, "ip"] if inside else []), *args]
        res = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        assert res.returncode == 0, f"{' '.join(argv)}: {res.stderr.strip()}"

    @staticmethod
    def _sysctl(setting: str, inside: str | None = None) -> None:
        argv = [*(["ip", "netns", "exec", inside] if inside else []), "sysctl", "-qw", setting]
        res = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        assert res.returncode == 0, f"{' '.join(argv)}: {res.stderr.strip()}"

    def _plumb(self) -> None:
        ns = self.name
        self._ip("link", "add", self.outer, "type", "veth", "peer", "name", self.inner)
        self._ip("link", "set", self.inner, "netns", ns)
        # 127/8 is local to every namespace: let it cross this veth, routed by /32 routes
        # that take precedence over the loopback's 127.0.0.0/8 in the local table.
        self._sysctl(f"net.ipv4.conf.{self.outer}.route_localnet=1")
        self._sysctl(f"net.ipv4.conf.{self.outer}.rp_filter=0")
        self._ip("addr", "add", f"{self.here}/32", "dev", self.outer)
        self._ip("link", "set", self.outer, "up")
        self._ip("route", "add", f"{self.there}/32", "dev", self.outer, "table", "local",
                 "src", self.here)
        self._ip("link", "set", "lo", "up", inside=ns)
        self._sysctl("net.ipv4.conf.all.route_localnet=1", inside=ns)
        self._sysctl(f"net.ipv4.conf.{self.inner}.route_localnet=1", inside=ns)
        self._ip("addr", "add", f"{self.there}/32", "dev", self.inner, inside=ns)
        self._ip("link", "set", self.inner, "up", inside=ns)
        self._ip("route", "add", f"{self.here}/32", "dev", self.inner, "table", "local",
                 "src", self.there, inside=ns)

    def prefix(self, clock_offset: int | None = None) -> list[str]:
        """The command prefix that runs a process on this host (its clock ``clock_offset``
        seconds off, through libfaketime)."""
        prefix = ["ip", "netns", "exec", self.name]
        if clock_offset is not None:
            prefix += ["env", "FAKETIME_DONT_FAKE_MONOTONIC=1", "faketime", "-f",
                       f"{clock_offset:+d}s"]
        return prefix

    def remove(self) -> None:
        for relay in self.relays:
            relay.stop()
        subprocess.run(["ip", "netns", "delete", self.name], capture_output=True, timeout=30)
        subprocess.run(["ip", "link", "delete", self.outer], capture_output=True, timeout=30)


# --- our services -------------------------------------------------------------------------
@dataclass
class Conductor:
    name: str
    host: str
    proc: procs.Proc
    prefix: list[str] = field(default_factory=list)

    def alive(self) -> bool:
        return self.proc.alive()

    def pids(self) -> list[int]:
        """Every process of the conductor's group (cotyledon master and workers)."""
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[2]) == self.proc.pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
        return found

    def pause(self) -> None:
        """SIGSTOP of the group: alive, connected, doing nothing."""
        os.killpg(self.proc.pid, 19)

    def resume(self) -> None:
        os.killpg(self.proc.pid, 18)

    def kill9(self) -> None:
        """SIGKILL of the whole process group: no clean-up code of ours runs."""
        try:
            os.killpg(self.proc.pid, 9)
        except ProcessLookupError:
            pass
        wait_for(lambda: not self.alive(), 10, f"conductor {self.name} gone")


def _socket_inodes(pid: int) -> set[str]:
    found = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                found.add(target[8:-1])
    except OSError:
        pass
    return found


def _inode_of_connection(local: int, remote: int, pid: int) -> str | None:
    """The socket inode of the IPv4 TCP connection from port ``local`` to port ``remote``,
    as seen in the network namespace of ``pid``."""
    try:
        with open(f"/proc/{pid}/net/tcp") as table:
            next(table)
            for line in table:
                cols = line.split()
                if (int(cols[1].split(":")[1], 16), int(cols[2].split(":")[1], 16)) == \
                        (local, remote):
                    return cols[9]
    except OSError:
        pass
    return None


class Magnum:
    """magnum-api and conductors of one test module, on one database backend."""

    def __init__(self, run_dir: Path, proxy: FaultProxy, backend: str = "sqlite",
                 broker: str | None = None, db_address: str | None = None,
                 conductor_options: dict[str, dict[str, Any]] | None = None) -> None:
        self.run_dir = run_dir
        self.logs = run_dir / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.proxy = proxy
        self.backend = backend
        self.tag = f"{WORKER}-{os.getpid()}-{uuid.uuid4().hex[:4]}"
        self.broker = broker or f"{BROKER[0]}:{BROKER[1]}"
        self.db_address = db_address
        self.topic = f"magnum-conductor-faults-{self.tag}"
        self.api_port = free_port()
        self.api_proc: procs.Proc | None = None
        self.conductors: dict[str, Conductor] = {}
        #: Clusters the per-case clean-up leaves alone (one a module's cases share).
        self.keep: set[str] = set()
        self.extra = conductor_options or {}
        self._engine: sa.engine.Engine | None = None
        self.db_name = f"magnum_faults_{self.tag}".replace("-", "_")

    # --- configuration -------------------------------------------------------------------
    def database_url(self, address: str | None = None) -> str:
        if self.backend == "sqlite":
            return f"sqlite:///{self.run_dir / 'magnum.sqlite'}"
        host, port, template = SERVERS[self.backend]
        server = template.format(addr=address or self.db_address or f"{host}:{port}")
        suffix = "?charset=utf8mb4" if self.backend == "mysql" else ""
        return f"{server}/{self.db_name}{suffix}"

    def transport_url(self, broker: str | None = None) -> str:
        return f"rabbit://guest:guest@{broker or self.broker}/"

    def options(self) -> dict[str, dict[str, Any]]:
        keystone = self.proxy.url("keystone") + "/v3"
        keystone_api = self.proxy.url("keystone-api") + "/v3"
        values: dict[str, dict[str, Any]] = {
            "DEFAULT": {"transport_url": self.transport_url(), "debug": "true",
                        "state_path": str(self.run_dir), "service_down_time": 10,
                        "host": f"{self.tag}-api"},
            "database": {"connection": self.database_url()},
            "api": {"host": "127.0.0.1", "port": self.api_port, "workers": 1, "threads": 8,
                    "validate_flavors": "false", "validate_keypairs": "false",
                    "validate_networks": "false"},
            "keystone_authtoken": {"www_authenticate_uri": keystone_api,
                                   "auth_url": keystone_api},
            "keystone_auth": {"auth_url": keystone},
            "conductor": {"topic": self.topic, "workers": 1, "report_interval": 2,
                          "lease_seconds": 10, "lease_wait": 2, "reconcile_interval": 2,
                          "pending_grace": 5, "sync_interval": 2},
            "heat_client": {"timeout": 30},
            "crypto": {"encryption_key": services.encryption_key()},
        }
        for group, opts in self.extra.items():
            values.setdefault(group, {}).update(opts)
        return values

    def write_config(self, path: Path, values: dict[str, dict[str, Any]]) -> Path:
        lines = [f"# Written by the fault suite for run {self.tag}"]
        for group, opts in values.items():
            lines.append(f"[{group}]")
            lines += [f"{k} = {v}" for k, v in opts.items()]
        path.write_text("\n".join(lines) + "\n")
        return path

    def config_args(self, *extra: Path) -> list[str]:
        files = [paths.magnum_fragment(), self.run_dir / "magnum.conf", *extra]
        return [arg for f in files for arg in ("--config-file", str(f))]

    # --- database ------------------------------------------------------------------------
    def fresh_database(self) -> None:
        if self.backend != "sqlite":
            host, port, template = SERVERS[self.backend]
            admin_db = "postgres" if self.backend == "postgresql" else ""
            engine = sa.create_engine(f"{template.format(addr=f'{host}:{port}')}/{admin_db}",
                                      isolation_level="AUTOCOMMIT")
            with engine.connect() as conn:
                conn.execute(sa.text(f"DROP DATABASE IF EXISTS {self.db_name}"))
                conn.execute(sa.text(f"CREATE DATABASE {self.db_name}"))
            engine.dispose()
        res = subprocess.run([str(BIN / "magnum-db-manage"), *self.config_args(), "upgrade"],
                             capture_output=True, text=True, timeout=600)
        (self.logs / "db-manage.log").write_text(res.stdout + res.stderr)
        assert res.returncode == 0, f"magnum-db-manage upgrade failed:\n{res.stderr[-3000:]}"

    def drop_database(self) -> None:
        if self._engine is not None:
            self._engine.dispose()
        if self.backend == "sqlite":
            return
        host, port, template = SERVERS[self.backend]
        admin_db = "postgres" if self.backend == "postgresql" else ""
        engine = sa.create_engine(f"{template.format(addr=f'{host}:{port}')}/{admin_db}",
                                  isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            if self.backend == "postgresql":
                conn.execute(sa.text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                     "WHERE datname = :d AND pid <> pg_backend_pid()"),
                             {"d": self.db_name})
            conn.execute(sa.text(f"DROP DATABASE IF EXISTS {self.db_name}"))
        engine.dispose()

    @property
    def db(self) -> sa.engine.Engine:
        """Our own engine on the database, straight to the server (never through a cut)."""
        if self._engine is None:
            host, port = SERVERS.get(self.backend, (None, None, None))[:2]
            url = self.database_url(f"{host}:{port}" if host else None)
            self._engine = sa.create_engine(url, pool_pre_ping=True)
        return self._engine

    def rows(self, sql: str, **params: Any) -> list[dict[str, Any]]:
        with self.db.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(sa.text(sql), params)]

    # --- processes -----------------------------------------------------------------------
    def prepare(self) -> None:
        self.write_config(self.run_dir / "magnum.conf", self.options())
        self.fresh_database()

    def start_api(self) -> None:
        self.api_proc = procs.start("magnum-api", [str(BIN / "magnum-api"), *self.config_args()],
                                    self.logs / "magnum-api.log")
        wait_for(self._api_answers, 120, "magnum-api answering")

    def _api_answers(self) -> bool:
        if self.api_proc is not None and not self.api_proc.alive():
            raise AssertionError(f"magnum-api exited:\n{self.tail('magnum-api')}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.api_port}/", timeout=5) as r:
                return r.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def start_conductor(self, name: str, prefix: list[str] | None = None,
                        options: dict[str, dict[str, Any]] | None = None,
                        env: dict[str, str] | None = None, wait: bool = True) -> Conductor:
        """A conductor process named ``name`` (its ``[DEFAULT] host`` is unique to it).

        ``prefix`` runs it through another command (``ip netns exec``, ``faketime``);
        ``options`` override the module's for this conductor only.
        """
        values = {"DEFAULT": {"host": f"{self.tag}-{name}"}}
        for group, opts in (options or {}).items():
            values.setdefault(group, {}).update(opts)
        host = values["DEFAULT"]["host"]
        own = self.write_config(self.run_dir / f"{name}.conf", values)
        argv = [*(prefix or []), str(BIN / "magnum-conductor"), *self.config_args(own)]
        proc = procs.start(f"conductor-{name}", argv, self.logs / f"{name}.log",
                           env={**os.environ, **(env or {})})
        conductor = Conductor(name=name, host=host, proc=proc, prefix=prefix or [])
        self.conductors[name] = conductor
        if wait:
            wait_for(lambda: self._reporting(conductor), 120, f"conductor {name} reporting")
        return conductor

    def _reporting(self, conductor: Conductor) -> bool:
        if not conductor.alive():
            raise AssertionError(f"conductor {conductor.name} exited:\n"
                                 f"{self.tail(conductor.name)}")
        return bool(self.rows("SELECT id FROM magnum_service WHERE host = :h "
                              "AND report_count > 0", h=conductor.host))

    def live_conductors(self) -> list[Conductor]:
        return [c for c in self.conductors.values() if c.alive()]

    def conductor_of(self, event: dict[str, Any]) -> Conductor:
        """The conductor whose connection carries the proxied request ``event``."""
        for conductor in self.live_conductors():
            for pid in conductor.pids():
                inode = _inode_of_connection(event["client_port"], event["server_port"], pid)
                if inode and inode in _socket_inodes(pid):
                    return conductor
        raise AssertionError(f"no live conductor owns the connection of {event}")

    def tail(self, name: str, lines: int = 60) -> str:
        path = self.logs / f"{name}.log"
        try:
            return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return f"(no log {path})"

    def tails(self) -> str:
        names = ["magnum-api", *self.conductors]
        return "\n".join(f"----- {n}\n{self.tail(n, 40)}" for n in names)

    def stop(self) -> None:
        for conductor in self.conductors.values():
            procs.stop(conductor.proc.pid, timeout=10)
        if self.api_proc is not None:
            procs.stop(self.api_proc.pid, timeout=10)
            self.api_proc = None

    def api(self) -> Api:
        return Api(f"http://127.0.0.1:{self.api_port}")


# --- the API as the demo user --------------------------------------------------------------
class ApiError(AssertionError):
    pass


class Outcome(ApiError, Verdict):
    """The cluster ended in a status the case did not expect."""


def _clouds() -> dict[str, Any]:
    return yaml.safe_load(paths.clouds_yaml().read_text())["clouds"]


def _session(cloud: str):
    from keystoneauth1 import loading, session

    auth = _clouds()[cloud]["auth"]
    return session.Session(auth=loading.get_plugin_loader("password").load_from_options(**auth))


class Api:
    """Our magnum-api, called with a token of the local cloud's ``demo`` (or ``admin``)."""

    def __init__(self, base: str, cloud: str = "localcloud-demo") -> None:
        self.base = base
        self.session = _session(cloud)
        self.http = requests.Session()

    def request(self, method: str, path: str, body: Any = None,
                expect: tuple[int, ...] | None = None, timeout: float = 60) -> requests.Response:
        headers = {"X-Auth-Token": self.session.get_token(),
                   "OpenStack-API-Version": "container-infra latest",
                   "Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        resp = self.http.request(method, self.base + path, headers=headers, timeout=timeout,
                                 data=json.dumps(body) if body is not None else None)
        if expect is not None and resp.status_code not in expect:
            raise ApiError(f"{method} {path} answered {resp.status_code} (expected {expect}): "
                           f"{resp.text[:1500]}")
        return resp

    def get(self, path: str, **kw: Any) -> Any:
        return self.request("GET", path, expect=(200,), **kw).json()

    # --- resources -----------------------------------------------------------------------
    def create_template(self, name: str, kube_tag: str = KUBE_TAG) -> dict[str, Any]:
        return self.request("POST", "/v1/clustertemplates", {
            "name": name, "coe": "kubernetes", "image_id": IMAGE,
            "external_network_id": "public", "flavor_id": "m1.small",
            "master_flavor_id": "m1.small", "keypair_id": "localcloud-demo",
            "network_driver": "flannel", "fixed_network": FIXED_NETWORK,
            "fixed_subnet": FIXED_SUBNET,
            "labels": {"kube_tag": kube_tag, "etcd_volume_size": "1"}}, expect=(201,)).json()

    def create_cluster(self, name: str, template: str, node_count: int = 1,
                       expect: tuple[int, ...] = (202,)) -> requests.Response:
        return self.request("POST", "/v1/clusters", {
            "name": name, "cluster_template_id": template, "master_count": 1,
            "node_count": node_count, "create_timeout": 30}, expect=expect)

    def cluster(self, ident: str) -> dict[str, Any] | None:
        """The cluster as ``GET /v1/clusters/{ident}`` shows it; None once it is gone."""
        resp = self.request("GET", f"/v1/clusters/{ident}", expect=(200, 404))
        return None if resp.status_code == 404 else resp.json()

    def clusters(self) -> list[dict[str, Any]]:
        return self.get("/v1/clusters")["clusters"]

    def nodegroups(self, cluster: str) -> list[dict[str, Any]]:
        return self.get(f"/v1/clusters/{cluster}/nodegroups")["nodegroups"]

    def resize(self, cluster: str, node_count: int, **kw: Any) -> requests.Response:
        return self.request("POST", f"/v1/clusters/{cluster}/actions/resize",
                            {"node_count": node_count}, **kw)

    def upgrade(self, cluster: str, template: str, **kw: Any) -> requests.Response:
        return self.request("POST", f"/v1/clusters/{cluster}/actions/upgrade",
                            {"cluster_template": template, "max_batch_size": 1}, **kw)

    def rotate_ca(self, cluster: str, **kw: Any) -> requests.Response:
        return self.request("PATCH", f"/v1/certificates/{cluster}", **kw)

    def delete(self, cluster: str, **kw: Any) -> requests.Response:
        return self.request("DELETE", f"/v1/clusters/{cluster}", **kw)

    def create_nodegroup(self, cluster: str, name: str, **kw: Any) -> requests.Response:
        return self.request("POST", f"/v1/clusters/{cluster}/nodegroups",
                            {"name": name, "node_count": 1, "flavor_id": "m1.small"}, **kw)

    def delete_nodegroup(self, cluster: str, name: str, **kw: Any) -> requests.Response:
        return self.request("DELETE", f"/v1/clusters/{cluster}/nodegroups/{name}", **kw)

    def ca(self, cluster: str) -> str:
        return self.get(f"/v1/certificates/{cluster}")["pem"]

    def operations(self, cluster: str) -> list[dict[str, Any]]:
        """The cluster's operation history, newest first (issue 12, point 8)."""
        resp = self.request("GET", f"/v1/clusters/{cluster}/operations")
        if resp.status_code == 404 and "could not be found" not in resp.text:
            raise ApiError("GET /v1/clusters/{id}/operations is not served: no operation "
                           "history (issue 12, point 8) to tell what happened")
        if resp.status_code != 200:
            raise ApiError(f"operation history of {cluster}: {resp.status_code} {resp.text}")
        return resp.json()["operations"]

    def history(self, cluster: str) -> list[tuple[str, str]]:
        """(kind, state) of each recorded operation, newest first."""
        return [(op["kind"], op["state"]) for op in self.operations(cluster)]

    def newest_operation(self, cluster: str) -> tuple[str, str] | Exception:
        """(kind, state) of the newest record, or why it cannot be read: for a case that
        looks at the history while the cluster exists and judges once it is gone."""
        try:
            return self.history(cluster)[0]
        except (ApiError, IndexError) as exc:
            return exc

    def assert_history(self, cluster: str, *newest: tuple[str, str]) -> None:
        """The newest records are ``newest`` (kind, state), in that order."""
        seen = self.history(cluster)
        assert seen[:len(newest)] == list(newest), \
            f"operation history of {cluster}: {seen}, expected to start with {list(newest)}"

    # --- waiting -------------------------------------------------------------------------
    def wait_status(self, ident: str, wanted: str, timeout: float,
                    done: Callable[[dict[str, Any]], bool] = lambda c: True) -> dict[str, Any]:
        """Until the cluster shows ``wanted`` (and ``done``); a different terminal status, or
        ``timeout`` seconds, fail with what was seen."""
        seen: list[str] = []

        def reached():
            cluster = self.cluster(ident)
            status = cluster["status"] if cluster else "GONE"
            if not seen or seen[-1] != status:
                seen.append(status)
            if status == wanted and done(cluster):
                return cluster
            if not status.endswith("_IN_PROGRESS") and status != wanted and len(seen) > 1:
                raise Outcome(f"cluster {ident} went {' -> '.join(seen)}, expected {wanted}: "
                               f"{(cluster or {}).get('status_reason')!r}")
            return None

        try:
            return wait_for(reached, timeout, f"cluster {ident} {wanted}", interval=1)
        except Outcome:
            raise
        except AssertionError as exc:
            raise ApiError(f"{exc}; statuses seen: {' -> '.join(seen)}") from None

    def wait_gone(self, ident: str, timeout: float) -> None:
        def gone():
            cluster = self.cluster(ident)
            if cluster and cluster["status"] == "DELETE_FAILED":
                raise Outcome(f"delete of {ident} failed: {cluster.get('status_reason')!r}")
            return cluster is None
        wait_for(gone, timeout, f"cluster {ident} deleted (404)", interval=1)


# --- what exists in the cloud -------------------------------------------------------------
class Cloud:
    """The real Keystone, Heat and Barbican, seen as admin (never through a proxy)."""

    def stacks(self, prefix: str) -> list[Any]:
        """Live stacks (any project) whose name starts with ``prefix``."""
        heat = leftovers._heat()
        return [s for s in heat.stacks.list(global_tenant=True)
                if s.stack_name.startswith(prefix) and s.stack_status != "DELETE_COMPLETE"]

    def footprint(self, cluster: dict[str, Any]) -> leftovers.Footprint:
        stacks = {s.id for s in self.stacks(stack_prefix(cluster))}
        return leftovers.footprint(cluster["uuid"], stacks, stack_prefix(cluster))

    def remaining(self, before: leftovers.Footprint) -> leftovers.Footprint:
        return leftovers.remaining(before)

    def nothing_left(self, cluster: dict[str, Any],
                     before: leftovers.Footprint | None = None) -> None:
        """No stack, trustee user, trust, secret or container of the cluster is left."""
        before = before or leftovers.Footprint(cluster_uuid=cluster["uuid"],
                                               stack_prefix=stack_prefix(cluster))
        left = leftovers.remaining(before)
        assert left.empty(), (
            f"cluster {cluster['uuid']} left behind: stacks={sorted(left.stack_ids)} "
            f"trustees={left.trustee_users} trusts={sorted(left.trusts)} "
            f"secrets={left.secrets} containers={left.containers}")

    def stack(self, stack_id: str) -> Any:
        return leftovers._heat().stacks.get(stack_id)

    def cluster_stacks(self, cluster: dict[str, Any]) -> list[Any]:
        """Live stacks named as the cluster's own (``<name>-<id>``; node groups' stacks are
        ``<name>-<node group>-<id>``)."""
        return [s for s in self.stacks(stack_prefix(cluster))
                if "-" not in s.stack_name[len(stack_prefix(cluster)):]]

    def the_stack(self, cluster: dict[str, Any]) -> Any:
        """The cluster's one live stack (exactly one must exist)."""
        stacks = self.cluster_stacks(cluster)
        assert len(stacks) == 1, (f"cluster {cluster['uuid']} has {len(stacks)} live stacks: "
                                  f"{[(s.stack_name, s.id) for s in stacks]}")
        return self.stack(stacks[0].id)

    def purge(self, cluster: dict[str, Any]) -> None:
        """Remove, as admin, everything named after the cluster (the harness's last resort
        when our services could not delete it)."""
        from heatclient import exc

        for stack in self.stacks(stack_prefix(cluster)):
            try:
                leftovers._heat().stacks.delete(stack.id)
            except exc.HTTPNotFound:
                pass
        found = leftovers.footprint(cluster["uuid"], set(), stack_prefix(cluster))
        for user in found.trustee_users:
            leftovers._keystone().users.delete(user)
        barbican = leftovers._barbican()
        for ref in found.containers:
            barbican.containers.delete(ref)
        for ref in found.secrets:
            barbican.secrets.delete(ref)

    def revoke_trust(self, trust_id: str) -> None:
        leftovers._keystone().trusts.delete(trust_id)


def stack_prefix(cluster: dict[str, Any]) -> str:
    """Stack names start with the cluster's name (the suite's names are already valid)."""
    return f"{cluster['name']}-"


def new_name(label: str) -> str:
    return f"f{label}-{uuid.uuid4().hex[:6]}"


#: Seconds an operation may stay in progress in a case, recovery included (two busy cores:
#: a create takes 35-60 s, an update 30-50 s, a delete 25-30 s when nothing fails).
BOUND = {"create": 480.0, "update": 420.0, "delete": 300.0}
#: The certificate bundles of a cluster: CA, Magnum's client, etcd CA, front-proxy CA.
BUNDLES = 4


def assert_owns_once(cloud: Cloud, cluster: dict[str, Any], within: float = 180) -> Any:
    """Exactly one stack, trustee user, trust, and set of certificate bundles belong to the
    cluster (what a killed attempt made is taken over or cleaned up, within ``within``
    seconds); returns the footprint."""
    cloud.the_stack(cluster)

    def once():
        fp = cloud.footprint(cluster)
        return fp if (len(fp.trustee_users), len(fp.trusts), len(fp.containers)) == \
            (1, 1, BUNDLES) else None
    try:
        return wait_for(once, within, "one trustee, one trust, one set of bundles", 3)
    except AssertionError:
        raise AssertionError(f"cluster {cluster['uuid']} owns "
                             f"{cloud.footprint(cluster).summary()}, expected 1 trustee, "
                             f"1 trust, {BUNDLES} certificate containers") from None


def delete_and_check(api: Api, cloud: Cloud, cluster: dict[str, Any],
                     footprint: Any = None) -> None:
    """DELETE the cluster (any state), wait for the 404, and find nothing of it left."""
    footprint = footprint or cloud.footprint(cluster)
    api.delete(cluster["uuid"], expect=(202, 204))
    api.wait_gone(cluster["uuid"], BOUND["delete"])
    cloud.nothing_left(cluster, footprint)
