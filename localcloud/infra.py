"""The machine's MariaDB and RabbitMQ: check them, install/start them if missing, add DBs/vhosts."""

import os
import shutil
import socket
import subprocess
import time

from .procs import StartError, log, run, tail

_apt_updated = False


def port_open(port, host="127.0.0.1", timeout=1.0):
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _wait_port(port: int, timeout: float, what: str,
               proc: "subprocess.Popen | None" = None, logpath: "str | None" = None) -> None:
    """Wait for `port`; fail early, with the server's last log lines, if `proc` exits."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if port_open(port):
            return
        if proc is not None and proc.poll() is not None:
            raise StartError("%s exited (%s) before opening port %d; last lines of %s:\n%s"
                             % (what, proc.returncode, port, logpath, tail(logpath)))
        time.sleep(0.5)
    raise StartError("%s did not open port %d within %ds; last lines of %s:\n%s"
                     % (what, port, timeout, logpath, tail(logpath) if logpath else ""))


def _spawn_server(argv: list, logpath: str, what: str) -> subprocess.Popen:
    """Start a system server in a session of its own, its output appended to `logpath`.

    Used where no init system runs it (containers, chroots): without a log, a server that
    refuses to start leaves nothing to read.
    """
    if os.geteuid() != 0:
        raise StartError("%s is installed but not running, and only root can start it here: "
                         "start it, then rerun" % what)
    os.makedirs(os.path.dirname(logpath), exist_ok=True)
    log("starting %s (output: %s)" % (what, logpath))
    with open(logpath, "ab") as logf:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=logf,
                                stderr=subprocess.STDOUT, start_new_session=True)


def apt_install(*packages):
    global _apt_updated
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise StartError(
            "need Debian packages %s but cannot install them (not root or no apt-get); "
            "install them and start the service, then rerun" % " ".join(packages)
        )
    env = {"DEBIAN_FRONTEND": "noninteractive"}
    if not _apt_updated:
        log("apt-get update")
        run(["apt-get", "update", "-q"], env=env, check=False, timeout=600)
        _apt_updated = True
    log("apt-get install %s" % " ".join(packages))
    code, out = run(
        ["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages],
        env=env, check=False, timeout=900,
    )
    if code != 0:
        raise StartError("apt-get install %s failed:\n%s" % (" ".join(packages), out[-3000:]))


# ---------------------------------------------------------------- MariaDB

def _mysql_cmd(tcp=True):
    cmd = ["mysql", "-uroot", "--batch", "--skip-column-names"]
    if tcp:
        cmd += ["-h127.0.0.1", "-P3306"]
    return cmd


_mysql_tcp = None


def mysql(sql, check=True):
    """Run SQL as MariaDB's root: over TCP with no password, else over the unix socket."""
    global _mysql_tcp
    attempts = [True, False] if _mysql_tcp is None else [_mysql_tcp]
    last = ""
    for tcp in attempts:
        res = subprocess.run(_mysql_cmd(tcp), input=sql, capture_output=True, text=True)
        if res.returncode == 0:
            _mysql_tcp = tcp
            return res.stdout
        last = res.stderr
    if check:
        raise StartError("MariaDB root access failed: %s\nSQL: %s" % (last.strip(), sql[:300]))
    return None


def ensure_mariadb():
    if not shutil.which("mysql"):
        apt_install("mariadb-client")
    if port_open(3306) and mysql("SELECT 1;", check=False) is not None:
        return
    if not os.path.exists("/usr/sbin/mariadbd"):
        apt_install("mariadb-server", "mariadb-client")
    if not port_open(3306):
        _start_mariadb()
    deadline = time.time() + 30
    while mysql("SELECT 1;", check=False) is None:
        if time.time() > deadline:
            raise StartError("MariaDB is listening on 3306 but root cannot log in")
        time.sleep(1)


MARIADB_LOG = "/var/log/mysql/localcloud-mariadbd.log"


def _mariadb_datadir() -> str:
    """The data directory mariadbd will use: its config's datadir, else Debian's default."""
    code, out = run(["my_print_defaults", "--mysqld"], check=False)
    datadir = "/var/lib/mysql"
    for line in out.splitlines() if code == 0 else []:
        if line.startswith("--datadir="):
            datadir = line.split("=", 1)[1]
    return datadir


