"""Small helpers: identifiers, generated names and passwords."""

from __future__ import annotations

import base64
import random
import secrets
import uuid

from oslo_utils import uuidutils

from magnum_common.config import CONF

GREEK_LETTERS = (
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
    "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau",
    "upsilon", "phi", "chi", "psi", "omega",
)


def generate_uuid() -> str:
    return str(uuid.uuid4())


def is_uuid_like(value: object) -> bool:
    return uuidutils.is_uuid_like(value)


def short_id(value: uuid.UUID | str | None = None) -> str:
    """A 12-character lower-case base32 id; deterministic when derived from a UUID."""
    raw = uuid.UUID(str(value)).bytes if value is not None else uuid.uuid4().bytes
    return base64.b32encode(raw[:8]).decode("ascii").rstrip("=").lower()[:12]


def generate_name(kind: str = "cluster") -> str:
    """A readable default name, e.g. ``delta-7-cluster``."""
    return f"{random.choice(GREEK_LETTERS)}-{random.randint(1, 24)}-{kind}"


def generate_password(length: int = 18) -> str:
    """A random password with at least one symbol of each configured group."""
    groups = CONF.password_symbols
    chars = [secrets.choice(group) for group in groups]
    alphabet = "".join(groups)
    chars += [secrets.choice(alphabet) for _ in range(length - len(chars))]
    secrets.SystemRandom().shuffle(chars)
    return "".join(chars)


def catalog_interface(endpoint_type: str | None) -> str:
    """``publicURL`` -> ``public``: an ``endpoint_type`` option as a catalog interface name."""
    value = (endpoint_type or "public").lower()
    return value[:-3] if value.endswith("url") else value
