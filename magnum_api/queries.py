"""Read queries of the GET handlers: plain rows, statements built once per process.

The repositories (magnum_common.db) return ORM objects, as the read-modify-write paths need.
A GET only renders columns into JSON, and there ORM instances, one SELECT per related table
and a statement rebuilt on every request cost more than all the rest of the request. Here
every statement is built once, with bind parameters for what varies between requests (so
SQLAlchemy compiles it once), and returns rows; :func:`as_dict` gives the column dict the
views and the policy targets take. A request's reads share one connection and one
transaction (:func:`reading`).

Who sees which rows is :mod:`magnum_common.db.scoping`, the repositories' rules: each
statement is built once per caller kind and run with the caller's bind values.
"""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import utils as sqlalchemyutils
from sqlalchemy.engine import Row

from magnum_common import exception
from magnum_common.context import RequestContext
from magnum_common.db import api as db_api
from magnum_common.db import models, scoping
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters
from magnum_common.utils import is_uuid_like

_CLUSTER = models.Cluster.__table__
_TEMPLATE = models.ClusterTemplate.__table__
_NODEGROUP = models.NodeGroup.__table__

#: Node group columns the cluster views read (counts, addresses, faults).
NODEGROUP_COLUMNS = ("cluster_id", "name", "role", "node_count", "node_addresses",
                     "is_default", "status", "status_reason")


def _by_ident(query: sa.Select, table: sa.Table, key: str) -> sa.Select:
    query = query.where(table.c[key] == sa.bindparam("ident"))
    return query if key == "uuid" else query.limit(2)


_CLUSTER_WITH_LABELS = sa.select(
    *_CLUSTER.c, _TEMPLATE.c.labels.label("template_labels")
).select_from(_CLUSTER.outerjoin(_TEMPLATE, _TEMPLATE.c.uuid == _CLUSTER.c.cluster_template_id))

_TEMPLATE_BY = {(kind, key): _by_ident(scoping.where(sa.select(*_TEMPLATE.c),
                                                     scoping.template_lookup(kind)),
                                       _TEMPLATE, key)
                for kind in scoping.KINDS for key in ("uuid", "name")}
_TEMPLATE_LIST = {(kind, admin): scoping.where(sa.select(*_TEMPLATE.c),
                                               scoping.template_listing(kind, admin))
                  for kind in scoping.KINDS for admin in (False, True)}
_CLUSTER_BY = {(kind, key): _by_ident(scoping.where(_CLUSTER_WITH_LABELS,
                                                    scoping.owned(_CLUSTER, kind)),
                                      _CLUSTER, key)
               for kind in scoping.KINDS for key in ("uuid", "name")}
_CLUSTER_LIST = {(kind, labels): scoping.where(_CLUSTER_WITH_LABELS if labels
                                               else sa.select(*_CLUSTER.c),
                                               scoping.owned(_CLUSTER, kind))
                 for kind in scoping.KINDS for labels in (False, True)}
_NODEGROUPS_OF = sa.select(*(_NODEGROUP.c[name] for name in NODEGROUP_COLUMNS)).where(
    _NODEGROUP.c.cluster_id.in_(sa.bindparam("uuids", expanding=True))
).order_by(_NODEGROUP.c.id)


@contextlib.contextmanager
def reading() -> Iterator[sa.Connection]:
    """A connection in a read transaction, for all the reads of one request.

    A plain connection rather than an ORM session: no session to build and tear down.
    """
    with db_api.get_engine().connect() as conn:
        conn.begin()  # closing the connection rolls it back
        yield conn


def _lookup(conn: sa.Connection, context: RequestContext, statements: dict,
            repository: Any, ident: str) -> Row:
    """One row by UUID, or by name when the identifier is not a UUID (two rows: 409)."""
    key = "uuid" if is_uuid_like(ident) else "name"
    statement = statements[(scoping.kind(context), key)]
    rows = conn.execute(statement, {"ident": ident, **scoping.params(context)}).all()
    if not rows:
        raise repository.not_found(**{repository.not_found_arg: ident})
    if len(rows) > 1:
        raise exception.Conflict(repository.duplicate_name_msg)
    return rows[0]


