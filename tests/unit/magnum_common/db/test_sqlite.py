"""SQLite file databases (magnum_common.db.sqlite): WAL, a busy timeout, and write transactions
that hold the write lock from BEGIN while read transactions take none."""

from __future__ import annotations

import sqlite3
import threading
import warnings

import sqlalchemy as sa

from magnum_common import config
from magnum_common.context import make_admin_context
from magnum_common.db import api, models
from magnum_common.db.nodegroups import nodegroups


def _path(url: str) -> str:
    return sa.engine.make_url(url).database


def _other_connection(url: str) -> sqlite3.Connection:
    """Another process's view of the file: no busy timeout, explicit transactions."""
    return sqlite3.connect(_path(url), timeout=0, isolation_level=None)


def _pragma(name: str) -> object:
    with api.reader() as session:
        return session.execute(sa.text(f"PRAGMA {name}")).scalar_one()


def _seed(node_count: int = 0) -> str:
    return nodegroups.create(None, {"name": "ng", "cluster_id": "c", "project_id": "p",
                                    "node_count": node_count}).uuid


def test_file_database_in_wal_mode_with_the_configured_busy_timeout(db):
    assert _pragma("journal_mode") == "wal"
    assert _pragma("busy_timeout") == 30000
    config.CONF.set_override("sqlite_busy_timeout", 2.5, "database")
    api.reset_engine()
    assert _pragma("busy_timeout") == 2500


def test_timeout_in_the_connection_url_wins(db):
    config.CONF.set_override("connection", db + "?timeout=7", "database")
    api.reset_engine()
    assert _pragma("busy_timeout") == 7000


def test_a_file_in_rollback_journal_mode_is_switched(db):
    api.reset_engine()
    other = _other_connection(db)
    assert other.execute("PRAGMA journal_mode = DELETE").fetchone() == ("delete",)
    other.close()
    assert _pragma("journal_mode") == "wal"


def test_writer_holds_the_write_lock_from_begin(db):
    other = _other_connection(db)
    with api.writer():
        try:
            other.execute("BEGIN IMMEDIATE")
            raise AssertionError("another connection took the write lock inside a writer")
        except sqlite3.OperationalError as exc:
            assert "database is locked" in str(exc)
    other.execute("BEGIN IMMEDIATE")  # released at COMMIT
    other.execute("ROLLBACK")


def test_reader_takes_no_lock_and_reads_beside_a_writer(db):
    uuid = _seed(1)
    other = _other_connection(db)
    with api.reader() as session:
        assert session.scalars(sa.select(models.NodeGroup.node_count)).one() == 1
        other.execute("BEGIN IMMEDIATE")  # a writer elsewhere is not kept out by the reader
        other.execute("UPDATE nodegroup SET node_count = 2")
        other.execute("COMMIT")
    with api.writer():
        # a reader inside a writer: deferred, so not kept waiting for the write lock
        assert nodegroups.get_by_uuid(None, uuid).node_count == 2


def test_writer_waits_for_another_writer_and_reads_after_its_commit(db):
    """Deferred, it would have read 0 before the other commits and then failed to write."""
    uuid = _seed(0)
    other = _other_connection(db)
    other.execute("BEGIN IMMEDIATE")
    other.execute("UPDATE nodegroup SET node_count = 5")
    outcome: list[object] = []
    done = threading.Event()

    def read_modify_write() -> None:
        try:
            with api.writer() as session:
                row = session.scalars(sa.select(models.NodeGroup)).one()
                row.node_count += 1
            outcome.append("committed")
        except Exception as exc:
            outcome.append(exc)
        done.set()

    worker = threading.Thread(target=read_modify_write)
    worker.start()
    assert not done.wait(0.5)  # it cannot finish while the other holds the lock, nor fail
    other.execute("COMMIT")
    worker.join()
    assert outcome == ["committed"]
    assert nodegroups.get_by_uuid(None, uuid).node_count == 6


def test_nested_writer_joins_the_outer_transaction(db):
    uuid = _seed(0)
    context = make_admin_context()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "execution_options ignored" for the inner one
        with api.writer(context) as outer:
            with api.writer(context) as inner:
                assert inner is outer
                inner.scalars(sa.select(models.NodeGroup)).one().node_count = 3
    assert nodegroups.get_by_uuid(None, uuid).node_count == 3


def test_compare_and_swap_on_a_file_database(db):
    uuid = _seed(0)
    assert nodegroups.compare_and_swap(None, uuid, {"node_count": 0}, {"node_count": 1})
    assert not nodegroups.compare_and_swap(None, uuid, {"node_count": 0}, {"node_count": 2})
    assert nodegroups.get_by_uuid(None, uuid).node_count == 1


def test_in_memory_database_is_left_alone():
    config.CONF.set_override("connection", "sqlite://", "database")
    api.reset_engine()
    try:
        models.Base.metadata.create_all(api.get_engine())
        assert _pragma("journal_mode") == "memory"
        uuid = _seed(4)
        assert nodegroups.get_by_uuid(None, uuid).node_count == 4
    finally:
        api.reset_engine()
