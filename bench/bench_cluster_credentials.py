#!/usr/bin/env python3
"""Time a cluster's credentials: certificates (generated, then stored) and trustee + trust.

Target: all certificates of a cluster + its trust in <= 1 s (median). Without the local
cloud only generation and the local file backend are measured; with it (``tools/localcloud
status`` up) certificates go to the real Barbican and the trust to the real
Keystone, as the demo user. Everything created is deleted again.

    .venv/bin/python bench/bench_cluster_credentials.py [--clusters 20] [--key-algorithm ec]
"""

from __future__ import annotations

import argparse
import configparser
import json
import statistics
import subprocess
import sys
import tempfile
import time
import types
import uuid
from pathlib import Path

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

from localcloud.config import login
from localcloud.layout import Layout
from magnum_common import config, crypto
from magnum_common.context import RequestContext
from magnum_conductor.identity import keystone, trust
from magnum_conductor.pki import cluster_certs, x509

CONF = cfg.CONF
REPO = Path(__file__).resolve().parents[1]


def _cloud_state() -> Path | None:
    res = subprocess.run([str(REPO / "tools/localcloud"), "status", "--json"],
                         capture_output=True, text=True, timeout=120)
    try:
        status = json.loads(res.stdout)
    except ValueError:
        return None
    return Path(status["state_dir"]) if status.get("up") else None


def _use_cloud(state: Path) -> RequestContext:
    """Apply the cloud's conductor options; log in as demo like the API would see it."""
    CONF.register_opts(ks_loading.get_auth_plugin_conf_options("password"), "keystone_auth")
    ini = configparser.RawConfigParser()
    ini.read(state / "magnum-localcloud.conf")
    for group in ("keystone_auth", "trust", "barbican_client", "certificates"):
        for name, value in ini.items(group):
            CONF.set_override(name, value, group)
    token, info = login(Layout(str(state)), "demo")
    return RequestContext(auth_token=token, auth_token_info=info,
                          user_id=info["token"]["user"]["id"],
                          project_id=info["token"]["project"]["id"],
                          roles=[r["name"] for r in info["token"]["roles"]])


def _timed(fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def _report(label: str, samples: list[float]) -> None:
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    print(f"{label:<48} median {statistics.median(samples) * 1000:8.1f} ms"
          f"   p90 {p90 * 1000:8.1f} ms   n={len(samples)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=20)
    parser.add_argument("--key-algorithm", choices=["ec", "rsa"], default="ec")
    args = parser.parse_args()

    config.parse_args([], default_config_files=[])
    CONF.set_override("key_algorithm", args.key_algorithm, "x509")
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    storage = tempfile.TemporaryDirectory(prefix="bench-certs-")
    CONF.set_override("storage_path", storage.name, "certificates")
    CONF.set_override("cert_manager_type", "local", "certificates")
    state = _cloud_state()
    owner = _use_cloud(state) if state else RequestContext(user_id="u", project_id="p")
    backend = CONF.certificates.cert_manager_type
    print(f"key algorithm {args.key_algorithm}; certificate backend {backend}; "
          f"trust {'real Keystone' if state else 'skipped (local cloud down)'}")

    generate, store, trusts, total, delete = [], [], [], [], []
    for _ in range(args.clusters):
        cluster = types.SimpleNamespace(
            uuid=str(uuid.uuid4()), name="bench", project_id=owner.project_id,
            user_id=owner.user_id, trustee_user_id=None, trustee_password=None,
            trust_id=None, **dict.fromkeys(cluster_certs.REF_FIELDS))
        generate.append(_timed(x509.generate_cluster_certificates, cluster.name)[1])
        refs, took = _timed(cluster_certs.create_for_cluster, owner, cluster)
        store.append(took)
        vars(cluster).update(refs)
        spent = took
        if state:
            values, took = _timed(trust.create_trustee_and_trust, owner, cluster)
            trusts.append(took)
            vars(cluster).update(values)
            spent += took
        total.append(spent)
        start = time.perf_counter()
        cluster_certs.delete_for_cluster(owner, cluster)
        if state:
            trust.delete_trustee_and_trust(owner, cluster)
        delete.append(time.perf_counter() - start)

    _report("certificates generated (3 CAs + client)", generate)
    _report(f"certificates generated + stored ({backend})", store)
    if trusts:
        _report("trustee + trust (Keystone)", trusts)
    _report("cluster credentials total (target <= 1000 ms)", total)
    _report("delete certificates" + (" + trust" if state else ""), delete)
    keystone.reset_cache()
    storage.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
