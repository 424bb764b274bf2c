"""Cluster health from the Kubernetes API itself: ``/healthz`` and the nodes' Ready state."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from typing import Any

import requests

from drivers.heat.conf import CONF
from magnum_common import states


@contextlib.contextmanager
def _pem_files(ca: str, cert: str, key: str) -> Iterator[tuple[str, str, str]]:
    """requests wants file paths; the files live only for one poll, readable by us only."""
    with tempfile.TemporaryDirectory(prefix="magnum-health-") as tmp:
        paths = []
        for name, text in (("ca.pem", ca), ("cert.pem", cert), ("key.pem", key)):
            path = os.path.join(tmp, name)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(text)
            paths.append(path)
        yield paths[0], paths[1], paths[2]


class K8sMonitor:
    """Polls one cluster's API. Never raises: an unreachable API is ``UNKNOWN``."""

    def __init__(self, api_address: str | None,
                 certificates: tuple[str, str, str] | None) -> None:
        self.api_address = (api_address or "").rstrip("/")
        self.certificates = certificates

    def _get(self, session: requests.Session, path: str, **kwargs: Any) -> requests.Response:
        return session.get(self.api_address + path, timeout=CONF.kubernetes.health_check_timeout,
                           **kwargs)

    def _poll(self, **kwargs: Any) -> tuple[str, dict[str, Any]]:
        with requests.Session() as session:
            health = self._get(session, "/healthz", **kwargs)
            if health.status_code != 200 or health.text.strip() != "ok":
                return states.UNHEALTHY, {"api": health.text.strip()[:200] or
                                          f"HTTP {health.status_code}"}
            reason: dict[str, Any] = {"api": "ok"}
            nodes = self._get(session, "/api/v1/nodes", **kwargs)
            if nodes.status_code != 200:
                reason["nodes"] = f"HTTP {nodes.status_code}"
                return states.UNKNOWN, reason
            healthy = True
            for node in nodes.json().get("items", []):
                name = node.get("metadata", {}).get("name", "?")
                ready = next((c.get("status") for c in node.get("status", {})
                              .get("conditions", []) if c.get("type") == "Ready"), "Unknown")
                reason[f"{name}.Ready"] = ready == "True"
                healthy = healthy and ready == "True"
            return (states.HEALTHY if healthy else states.UNHEALTHY), reason

    def poll_health(self) -> tuple[str, dict[str, Any]]:
        if not self.api_address:
            return states.UNKNOWN, {"api": "the cluster has no API address yet"}
        try:
            if self.api_address.startswith("https://"):
                if not self.certificates:
                    return states.UNKNOWN, {"api": "no client certificates for the cluster"}
                with _pem_files(*self.certificates) as (ca, cert, key):
                    return self._poll(verify=ca, cert=(cert, key))
            return self._poll()
        except requests.RequestException as e:
            return states.UNKNOWN, {"api": f"unreachable: {type(e).__name__}: {e}"[:300]}
        except OSError as e:
            return states.UNKNOWN, {"api": f"client certificates unusable: {e}"[:300]}
        except ValueError as e:
            return states.UNKNOWN, {"api": f"unreadable answer: {e}"[:300]}
