"""magnum_service rows: one per (host, binary), the heartbeat behind ``/v1/mservices``."""

from __future__ import annotations

import datetime

import sqlalchemy as sa
from oslo_db import exception as db_exc

from magnum_common import exception
from magnum_common.config import CONF
from magnum_common.db import api, models
from magnum_common.db.clock import db_now


class MagnumServiceRepository(api.Repository[models.MagnumService]):
    model = models.MagnumService
    not_found = exception.MagnumServiceNotFound
    not_found_arg = "magnum_service_id"
    already_exists = exception.MagnumServiceAlreadyExists
    project_scoped = False

    def get_by_host_and_binary(self, host: str, binary: str) -> models.MagnumService | None:
        query = sa.select(models.MagnumService).where(
            models.MagnumService.host == host, models.MagnumService.binary == binary
        )
        with api.reader() as session:
            return session.scalars(query).first()

    def heartbeat(self, host: str, binary: str) -> models.MagnumService:
        """Get-or-create the row and count one report; ``last_seen_up`` becomes now on the
        database server's clock (the clock liveness is judged by)."""
        now = db_now()
        with api.writer() as session:
            updated = session.execute(
                sa.update(models.MagnumService)
                .where(models.MagnumService.host == host,
                       models.MagnumService.binary == binary)
                .values(report_count=models.MagnumService.report_count + 1,
                        last_seen_up=now, updated_at=now)
            ).rowcount
        if not updated:
            try:
                with api.writer() as session:
                    session.add(models.MagnumService(
                        host=host, binary=binary, report_count=1, last_seen_up=now))
            except db_exc.DBDuplicateEntry:
                return self.heartbeat(host, binary)
        return self.get_by_host_and_binary(host, binary)

    # --- the processes of a service ---------------------------------------------------
    def process_heartbeat(self, identity: str, host: str, binary: str) -> None:
        """Count one report of the process ``identity`` (database clock); rows of processes
        silent for ten times ``service_down_time`` go on the way (they died unannounced)."""
        process = models.MagnumServiceProcess
        now = db_now()
        with api.writer() as session:
            updated = session.execute(
                sa.update(process).where(process.identity == identity)
                .values(last_seen_up=now, updated_at=now)).rowcount
            session.execute(sa.delete(process).where(
                process.binary == binary,
                process.last_seen_up < db_now(-10 * CONF.service_down_time)))
        if not updated:
            try:
                with api.writer() as session:
                    session.add(process(identity=identity, host=host, binary=binary,
                                        last_seen_up=now))
            except db_exc.DBDuplicateEntry:
                self.process_heartbeat(identity, host, binary)

    def forget_process(self, identity: str) -> None:
        """A process that stops cleanly leaves the ring at once."""
        process = models.MagnumServiceProcess
        with api.writer() as session:
            session.execute(sa.delete(process).where(process.identity == identity))

    def live_processes(self, binary: str) -> list[str]:
        """Identities of the processes of ``binary`` that reported within
        ``service_down_time`` (database clock) and whose service is neither disabled nor
        forced down."""
        process, service = models.MagnumServiceProcess, models.MagnumService
        query = (sa.select(process.identity)
                 .join(service, sa.and_(service.host == process.host,
                                        service.binary == process.binary))
                 .where(process.binary == binary,
                        process.last_seen_up >= db_now(-CONF.service_down_time),
                        sa.not_(sa.func.coalesce(service.disabled, False)),
                        sa.not_(sa.func.coalesce(service.forced_down, False)))
                 .order_by(process.identity))
        with api.reader() as session:
            return list(session.scalars(query).all())

    def list_all(self) -> list[models.MagnumService]:
        with api.reader() as session:
            return list(session.scalars(
                sa.select(models.MagnumService).order_by(models.MagnumService.id)).all())

    def destroy_by_id(self, id_: int) -> None:
        with api.writer() as session:
            session.execute(sa.delete(models.MagnumService).where(models.MagnumService.id == id_))


def is_up(service: models.MagnumService, now: datetime.datetime | None = None) -> bool:
    """Up unless forced down or silent for longer than ``service_down_time``, measured on
    the database server's clock (``now``: read once for many rows)."""
    if service.forced_down:
        return False
    last = service.last_seen_up or service.updated_at or service.created_at
    if last is None:
        return False
    now = now or api.server_now()
    return abs((now - last).total_seconds()) <= CONF.service_down_time


magnum_services = MagnumServiceRepository()