def _page(conn: sa.Connection, context: RequestContext, query: sa.Select, model: type,
          marker_statements: dict, repository: Any, limit: int | None, marker: str | None,
          sort_key: str | None, sort_dir: str | None) -> list[Row]:
    """A page after ``marker`` (a UUID the caller can see), as ``Repository.list``."""
    db_api.validate_sort(sort_key, sort_dir, model)
    sort_keys = [sort_key or "id"]
    if "id" not in sort_keys:
        sort_keys.append("id")
    params = scoping.params(context)
    marker_row = None
    if marker is not None:
        marker_row = conn.execute(marker_statements[(scoping.kind(context), "uuid")],
                                  {"ident": marker, **params}).first()
        if marker_row is None:
            raise repository.not_found(**{repository.not_found_arg: marker})
    try:
        query = sqlalchemyutils.paginate_query(query, model, limit, sort_keys,
                                               marker=marker_row, sort_dir=sort_dir or "asc")
    except db_exc.InvalidSortKey as exc:
        raise exception.InvalidParameterValue(
            err=f'The sort_key value "{sort_key}" is an invalid field for sorting'
        ) from exc
    return conn.execute(query, params).all()


def template(conn: sa.Connection, context: RequestContext, ident: str) -> Row:
    """A template by UUID or name, every column (as ``cluster_templates.get``)."""
    return _lookup(conn, context, _TEMPLATE_BY, cluster_templates, ident)


def templates(conn: sa.Connection, context: RequestContext, limit: int | None = None,
              marker: str | None = None, sort_key: str | None = None,
              sort_dir: str | None = None) -> list[Row]:
    """A page of the templates the caller may list (as ``cluster_templates.list``)."""
    query = _TEMPLATE_LIST[(scoping.kind(context), bool(context.is_admin))]
    return _page(conn, context, query, models.ClusterTemplate, _TEMPLATE_BY,
                 cluster_templates, limit, marker, sort_key, sort_dir)


def cluster(conn: sa.Connection, context: RequestContext, ident: str) -> Row:
    """A cluster by UUID or name: every column, and its template's ``template_labels``."""
    return _lookup(conn, context, _CLUSTER_BY, clusters, ident)


def clusters_page(conn: sa.Connection, context: RequestContext, with_template_labels: bool,
                  limit: int | None = None, marker: str | None = None,
                  sort_key: str | None = None, sort_dir: str | None = None) -> list[Row]:
    """A page of the caller's clusters (as ``clusters.list``), optionally with the labels
    of each one's template."""
    query = _CLUSTER_LIST[(scoping.kind(context), with_template_labels)]
    return _page(conn, context, query, models.Cluster, _CLUSTER_BY, clusters, limit, marker,
                 sort_key, sort_dir)


def nodegroups_of(conn: sa.Connection, cluster_uuids: list[str]) -> dict[str, list[Row]]:
    """The view columns of the node groups of many clusters, in one query, by cluster."""
    result: dict[str, list[Row]] = collections.defaultdict(list)
    if not cluster_uuids:
        return result
    for row in conn.execute(_NODEGROUPS_OF, {"uuids": cluster_uuids}):
        result[row.cluster_id].append(row)
    return result


def as_dict(row: Row) -> dict[str, Any]:
    """Column name -> value, as the ORM objects' ``as_dict()`` (plus any extra column
    selected, such as ``template_labels``): what the views and policy targets take."""
    return dict(zip(row._fields, row, strict=True))


def as_dicts(rows: list[Row]) -> list[dict[str, Any]]:
    """:func:`as_dict` of every row of one result (``Row._fields`` builds a new tuple at
    each call: read once, for the thousand rows of a list)."""
    if not rows:
        return []
    names = rows[0]._fields
    return [dict(zip(names, row, strict=True)) for row in rows]
