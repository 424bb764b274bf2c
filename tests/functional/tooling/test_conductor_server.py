"""magnum-conductor as operators run it: a clean start.

The real ``magnum-conductor`` command (cotyledon master and one worker) on a migrated
SQLite database, the shared RabbitMQ (a topic of its own) and the options an operator's
magnum.conf sets (Keystone, trust, Barbican, clients; nothing is contacted without
clusters), run until its periodic loops have gone round a few times.
"""

from __future__ import annotations

import pathlib
import signal
import subprocess
import sys
import time
import uuid

import sqlalchemy as sa

MAGNUM_CONDUCTOR = pathlib.Path(sys.executable).parent / "magnum-conductor"
#: What no clean start prints (oslo.log levels, Python warnings, tracebacks).
NOISE = ("WARNING", "ERROR", "CRITICAL", "Traceback", "Warning:")
OPERATOR_OPTIONS = """
[keystone_auth]
auth_type = password
auth_url = http://127.0.0.1:5000/v3
username = magnum
password = secret
project_name = service
user_domain_name = Default
project_domain_name = Default

[trust]
cluster_user_trust = true
trustee_domain_name = magnum
trustee_domain_admin_name = trustee_domain_admin
trustee_domain_admin_password = secret

[certificates]
cert_manager_type = barbican

[heat_client]
region_name = RegionOne
endpoint_type = publicURL

[kubernetes]
health_polling_interval = 1
"""


def _heartbeats(db: str, host: str) -> int:
    engine = sa.create_engine(db)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text(
                "SELECT report_count FROM magnum_service WHERE host = :host"),
                {"host": host}).scalar() or 0
    finally:
        engine.dispose()


def test_a_clean_start_prints_no_warning(db, tmp_path):
    """No EventletDeprecationWarning (threading backend), no unknown-option or deprecation
    warning, no traceback, while the worker starts and its loops run."""
    host = f"clean-{uuid.uuid4().hex[:6]}"
    conf = tmp_path / "magnum.conf"
    conf.write_text(f"""[DEFAULT]
host = {host}
transport_url = rabbit://guest:guest@127.0.0.1:5672/
[database]
connection = {db}
[conductor]
workers = 1
topic = magnum-conductor-{host}
report_interval = 1
sync_interval = 1
reconcile_interval = 1
{OPERATOR_OPTIONS}""")
    log = tmp_path / "magnum-conductor.log"
    with open(log, "w") as stream:
        process = subprocess.Popen([str(MAGNUM_CONDUCTOR), "--config-file", str(conf)],
                                   stdout=stream, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while _heartbeats(db, host) < 3:  # the loops went round: started, nothing to say
            assert process.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.3)
        started = log.read_text()
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    noisy = [line for line in started.splitlines() if any(word in line for word in NOISE)]
    assert noisy == [], started
    assert "eventlet" not in started.lower()
    assert " INFO magnum_conductor.service [-] Conductor " in started
    assert process.returncode == 0, log.read_text()[-3000:]
