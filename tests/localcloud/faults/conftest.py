"""Fixtures of the fault suite (issue 12): our services on the local cloud, behind proxies.

Every case runs magnum-api and two magnum-conductors as real processes against the local
cloud's real Keystone, Heat and Barbican (through ``faultproxy.py``), the machine's RabbitMQ
and a database of its own. The cases marked ``faults_long`` are the long job
(``tox -e faults``, or ``MAGNUM_FAULTS_LONG=1``); the others are the CI subset, which covers
each mechanism once.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import faultharness as fh

LONG = os.environ.get("MAGNUM_FAULTS_LONG") == "1"


def pytest_configure(config):
    config.addinivalue_line("markers", "faults_long: fault case of the long job "
                            "(tox -e faults); deselected unless MAGNUM_FAULTS_LONG=1")


def pytest_collection_modifyitems(config, items):
    if LONG:
        return
    here = Path(__file__).resolve().parent
    long_cases = [i for i in items if i.get_closest_marker("faults_long")
                  and here in Path(str(i.fspath)).resolve().parents]
    if long_cases:
        config.hook.pytest_deselected(items=long_cases)
        items[:] = [i for i in items if i not in long_cases]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("faults")


@pytest.fixture(scope="module")
def proxy(localcloud, run_dir):
    proxy = fh.FaultProxy(run_dir)
    yield proxy
    proxy.stop()


@pytest.fixture(scope="module")
def start_magnum(localcloud, proxy, run_dir):
    """``with start_magnum(backend=..., broker=..., db_address=..., options=...) as m:``
    magnum-api and the conductors ``c1`` and ``c2`` on a fresh database; on exit every
    cluster still there is deleted and the services stop."""

    @contextmanager
    def start(backend: str = "sqlite", conductors: tuple[str, ...] = ("c1", "c2"),
              **kwargs):
        magnum = fh.Magnum(run_dir / f"magnum-{backend}-{len(list(run_dir.iterdir()))}",
                           proxy, backend=backend, **kwargs)
        magnum.prepare()
        try:
            magnum.start_api()
            for name in conductors:
                magnum.start_conductor(name)
            yield magnum
            clean_up(magnum, proxy)
        finally:
            magnum.stop()
            magnum.drop_database()

    return start


def clean_up(magnum: fh.Magnum, proxy: fh.FaultProxy, keep: set[str] = frozenset()) -> None:
    """Delete the clusters a case left (but ``keep``), with the cloud answering again.

    A cluster our services cannot delete is removed from the cloud as admin so that the
    shared cloud stays clean, and the clean-up fails naming it: that is a defect too.
    """
    proxy.reset()
    if not magnum.live_conductors():
        magnum.start_conductor("cleaner")
    api = magnum.api()
    left = [c for c in api.clusters() if c["uuid"] not in keep]
    stuck = []
    for cluster in left:
        try:
            fh.wait_for(lambda c=cluster: api.delete(c["uuid"]).status_code in (202, 204, 404),
                        fh.BOUND["update"], f"DELETE of {cluster['uuid']} accepted", 5)
            api.wait_gone(cluster["uuid"], fh.BOUND["delete"])
        except AssertionError as exc:
            stuck.append((cluster, exc))
    for cluster, _ in stuck:
        fh.Cloud().purge(cluster)
    assert not stuck, "clusters our services could not delete (purged as admin): " + \
        "; ".join(f"{c['name']} {c['uuid']}: {exc}" for c, exc in stuck)


@pytest.fixture(scope="module")
def magnum(start_magnum):
    """The module's services on SQLite (most cases need nothing else)."""
    with start_magnum() as magnum:
        yield magnum


@pytest.fixture
def fleet(magnum, proxy):
    """Before each case: the cloud answers, and conductors c1 and c2 run; after it, the
    clusters it made are deleted (but those in ``magnum.keep``)."""
    proxy.reset()
    for name in ("c1", "c2"):
        if name not in magnum.conductors or not magnum.conductors[name].alive():
            magnum.start_conductor(name)
    yield magnum
    clean_up(magnum, proxy, magnum.keep)


@pytest.fixture(scope="module")
def api(magnum) -> fh.Api:
    return magnum.api()


@pytest.fixture(scope="module")
def template(api) -> dict:
    return api.create_template(fh.new_name("tpl"))


@pytest.fixture(scope="module")
def new_template(api) -> dict:
    return api.create_template(fh.new_name("tpl-new"), kube_tag=fh.NEW_KUBE_TAG)


@pytest.fixture(scope="session")
def cloud(localcloud) -> fh.Cloud:
    return fh.Cloud()
