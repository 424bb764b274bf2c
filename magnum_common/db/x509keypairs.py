"""x509keypair rows: certificates stored in the database by the x509keypair cert backend."""

from __future__ import annotations

from magnum_common import exception
from magnum_common.db import api, models


class X509KeyPairRepository(api.Repository[models.X509KeyPair]):
    model = models.X509KeyPair
    not_found = exception.X509KeyPairNotFound
    not_found_arg = "x509keypair"
    already_exists = exception.X509KeyPairAlreadyExists
    filterable = ("project_id", "user_id")


x509keypairs = X509KeyPairRepository()
