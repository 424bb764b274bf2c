"""Drive localcloud.infra inside the throwaway root that verify-infra-install builds.

Runs as root in a chroot with its own network and PID namespaces, where neither MariaDB nor
RabbitMQ is installed: every step below goes through the same code `localcloud up` uses, then
checks the result the way the cloud's services will use it (PyMySQL over TCP with the
database's own user, AMQP as guest on the new vhost). Prints one line per step with its time;
exits non-zero at the first failure.
"""

import os
import shutil
import subprocess
import sys
import time
import urllib.parse

# verify-infra-install copies this script next to localcloud/{__init__,infra,procs}.py in
# /opt/lcverify: the script's own directory is on sys.path, so the package imports as usual.
from localcloud import infra

DB = "lcverify"
PASSWORD = "lcverify-pw"
VHOST = "lcverify"


def step(name, fn):
    """Run one check, print its outcome and time; stop the whole run on failure."""
    print("[check] %s ..." % name, flush=True)
    t0 = time.monotonic()
    try:
        fn()
    except Exception as exc:  # any failure ends the check, with its reason
        print("[check] FAIL %-52s %7.1f s\n%s: %s"
              % (name, time.monotonic() - t0, type(exc).__name__, exc), flush=True)
        _dump_logs()
        sys.exit(1)
    print("[check] ok   %-52s %7.1f s" % (name, time.monotonic() - t0), flush=True)


def _dump_logs():
    for path in ("/var/log/mysql/error.log", "/var/log/lcverify-mariadbd.log"):
        _tail(path)
    if os.path.isdir("/var/log/rabbitmq"):
        for name in sorted(os.listdir("/var/log/rabbitmq")):
            _tail(os.path.join("/var/log/rabbitmq", name))


def _tail(path, lines=40):
    try:
        with open(path, errors="replace") as f:
            text = f.read().splitlines()[-lines:]
    except OSError:
        return
    print("---- last lines of %s\n%s" % (path, "\n".join(text)), flush=True)


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def nothing_there():
    for binary in ("mysql", "mariadbd", "rabbitmq-server", "rabbitmqctl"):
        expect(shutil.which(binary, path="/usr/bin:/usr/sbin") is None,
               "%s is already installed: the root is not pristine" % binary)
    for port in (3306, 5672):
        expect(not infra.port_open(port), "port %d is already open in the namespace" % port)


def database_and_vhost():
    expect(infra.ensure_database(DB, DB, PASSWORD) is True, "first ensure_database not new")
    expect(infra.ensure_database(DB, DB, PASSWORD) is False, "second ensure_database new")
    expect(infra.ensure_vhost(VHOST) is True, "first ensure_vhost not new")
    expect(infra.ensure_vhost(VHOST) is False, "second ensure_vhost new")


def pymysql_as_service_user():
    import pymysql

    url = urllib.parse.urlsplit(infra.db_url(DB, DB, PASSWORD))
    conn = pymysql.connect(host=url.hostname, port=url.port, user=url.username,
                           password=url.password, database=url.path.lstrip("/"),
                           charset="utf8mb4")
    try:
        with conn.cursor() as cur:
            cur.execute("CREATE TABLE probe (id INT PRIMARY KEY, name VARCHAR(20))")
            cur.execute("INSERT INTO probe VALUES (1, 'ünïcode')")
            conn.commit()
            cur.execute("SELECT name FROM probe WHERE id = 1")
            expect(cur.fetchone() == ("ünïcode",), "row did not round-trip")
    finally:
        conn.close()
    expect(infra.table_count(DB) == 1, "table_count(%s) != 1" % DB)


