"""localcloud's own commands and helpers: status, env, the etcd discovery stand-in."""

from __future__ import annotations

import configparser
import json
import subprocess
import urllib.request


def test_status_reports_every_service_up_with_memory(localcloud, lc):
    res = subprocess.run([str(lc.LOCALCLOUD), "status", "--json"], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    st = json.loads(res.stdout)
    names = {s["service"] for s in st["services"]}
    assert {"keystone", "heat-api", "heat-engine", "barbican", "glance", "nodesim",
            "etcd-discovery"} <= names
    for s in st["services"]:
        assert s["running"] and s["answers"], s
        assert s["pss_mib"] > 0 and s["rss_mib"] >= s["pss_mib"], s


def test_env_prints_exports(localcloud, lc):
    out = subprocess.run([str(lc.LOCALCLOUD), "env"], capture_output=True, text=True,
                         check=True).stdout
    exports = dict(line[len("export "):].split("=", 1) for line in out.splitlines()
                   if line.startswith("export "))
    assert exports["OS_CLOUD"] == "localcloud-demo"
    assert exports["OS_CLIENT_CONFIG_FILE"].endswith("clouds.yaml")
    assert exports["LOCALCLOUD_MAGNUM_CONF"].endswith("magnum-localcloud.conf")


def test_etcd_discovery_stand_in(localcloud):
    conf = configparser.RawConfigParser()
    conf.read(localcloud["state_dir"] / "magnum-localcloud.conf")
    fmt = conf.get("cluster", "etcd_discovery_service_endpoint_format")
    with urllib.request.urlopen(fmt % {"size": 3}, timeout=10) as resp:
        discovery_url = resp.read().decode().strip()
    assert discovery_url.startswith("http://127.0.0.1:")
    with urllib.request.urlopen(discovery_url + "/_config/size", timeout=10) as resp:
        assert json.loads(resp.read())["node"]["value"] == "3"
