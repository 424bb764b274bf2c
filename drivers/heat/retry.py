"""Heat calls retried when they fail for a transient reason (5xx, connection, timeout).

Only failures that say nothing about the request itself are retried, with exponential
back-off; after the last attempt ``HeatUnavailable`` carries a message that ends up, as is,
in the cluster's ``status_reason``. A 409 (the stack is busy with an earlier change)
becomes the driver contract's ``StackBusy``, with Heat's message.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import tenacity
from heatclient import exc as heat_exc
from keystoneauth1 import exceptions as ks_exc
from oslo_log import log as logging

from drivers.heat.conf import CONF
from magnum_common import exception, outbound

LOG = logging.getLogger(__name__)
T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


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
    except exception.MagnumException:
        raise
    except Exception as exc:
        if is_transient(exc):
            failed = outbound.unanswered()
            if failed is not None and failed.service != "Heat":  # e.g. Keystone's token
                raise exception.ServiceTimedOut(call=failed.describe()) from exc
            raise exception.HeatUnavailable(attempts=attempts, error=_describe(exc)) from exc
        if is_conflict(exc):
            raise exception.StackBusy(str(exc).strip() or None) from exc
        raise


def operation(missing_ok: bool = False) -> Callable[[F], F]:
    """Decorate a driver operation: run it whole again on a transient Heat failure (every
    step of one is idempotent); ``missing_ok``: a stack Heat does not know is deleted."""
    def decorate(method: F) -> F:
        @functools.wraps(method)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return call(method, *args, **kwargs)
            except Exception as exc:
                if missing_ok and is_not_found(exc):
                    return None
                raise
        return run  # type: ignore[return-value]
    return decorate


def _describe(exc: BaseException) -> str:
    code = status_code(exc)
    text = str(exc).strip() or type(exc).__name__
    return f"HTTP {code}: {text}" if code and str(code) not in text else text