def amqp_as_guest():
    import amqp

    url = urllib.parse.urlsplit(infra.rabbit_url(VHOST))
    conn = amqp.Connection(host="%s:%d" % (url.hostname, url.port), userid=url.username,
                           password=url.password, virtual_host=url.path.lstrip("/"))
    conn.connect()
    try:
        chan = conn.channel()
        chan.queue_declare("engine", durable=False, auto_delete=False)
        chan.basic_publish(amqp.Message("ping"), routing_key="engine")
        msg = None
        deadline = time.monotonic() + 10
        while msg is None and time.monotonic() < deadline:
            msg = chan.basic_get("engine", no_ack=True)
            if msg is None:
                time.sleep(0.2)
        expect(msg is not None and msg.body in ("ping", b"ping"), "message did not round-trip")
        chan.basic_consume("engine", callback=lambda m: None)
        expect(infra.queue_consumers(VHOST, "engine") == 1, "queue_consumers != 1")
    finally:
        conn.close()


def cleanup_helpers():
    infra.drop_database(DB)
    expect(not infra.mysql("SHOW DATABASES LIKE '%s';" % DB).strip(), "database still there")
    infra.delete_vhost(VHOST)
    code, out = infra.run(["rabbitmqctl", "-q", "list_vhosts"], check=False, timeout=120)
    expect(code == 0 and VHOST not in out.split(), "vhost still there: %s" % out)


def _wait_closed(port, timeout=60):
    deadline = time.monotonic() + timeout
    while infra.port_open(port):
        if time.monotonic() > deadline:
            raise AssertionError("port %d still open after stopping" % port)
        time.sleep(0.5)


def stop_both():
    subprocess.run(["mysqladmin", "-uroot", "shutdown"], check=True, timeout=120)
    subprocess.run(["rabbitmqctl", "stop"], check=True, timeout=120)
    _wait_closed(3306)
    _wait_closed(5672)


def stop_mariadb_and_empty_datadir():
    """What an image that dropped /var/lib/mysql, or a postinst that could not run, leaves."""
    subprocess.run(["mysqladmin", "-uroot", "shutdown"], check=True, timeout=120)
    _wait_closed(3306)
    for name in os.listdir("/var/lib/mysql"):
        path = os.path.join("/var/lib/mysql", name)
        if os.path.isdir(path):
            shutil.rmtree(path)
        else:
            os.remove(path)


def database_after_init():
    expect(infra.ensure_database(DB, DB, PASSWORD) is True, "database survived the wipe")
    pymysql_as_service_user()


def no_apt(*packages):
    raise AssertionError("apt_install%r called although the packages are installed" % (packages,))


def main():
    t0 = time.monotonic()
    step("nothing installed, ports 3306/5672 closed", nothing_there)
    step("ensure_mariadb: apt-get install + start", infra.ensure_mariadb)
    step("ensure_rabbitmq: apt-get install + start", infra.ensure_rabbitmq)
    step("ensure_database / ensure_vhost (twice each)", database_and_vhost)
    step("PyMySQL over TCP as the database's own user", pymysql_as_service_user)
    step("AMQP as guest on the new vhost, queue_consumers", amqp_as_guest)
    step("drop_database / delete_vhost", cleanup_helpers)
    step("stop both servers", stop_both)
    infra.apt_install = no_apt
    step("ensure_mariadb: installed but stopped -> start", infra.ensure_mariadb)
    step("ensure_rabbitmq: installed but stopped -> start", infra.ensure_rabbitmq)
    step("ensure_database / ensure_vhost after restart", database_and_vhost)
    step("ensure_* when both already run (no-op)",
         lambda: (infra.ensure_mariadb(), infra.ensure_rabbitmq()))
    step("stop MariaDB, empty its data directory", stop_mariadb_and_empty_datadir)
    step("ensure_mariadb: empty data dir -> install-db + start", infra.ensure_mariadb)
    step("ensure_database + PyMySQL on the new data dir", database_after_init)
    step("stop both servers", stop_both)
    print("[check] all steps passed in %.1f s" % (time.monotonic() - t0), flush=True)


if __name__ == "__main__":
    main()
