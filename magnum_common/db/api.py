"""The session factory (oslo.db enginefacade) and the generic repository every table uses.

Reads and writes see the caller's rows only (:mod:`magnum_common.db.scoping` says which), so
a row of another project is "not found" (404).

A repository reads two ways. ORM objects (``get``, ``list``) for the read-modify-write
paths. Plain rows (``row``, ``rows``, in a :func:`reading` connection) for the GET handlers,
which only render columns into JSON: there ORM instances and a statement rebuilt on every
request cost more than the rest of the request, so each row statement is built once per
repository and caller kind, with bind parameters for what varies between requests (SQLAlchemy
compiles it once per process). Both ways share the lookup, scoping and paging rules.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import itertools
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, Generic, TypeVar

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
from oslo_db.sqlalchemy import utils as sqlalchemyutils
from sqlalchemy.engine import Row
from sqlalchemy.orm import Session

from magnum_common import exception
from magnum_common.context import RequestContext, make_admin_context
from magnum_common.db import clock, connections, models, scoping, sqlite
from magnum_common.utils import generate_uuid, is_uuid_like


def _new_facade() -> enginefacade._TransactionContextManager:
    facade = enginefacade.transaction_context()
    facade.configure(sqlite_fk=False, expire_on_commit=False)
    facade.append_on_engine_create(connections.tune)  # fewer round trips per transaction
    facade.append_on_engine_create(sqlite.tune)  # several processes on one SQLite file
    return facade


_facade = _new_facade()

ModelT = TypeVar("ModelT", bound=models.Base)


def get_engine() -> sa.engine.Engine:
    return _facade.writer.get_engine()


def dispose_engine() -> None:
    """Drop pooled connections (after fork)."""
    _facade.dispose_pool()


def reset_engine() -> None:
    """Forget the engine so the next use connects with the current ``[database]`` options."""
    global _facade
    try:
        _facade.dispose_pool()
    except Exception:  # never started: nothing to dispose
        pass
    _facade = _new_facade()


_WRITER_CONNECTED = "magnum_writer_connected"


@contextlib.contextmanager
def writer(context: RequestContext | None = None) -> Iterator[Session]:
    """A write transaction; a nested one with the same context joins the outermost.

    The outermost connects at once with :data:`sqlite.WRITE_TRANSACTION`, so on SQLite it
    holds the write lock from its start (other backends ignore the option): a writer with
    another context opened inside it would wait for that lock until it timed out.
    """
    with _facade.writer.using(context or make_admin_context()) as session:
        if not session.info.get(_WRITER_CONNECTED):
            session.info[_WRITER_CONNECTED] = True
            session.connection(execution_options=sqlite.WRITE_TRANSACTION)
        yield session


@contextlib.contextmanager
def reader(context: RequestContext | None = None) -> Iterator[Session]:
    with _facade.reader.using(context or make_admin_context()) as session:
        yield session


@contextlib.contextmanager
def reading() -> Iterator[sa.Connection]:
    """A connection in a read transaction, for all the row reads of one request.

    A plain connection rather than an ORM session: no session to build and tear down.
    """
    with get_engine().connect() as conn:
        conn.begin()  # closing the connection rolls it back
        yield conn


def as_dict(row: Row) -> dict[str, Any]:
    """Column name -> value, as the ORM objects' ``as_dict()`` (plus any joined column,
    such as a cluster's ``template_labels``): what the views and policy targets take."""
    return dict(zip(row._fields, row, strict=True))


