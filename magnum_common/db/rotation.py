"""Moving every stored secret to the current ``[crypto]`` key (``magnum-db-manage reencrypt``).

Secrets sit in many places (``cluster.trustee_password``, the x509keypair backend's private
keys and passphrases, the requester's sealed token in a recorded operation, any table a later
change adds): rather than a list that goes stale, every text or JSON value of every mapped
table that is a token of ours is re-encrypted (``crypto.reencrypt`` / ``crypto.reseal_in``),
row by row, each row in its own short transaction. Values that are no token of ours, or that
no configured key opens, are left untouched. Run after putting the new key in
``encryption_key`` and the old one in ``previous_encryption_keys`` on every host; once it has run,
the old key can be removed (running it again only re-encrypts with the current key).
"""

from __future__ import annotations

import sqlalchemy as sa

from magnum_common import crypto
from magnum_common.db import api as db_api
from magnum_common.db import models


def reencrypt_all() -> int:
    """Re-encrypt every stored token with the current key; how many were moved."""
    moved = 0
    for table in models.Base.metadata.sorted_tables:
        keys = list(table.primary_key.columns)
        with db_api.reader() as session:
            rows = session.execute(sa.select(table)).mappings().all()
        for row in rows:
            changes = {}
            for column in table.columns:
                value, count = crypto.reseal_in(row[column.name])
                if count:
                    changes[column.name] = value
                    moved += count
            if changes:
                with db_api.writer() as session:
                    session.execute(sa.update(table).where(
                        *[key == row[key.name] for key in keys]).values(**changes))
    return moved
