"""Our own services on the local cloud: magnum.conf for a run, the database, the processes.

A *run* is a directory holding everything one start of magnum-api and two magnum-conductors
needs: ``magnum.conf`` (with the local cloud's ``magnum-localcloud.conf`` given as a second
``--config-file``), one small file per conductor naming it, logs, the SQLite file and
``services.json`` (the process ids we stop later). The database, the RabbitMQ vhost and the
conductor host names derive from the run's name, so a test run and a main-job run never
share a queue or a table. Only the ``[crypto] encryption_key`` outlives a run: it is made
once and kept in the local cloud's state directory, since rows encrypted with it may outlive
the run on MariaDB or PostgreSQL.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from localcloud.scenario import paths, procs

BACKENDS = ("sqlite", "mysql", "postgresql")
SERVERS = {
    "mysql": os.environ.get("MAGNUM_MYSQL_SERVER", "mysql+pymysql://root@127.0.0.1:3306"),
    "postgresql": os.environ.get("MAGNUM_POSTGRESQL_SERVER",
                                 "postgresql+psycopg2://postgres@127.0.0.1:5432"),
}
RABBIT = os.environ.get("MAGNUM_RABBIT", "rabbit://guest:guest@127.0.0.1:5672")
CONDUCTORS = 2


class ServiceError(RuntimeError):
    """Our services could not be prepared or did not come up; the message says where to look."""


def encryption_key() -> str:
    """The ``[crypto] encryption_key`` of every run here: generated once, then kept."""
    path = paths.magnum_home() / "encryption_key"
    if not path.exists():
        from cryptography.fernet import Fernet

        tmp = path.with_suffix(".tmp")
        tmp.write_text(Fernet.generate_key().decode("ascii") + "\n")
        tmp.chmod(0o600)
        os.replace(tmp, path)
    return path.read_text().strip()


class PortLock:
    """One holder of the catalog's Magnum port at a time (main-job or a test module)."""

    def __init__(self, timeout: float = 3600.0) -> None:
        self.path = paths.magnum_home() / f"api-{paths.API_PORT}.lock"
        self.timeout = timeout
        self._fd: int | None = None

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(fd)
                    raise ServiceError(f"{self.path} stayed locked for {self.timeout:.0f}s: "
                                       "another main-job or e2e test holds port "
                                       f"{paths.API_PORT}") from None
                time.sleep(1)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def kept_file() -> Path:
    return paths.magnum_home() / "kept.json"


def kept_run() -> dict | None:
    """The run a ``main-job --keep`` left running, if any of its processes is alive."""
    try:
        kept = json.loads(kept_file().read_text())
    except (OSError, ValueError):
        return None
    if not any(procs.alive(p["pid"]) for p in kept.get("processes", [])):
        kept_file().unlink(missing_ok=True)
        return None
    return kept


def stop_kept() -> dict | None:
    """Stop the services a ``main-job --keep`` left running (by their recorded ids)."""
    kept = kept_run()
    if kept is not None:
        for proc in kept["processes"]:
            procs.stop(proc["pid"])
    kept_file().unlink(missing_ok=True)
    return kept