def _start_mariadb() -> None:
    """Run mariadbd as the mysql user (it refuses root, and Debian's config names no user)."""
    os.makedirs("/run/mysqld", exist_ok=True)
    try:
        shutil.chown("/run/mysqld", "mysql", "mysql")
    except (LookupError, OSError):
        pass
    datadir = _mariadb_datadir()
    if not os.path.isdir(os.path.join(datadir, "mysql")):
        # The package's postinst could not create the system tables (or they were removed).
        log("initialising MariaDB's data directory %s" % datadir)
        os.makedirs(datadir, exist_ok=True)
        shutil.chown(datadir, "mysql", "mysql")
        run(["mariadb-install-db", "--user=mysql", "--datadir=" + datadir], timeout=300)
    proc = _spawn_server(["/usr/sbin/mariadbd", "--user=mysql"], MARIADB_LOG, "MariaDB")
    _wait_port(3306, 60, "MariaDB", proc, MARIADB_LOG)


def ensure_database(name, user, password):
    """Database `name` with its own user (all privileges on it); returns True if newly created."""
    existed = bool(mysql("SHOW DATABASES LIKE '%s';" % name).strip())
    sql = ["CREATE DATABASE IF NOT EXISTS `%s` CHARACTER SET utf8mb4;" % name]
    for host in ("%", "localhost"):
        sql.append("CREATE USER IF NOT EXISTS '%s'@'%s' IDENTIFIED BY '%s';"
                   % (user, host, password))
        sql.append("ALTER USER '%s'@'%s' IDENTIFIED BY '%s';" % (user, host, password))
        sql.append("GRANT ALL PRIVILEGES ON `%s`.* TO '%s'@'%s';" % (name, user, host))
    sql.append("FLUSH PRIVILEGES;")
    mysql("\n".join(sql))
    return not existed


def table_count(dbname):
    out = mysql(
        "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='%s';" % dbname
    )
    return int(out.strip() or 0)


def drop_database(name):
    mysql("DROP DATABASE IF EXISTS `%s`;" % name)


def db_url(name, user, password):
    return "mysql+pymysql://%s:%s@127.0.0.1:3306/%s?charset=utf8mb4" % (user, password, name)


# ---------------------------------------------------------------- RabbitMQ

RABBITMQ_LOG = "/var/log/rabbitmq/localcloud-rabbitmq-server.log"


def ensure_rabbitmq():
    if port_open(5672):
        return
    if not os.path.exists("/usr/sbin/rabbitmq-server"):
        apt_install("rabbitmq-server")
    if not port_open(5672):
        # In the foreground of its own session, so an early exit is seen and its output kept
        # (-detached would hide both).
        proc = _spawn_server(["rabbitmq-server"], RABBITMQ_LOG, "RabbitMQ")
        _wait_port(5672, 120, "RabbitMQ", proc, RABBITMQ_LOG)


def ensure_vhost(vhost):
    code, out = run(["rabbitmqctl", "-q", "list_vhosts"], check=False, timeout=120)
    if code != 0:
        raise StartError("rabbitmqctl list_vhosts failed: %s" % out)
    if vhost not in out.split():
        run(["rabbitmqctl", "-q", "add_vhost", vhost], timeout=120)
        run(["rabbitmqctl", "-q", "set_permissions", "-p", vhost, "guest", ".*", ".*", ".*"],
            timeout=120)
        return True
    return False


def queue_consumers(vhost, queue):
    """Consumers of `queue` in `vhost` (0 if the queue does not exist yet)."""
    code, out = run(["rabbitmqctl", "-q", "list_queues", "-p", vhost, "name", "consumers"],
                    check=False, timeout=120)
    if code != 0:
        return 0
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == queue and parts[1].isdigit():
            return int(parts[1])
    return 0


def delete_vhost(vhost):
    run(["rabbitmqctl", "-q", "delete_vhost", vhost], check=False, timeout=120)


def rabbit_url(vhost):
    return "rabbit://guest:guest@127.0.0.1:5672/%s" % vhost