def as_dicts(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """:func:`as_dict` of every row of one result (``Row._fields`` builds a new tuple at
    each call: read once, for the thousand rows of a list)."""
    if not rows:
        return []
    names = rows[0]._fields
    return [dict(zip(names, row, strict=True)) for row in rows]


def validate_sort(sort_key: str | None, sort_dir: str | None, model: type) -> None:
    if sort_dir not in (None, "asc", "desc"):
        raise exception.InvalidParameterValue(
            err=f"Invalid sort direction: {sort_dir}. Acceptable values are 'asc' or 'desc'"
        )
    if sort_key is not None and sort_key not in model.__table__.columns:
        raise exception.InvalidParameterValue(
            err=f'The sort_key value "{sort_key}" is an invalid field for sorting'
        )


class Repository(Generic[ModelT]):
    """CRUD, lookup, pagination and compare-and-swap for one table."""

    model: ClassVar[type[models.Base]]
    not_found: ClassVar[type[exception.ResourceNotFound]] = exception.ResourceNotFound
    not_found_arg: ClassVar[str] = "resource"
    already_exists: ClassVar[type[exception.Conflict]] = exception.Conflict
    duplicate_name_msg: ClassVar[str] = "Multiple resources exist with same name."
    project_scoped: ClassVar[bool] = True
    #: Columns a list may be filtered by (equality; a list value means IN).
    filterable: ClassVar[tuple[str, ...]] = ()

    # --- scoping ---------------------------------------------------------------------
    def kind(self, context: RequestContext | None) -> str:
        """The caller's kind (:func:`scoping.kind`) for this table."""
        return scoping.kind(context)

    def rule(self, kind_: str) -> sa.ColumnElement[bool] | None:
        """The rows a caller of ``kind_`` finds by id, UUID or name (None: all of them)."""
        if not self.project_scoped:
            return None
        return scoping.owned(self.model.__table__, kind_)

    def listing_rule(self, kind_: str, admin: bool) -> sa.ColumnElement[bool] | None:
        """The rows a listing shows a caller of ``kind_``: those it finds, by default."""
        return self.rule(kind_)

    def visible(self, context: RequestContext | None) -> sa.ColumnElement[bool] | None:
        """The rule for the rows ``context`` may see (None: all of them)."""
        return self.rule(self.kind(context))

    def scope(self, query: sa.Select, context: RequestContext | None) -> sa.Select:
        return scoping.restrict(query, self.visible(context), context)

    def _select(self, context: RequestContext | None) -> sa.Select:
        return self.scope(sa.select(self.model), context)

    def _apply_filters(self, query: sa.Select, filters: dict | None) -> sa.Select:
        for key, value in (filters or {}).items():
            if key not in self.filterable:
                raise exception.InvalidParameterValue(err=f"Unknown filter: {key}")
            column = getattr(self.model, key)
            if isinstance(value, (list, tuple, set, frozenset)):
                query = query.where(column.in_(list(value)))
            else:
                query = query.where(column == value)
        return query

    def _raise_not_found(self, ident: object) -> None:
        raise self.not_found(**{self.not_found_arg: ident})

    # --- reads -----------------------------------------------------------------------
    def get_by_id(self, context: RequestContext | None, id_: int) -> ModelT:
        with reader(context) as session:
            row = session.scalars(self._select(context).where(self.model.id == id_)).first()
        if row is None:
            self._raise_not_found(id_)
        return row

    def get_by_uuid(self, context: RequestContext | None, uuid: str) -> ModelT:
        with reader(context) as session:
            row = session.scalars(self._select(context).where(self.model.uuid == uuid)).first()
        if row is None:
            self._raise_not_found(uuid)
        return row

    def get_by_name(self, context: RequestContext | None, name: str) -> ModelT:
        with reader(context) as session:
            rows = session.scalars(
                self._select(context).where(self.model.name == name).limit(2)
            ).all()
        return self._only(rows, name)

    def _only(self, rows: Sequence[Any], ident: str) -> Any:
        """The one row found by ``ident``: none is 404, two (a shared name) 409."""
        if not rows:
            self._raise_not_found(ident)
        if len(rows) > 1:
            raise exception.Conflict(self.duplicate_name_msg)
        return rows[0]

    def get(self, context: RequestContext | None, ident: str) -> ModelT:
        """Look up by UUID when the identifier looks like one, else by name."""
        if is_uuid_like(ident):
            return self.get_by_uuid(context, ident)
        return self.get_by_name(context, ident)

    def list(
        self,
        context: RequestContext | None,
        filters: dict | None = None,
        limit: int | None = None,
        marker: str | None = None,
        sort_key: str | None = None,
        sort_dir: str | None = None,
    ) -> list[ModelT]:
        validate_sort(sort_key, sort_dir, self.model)
        rule = self.listing_rule(self.kind(context), bool(context and context.is_admin))
        query = self._apply_filters(scoping.restrict(sa.select(self.model), rule, context),
                                    filters)
        with reader(context) as session:
            marker_row = None
            if marker is not None:
                marker_row = session.scalars(
                    self._select(context).where(self.model.uuid == marker)
                ).first()
                if marker_row is None:
                    self._raise_not_found(marker)
            return self._paginate(session, query, limit, marker_row, sort_key, sort_dir)

    def _paginate(
        self,
        session: Session,
        query: sa.Select,
        limit: int | None,
        marker_row: models.Base | None,
        sort_key: str | None,
        sort_dir: str | None,
    ) -> list[ModelT]:
        query = self._page_of(query, limit, marker_row, sort_key, sort_dir)
        return list(session.scalars(query).all())

    def _page_of(self, query: sa.Select, limit: int | None, marker_row: Any,
                 sort_key: str | None, sort_dir: str | None) -> sa.Select:
        """``query`` ordered by ``sort_key`` then id, after ``marker_row``, ``limit`` rows."""
        sort_keys = [sort_key or "id"]
        if "id" not in sort_keys:
            sort_keys.append("id")
        try:
            return sqlalchemyutils.paginate_query(
                query, self.model, limit, sort_keys, marker=marker_row,
                sort_dir=sort_dir or "asc",
            )
        except db_exc.InvalidSortKey as exc:
            raise exception.InvalidParameterValue(
                err=f'The sort_key value "{sort_key}" is an invalid field for sorting'
            ) from exc

    # --- rows: the GET handlers' read path --------------------------------------------
    def row_columns(self, detail: bool) -> sa.Select:
        """What a row read selects: every column; ``detail`` adds what a detailed view
        shows beside them (none here)."""
        return sa.select(*self.model.__table__.c)

    @functools.cached_property
    def _row_lookups(self) -> dict[tuple[str, str], sa.Select]:
        """(caller kind, "uuid" | "name") -> the statement of :meth:`row`."""
        table = self.model.__table__
        lookups = {}
        for kind_ in scoping.KINDS:
            query = scoping.where(self.row_columns(True), self.rule(kind_))
            lookups[(kind_, "uuid")] = query.where(table.c.uuid == sa.bindparam("ident"))
            lookups[(kind_, "name")] = query.where(
                table.c.name == sa.bindparam("ident")).limit(2)
        return lookups

    @functools.cached_property
    def _row_listings(self) -> dict[tuple[str, bool, bool], sa.Select]:
        """(caller kind, admin, detail) -> the statement :meth:`rows` pages through."""
        return {(kind_, admin, detail): scoping.where(self.row_columns(detail),
                                                      self.listing_rule(kind_, admin))
                for kind_, admin, detail in itertools.product(
                    scoping.KINDS, (False, True), (False, True))}

    def row(self, conn: sa.Connection, context: RequestContext | None, ident: str) -> Row:
        """:meth:`get` as a plain row (with the detail columns), on a :func:`reading`
        connection."""
        key = "uuid" if is_uuid_like(ident) else "name"
        statement = self._row_lookups[(self.kind(context), key)]
        return self._only(conn.execute(statement,
                                       {"ident": ident, **scoping.params(context)}).all(),
                          ident)

    def rows(self, conn: sa.Connection, context: RequestContext | None,
             limit: int | None = None, marker: str | None = None,
             sort_key: str | None = None, sort_dir: str | None = None,
             detail: bool = False) -> list[Row]:
        """:meth:`list` (without filters) as plain rows, on a :func:`reading` connection."""
        validate_sort(sort_key, sort_dir, self.model)
        kind_, params = self.kind(context), scoping.params(context)
        marker_row = None
        if marker is not None:
            marker_row = conn.execute(self._row_lookups[(kind_, "uuid")],
                                      {"ident": marker, **params}).first()
            if marker_row is None:
                self._raise_not_found(marker)
        query = self._row_listings[(kind_, bool(context and context.is_admin), detail)]
        return conn.execute(self._page_of(query, limit, marker_row, sort_key, sort_dir),
                            params).all()

    def count(self, context: RequestContext | None, filters: dict | None = None) -> int:
        query = self._apply_filters(
            self.scope(sa.select(sa.func.count()).select_from(self.model), context), filters
        )
        with reader(context) as session:
            return int(session.scalar(query) or 0)

    # --- writes ----------------------------------------------------------------------
    def create(self, context: RequestContext | None, values: dict[str, Any]) -> ModelT:
        values = dict(values)
        if "uuid" in self.model.__table__.columns and not values.get("uuid"):
            values["uuid"] = generate_uuid()
        row = self.model(**values)
        try:
            with writer(context) as session:
                session.add(row)
        except db_exc.DBDuplicateEntry as exc:
            raise self.already_exists(**values) from exc
        return row

    def update(self, context: RequestContext | None, uuid: str, values: dict[str, Any]) -> ModelT:
        """Update a row by UUID; the UUID itself cannot change."""
        if "uuid" in values and values["uuid"] != uuid:
            raise exception.InvalidParameterValue(err="Cannot overwrite UUID for an existing row.")
        with writer(context) as session:
            row = session.scalars(
                self._select(context).where(self.model.uuid == uuid).with_for_update()
            ).first()
            if row is None:
                self._raise_not_found(uuid)
            for key, value in values.items():
                setattr(row, key, value)
        return row

    def compare_and_swap(
        self,
        context: RequestContext | None,
        uuid: str,
        expected: dict[str, Any],
        values: dict[str, Any],
        extra_where: Sequence[sa.ColumnElement[bool]] = (),
    ) -> bool:
        """``UPDATE ... WHERE uuid = :uuid AND <expected>``; True when this caller won.

        ``expected`` maps columns to the values they must hold (``None`` means IS NULL, a
        list or set means IN). One statement, so it is atomic on SQLite, MariaDB and
        PostgreSQL alike without row locks held across calls.
        """
        stmt = self._matching(sa.update(self.model), uuid, expected, extra_where)
        if "updated_at" not in values:
            values = {**values, "updated_at": models.utcnow()}
        stmt = stmt.values(**values).execution_options(synchronize_session=False)
        with writer(context) as session:
            result = session.execute(stmt)
        return result.rowcount == 1

    def _matching(self, stmt: Any, uuid: str, expected: dict[str, Any],
                  extra_where: Sequence[sa.ColumnElement[bool]] = ()) -> Any:
        """``stmt`` restricted to the row ``uuid`` while it holds ``expected``."""
        stmt = stmt.where(self.model.uuid == uuid)
        for key, value in expected.items():
            column = getattr(self.model, key)
            if value is None:
                stmt = stmt.where(column.is_(None))
            elif isinstance(value, (list, tuple, set, frozenset)):
                stmt = stmt.where(column.in_(list(value)))
            else:
                stmt = stmt.where(column == value)
        for clause in extra_where:
            stmt = stmt.where(clause)
        return stmt

    def destroy_if(self, context: RequestContext | None, uuid: str,
                   expected: dict[str, Any],
                   extra_where: Sequence[sa.ColumnElement[bool]] = ()) -> bool:
        """``DELETE ... WHERE uuid = :uuid AND <expected>``; True when the row went."""
        stmt = self._matching(sa.delete(self.model), uuid, expected,
                              extra_where).execution_options(synchronize_session=False)
        with writer(context) as session:
            return session.execute(stmt).rowcount == 1

    def destroy(self, context: RequestContext | None, uuid: str) -> None:
        with writer(context) as session:
            row = session.scalars(self._select(context).where(self.model.uuid == uuid)).first()
            if row is None:
                self._raise_not_found(uuid)
            session.delete(row)


def now() -> datetime.datetime:
    return models.utcnow()


def server_now() -> datetime.datetime:
    """The database server's UTC time: what leases and heartbeats are measured by."""
    with reader() as session:
        return clock.server_now(session)


def connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` is the database connection going away (a server restart, a dropped
    or cut connection), not a statement the database refused: work that met it can run
    again once the database answers."""
    return isinstance(exc, db_exc.DBConnectionError) or bool(
        getattr(exc, "connection_invalidated", False))
