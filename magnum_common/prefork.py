"""What a forking master (magnum-api's gunicorn, magnum-conductor's cotyledon) does before
its workers start, so that they share its pages copy-on-write."""

from __future__ import annotations

import gc

import sqlalchemy as sa
from oslo_config import cfg

from magnum_common import rpc


def import_backends() -> None:
    """Import the database dialect and driver and the messaging driver, which a worker
    would otherwise import on its first use. The transport object is built and dropped at
    once: it connects only when used, and a worker must never inherit a connection."""
    sa.engine.make_url(cfg.CONF.database.connection).get_dialect().import_dbapi()
    rpc.get_transport()
    rpc.cleanup()


def freeze() -> None:
    """Everything alive now is shared with the workers forked next and never collected:
    their collections do not touch (and so do not copy) these objects."""
    gc.collect()
    gc.freeze()
