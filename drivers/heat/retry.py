"""Retrying Heat calls that failed for a transient reason (5xx, connection, timeout).

Only failures that say nothing about the request itself are retried, with exponential
back-off; after the last attempt ``HeatUnavailable`` carries a message that ends up, as is,
in the cluster's ``status_reason``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import tenacity
from heatclient import exc as heat_exc
from keystoneauth1 import exceptions as ks_exc
from oslo_config import cfg
from oslo_log import log as logging

from magnum_common import exception

CONF = cfg.CONF
LOG = logging.getLogger(__name__)
T = TypeVar("T")

retry_opts = [
    cfg.IntOpt("heat_attempts", default=4, min=1,
               help="Attempts of a Heat request that fails with a 5xx, a connection error "
               "or a timeout before the operation is marked failed."),
    cfg.FloatOpt("heat_backoff", default=1.0, min=0,
                 help="First back-off in seconds between Heat attempts; doubles each time."),
    cfg.FloatOpt("heat_backoff_max", default=20.0, min=0,
                 help="Longest back-off in seconds between two Heat attempts."),
]
CONF.register_opts(retry_opts, group="conductor")


def status_code(exc: BaseException) -> int | None:
    code = getattr(exc, "code", None) or getattr(exc, "http_status", None)
    return code if isinstance(code, int) else None


def is_transient(exc: BaseException) -> bool:
    """5xx answers, refused / dropped connections and timeouts."""
    if isinstance(exc, (ks_exc.ConnectFailure, ks_exc.ConnectTimeout, ks_exc.ConnectionError,
                        ks_exc.RetriableConnectionFailure, heat_exc.CommunicationError,
                        ks_exc.http.HttpServerError, ks_exc.GatewayTimeout)):
        return True
    if isinstance(exc, (heat_exc.HTTPException, ks_exc.HttpError)):
        code = status_code(exc)
        return code is not None and code >= 500
    return isinstance(exc, (TimeoutError, ConnectionError))


def is_not_found(exc: BaseException) -> bool:
    return isinstance(exc, (heat_exc.HTTPNotFound, ks_exc.NotFound)) or (
        status_code(exc) == 404)


def is_conflict(exc: BaseException) -> bool:
    return isinstance(exc, (heat_exc.HTTPConflict, ks_exc.Conflict)) or status_code(exc) == 409


def call(func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``func(*args, **kwargs)`` with transient Heat failures retried."""
    attempts = CONF.conductor.heat_attempts
    retrying = tenacity.Retrying(
        stop=tenacity.stop_after_attempt(attempts),
        wait=tenacity.wait_exponential(multiplier=CONF.conductor.heat_backoff,
                                       max=CONF.conductor.heat_backoff_max),
        retry=tenacity.retry_if_exception(is_transient),
        before_sleep=lambda state: LOG.warning(
            "Heat request failed (%s), attempt %d of %d", state.outcome.exception(),
            state.attempt_number, attempts),
        reraise=True,
    )
    try:
        return retrying(func, *args, **kwargs)
    except Exception as exc:
        if is_transient(exc):
            raise exception.HeatUnavailable(attempts=attempts, error=_describe(exc)) from exc
        raise


def _describe(exc: BaseException) -> str:
    code = status_code(exc)
    text = str(exc).strip() or type(exc).__name__
    return f"HTTP {code}: {text}" if code and str(code) not in text else text


def list_opts():
    return [("conductor", retry_opts)]