def _port_open(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex((paths.API_HOST, port)) == 0


@dataclass
class MagnumServices:
    """magnum-api and two magnum-conductors of one run, on one database backend."""

    run_dir: Path
    backend: str = "sqlite"
    name: str = "mainjob"
    tier: str = field(default_factory=paths.cloud_tier)
    processes: list[procs.Proc] = field(default_factory=list)
    vhost: str | None = None
    #: Options of this run that win over the local cloud's fragment (group -> name -> value),
    #: written to ``overrides.conf``, the last ``--config-file`` of every service.
    overrides: dict[str, dict[str, str]] = field(default_factory=dict)
    #: The catalog's port unless a test serves itself elsewhere (it then talks to the API
    #: by endpoint override and needs no PortLock).
    api_port: int = paths.API_PORT

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ServiceError(f"unknown database backend {self.backend!r}; "
                               f"expected one of {', '.join(BACKENDS)}")
        self.run_dir = Path(self.run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.logs = self.run_dir / "logs"
        self.logs.mkdir(exist_ok=True)

    # --- configuration ---------------------------------------------------------------
    @property
    def config(self) -> Path:
        return self.run_dir / "magnum.conf"

    @property
    def db_name(self) -> str:
        return f"magnum_{self.name}".replace("-", "_")

    def database_url(self) -> str:
        if self.backend == "sqlite":
            return f"sqlite:///{self.run_dir / 'magnum.sqlite'}"
        suffix = "?charset=utf8mb4" if self.backend == "mysql" else ""
        return f"{SERVERS[self.backend]}/{self.db_name}{suffix}"

    def config_files(self, conductor: int | None = None) -> list[str]:
        files = [str(self.config), str(paths.magnum_fragment())]
        if conductor is not None:
            files.append(str(self.run_dir / f"conductor-{conductor}.conf"))
        if self.overrides:
            files.append(str(self.run_dir / "overrides.conf"))
        return [arg for f in files for arg in ("--config-file", f)]

    @property
    def host_prefix(self) -> str:
        """The run's name as a valid host name (``[DEFAULT] host`` is a host address)."""
        return self.name.replace("_", "-")

    def conductor_host(self, index: int) -> str:
        return f"{self.host_prefix}-conductor-{index}"

    def write_config(self) -> Path:
        """magnum.conf for this run (the local cloud's fragment supplies the rest)."""
        lookups = "false" if self.tier == "lite" else "true"
        vhost = self.vhost or ""
        topic = "magnum-conductor" if self.vhost else f"magnum-conductor-{self.name}"
        self.config.write_text(f"""\
# Written by localcloud/scenario for run {self.name!r}; use with
#   --config-file {self.config} --config-file {paths.magnum_fragment()}
[DEFAULT]
transport_url = {RABBIT}/{vhost}
state_path = {self.run_dir}
host = {self.host_prefix}-api
debug = false

[database]
connection = {self.database_url()}

[api]
host = {paths.API_HOST}
port = {self.api_port}
workers = 1
threads = 8
# Tier {self.tier}: {"no Nova or Neutron to look flavors, keypairs and networks up in"
                     if self.tier == "lite" else "Nova and Neutron are real"}.
validate_flavors = {lookups}
validate_keypairs = {lookups}
validate_networks = {lookups}

[conductor]
topic = {topic}
report_interval = 5
sync_interval = 3
reconcile_interval = 5

[crypto]
encryption_key = {encryption_key()}
""")
        for index in range(1, CONDUCTORS + 1):
            (self.run_dir / f"conductor-{index}.conf").write_text(
                f"[DEFAULT]\nhost = {self.conductor_host(index)}\n\n[conductor]\nworkers = 1\n")
        if self.overrides:
            (self.run_dir / "overrides.conf").write_text("".join(
                f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in values.items()) + "\n"
                for group, values in self.overrides.items()))
        return self.config

    # --- database and broker ---------------------------------------------------------
    def make_vhost(self) -> str | None:
        """A RabbitMQ vhost of our own; None (shared '/' + own topic) without rabbitmqctl."""
        name = f"magnum_{self.name}"
        if shutil.which("rabbitmqctl") is None:
            return None
        try:
            listed = subprocess.run(["rabbitmqctl", "-q", "list_vhosts"], capture_output=True,
                                    text=True, timeout=120, check=True).stdout.split()
            if name not in listed:
                subprocess.run(["rabbitmqctl", "-q", "add_vhost", name], capture_output=True,
                               timeout=120, check=True)
            subprocess.run(["rabbitmqctl", "-q", "set_permissions", "-p", name, "guest",
                            ".*", ".*", ".*"], capture_output=True, timeout=120, check=True)
        except (OSError, subprocess.SubprocessError):
            return None
        self.vhost = name
        return name

    def fresh_database(self) -> str:
        """An empty database for this run (the SQLite file, or a re-created server DB)."""
        if self.backend == "sqlite":
            # WAL mode leaves -wal/-shm beside the file; an old log would replay into the new one
            for suffix in ("", "-wal", "-shm"):
                (self.run_dir / f"magnum.sqlite{suffix}").unlink(missing_ok=True)
            return self.database_url()
        import sqlalchemy as sa

        server = SERVERS[self.backend]
        admin_db = "postgres" if self.backend == "postgresql" else ""
        engine = sa.create_engine(f"{server}/{admin_db}", isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as conn:
                if self.backend == "postgresql":
                    conn.execute(sa.text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = :d AND pid <> pg_backend_pid()"), {"d": self.db_name})
                conn.execute(sa.text(f"DROP DATABASE IF EXISTS {self.db_name}"))
                conn.execute(sa.text(f"CREATE DATABASE {self.db_name}"))
        except sa.exc.OperationalError as exc:
            raise ServiceError(f"database server {server} is not reachable: {exc.orig}") \
                from None
        finally:
            engine.dispose()
        return self.database_url()

    def upgrade_schema(self) -> None:
        res = subprocess.run([paths.venv_bin("magnum-db-manage"),
                              "--config-file", str(self.config), "upgrade"],
                             capture_output=True, text=True, timeout=600)
        (self.logs / "db-manage.log").write_text(res.stdout + res.stderr)
        if res.returncode != 0:
            raise ServiceError("magnum-db-manage upgrade failed (%s):\n%s"
                               % (self.logs / "db-manage.log", (res.stdout + res.stderr)[-3000:]))

    def prepare(self) -> None:
        """vhost, magnum.conf, an empty database at the newest schema."""
        self.make_vhost()
        self.write_config()
        self.fresh_database()
        self.upgrade_schema()

    # --- processes -------------------------------------------------------------------
    def start(self) -> None:
        if _port_open(self.api_port):
            raise ServiceError(f"port {self.api_port} is already taken: a magnum-api "
                               "started elsewhere? (`tools/main-job --stop` stops one "
                               "left by `main-job --keep`)")
        self.processes = [procs.start("magnum-api",
                                      [paths.venv_bin("magnum-api"), *self.config_files()],
                                      self.logs / "magnum-api.log")]
        for index in range(1, CONDUCTORS + 1):
            self.processes.append(procs.start(
                f"magnum-conductor-{index}",
                [paths.venv_bin("magnum-conductor"), *self.config_files(index)],
                self.logs / f"magnum-conductor-{index}.log"))
        self._record()

    def _record(self) -> None:
        (self.run_dir / "services.json").write_text(json.dumps({
            "run_dir": str(self.run_dir), "backend": self.backend, "name": self.name,
            "processes": [{"name": p.name, "pid": p.pid, "log": str(p.log)}
                          for p in self.processes]}, indent=1))

    def keep(self) -> None:
        """Leave the services running; ``main-job --stop`` (or the next main-job) stops them."""
        shutil.copy(self.run_dir / "services.json", kept_file())
        self.processes = []

    def stop(self) -> None:
        for proc in reversed(self.processes):
            procs.stop(proc.pid)
        self.processes = []

    def _dead(self) -> list[procs.Proc]:
        return [p for p in self.processes if not p.alive()]

    def _log_tail(self, proc: procs.Proc, lines: int = 30) -> str:
        try:
            return "\n".join(proc.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def _api_answers(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://{paths.API_HOST}:{self.api_port}/",
                                        timeout=5) as resp:
                return resp.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def conductors_reporting(self) -> list[str]:
        """Our conductor hosts that have reported in the magnum_service table."""
        import sqlalchemy as sa

        engine = sa.create_engine(self.database_url())
        try:
            # Built, not written as text: "binary" is a reserved word that each dialect
            # quotes its own way (double quotes are a string literal on MariaDB).
            service = sa.table("magnum_service", sa.column("host"), sa.column("binary"),
                               sa.column("report_count"))
            query = sa.select(service.c.host).where(
                service.c.binary == "magnum-conductor", service.c.report_count > 0)
            with engine.connect() as conn:
                rows = conn.execute(query).fetchall()
        except sa.exc.DBAPIError:
            return []
        finally:
            engine.dispose()
        ours = {self.conductor_host(i) for i in range(1, CONDUCTORS + 1)}
        return sorted(r[0] for r in rows if r[0] in ours)

    def wait_ready(self, timeout: float = 180.0) -> float:
        """Block until the API answers and both conductors report; returns the seconds."""
        t0 = time.monotonic()
        while True:
            dead = self._dead()
            if dead:
                raise ServiceError("; ".join(
                    f"{p.name} exited (log {p.log}):\n{self._log_tail(p)}" for p in dead))
            if self._api_answers() and len(self.conductors_reporting()) == CONDUCTORS:
                return time.monotonic() - t0
            if time.monotonic() - t0 > timeout:
                raise ServiceError(
                    f"not ready after {timeout:.0f}s: API answers={self._api_answers()}, "
                    f"conductors reporting={self.conductors_reporting()}; logs in {self.logs}")
            time.sleep(0.5)

    def memory(self) -> list[tuple[str, float, float, int]]:
        """(service, RSS MiB, PSS MiB, processes) of each of our services."""
        return [(p.name, *procs.memory_mib(p.pid)) for p in self.processes]

    def errors_in_logs(self) -> list[str]:
        """ERROR/Traceback lines of our services' logs (for the report and the tests)."""
        found = []
        for log in sorted(self.logs.glob("magnum-*.log")):
            for line in log.read_text(errors="replace").splitlines():
                if " ERROR " in line or line.startswith("Traceback"):
                    found.append(f"{log.name}: {line[:300]}")
        return found


def new_run_dir(label: str) -> Path:
    """A fresh run directory under the local cloud's state directory."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = paths.magnum_home() / "runs" / f"{stamp}-{label}-{secrets.token_hex(2)}"
    path.mkdir(parents=True)
    return path
