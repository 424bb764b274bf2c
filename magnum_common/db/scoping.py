"""Who sees which rows: project scoping and cluster template visibility, written once.

The rules (magnum-api-v1.md §1.4, §6.1.4):

* no context (the services' own reads) or an admin context with ``all_tenants`` sees every
  project;
* any other context sees its project's rows or, when it has no project, its user's rows; a
  table without a user column is scoped by project alone, so a caller without a project
  owns none of its rows;
* node groups: any admin sees every project's (as upstream);
* template lookups (by id, UUID or name) also see every public template;
* template listings also see public templates, but not other projects' public hidden ones
  unless the caller is an admin.

A rule is a WHERE clause (``None``: every row) whose shape depends only on the caller's
*kind* (:func:`kind`) and whose values are the bind parameters ``scope_project_id`` and
``scope_user_id`` (:func:`params`). So a statement can be built once per kind and run with
the caller's values (the repositories' row reads), or bound at once (:func:`restrict`, their
ORM reads).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from magnum_common.context import RequestContext
from magnum_common.db import models

#: Caller kinds: sees every project, sees its project's rows, sees its user's rows.
ALL, PROJECT, USER = "all", "project", "user"
KINDS = (ALL, PROJECT, USER)

_TEMPLATE = models.ClusterTemplate.__table__


def sees_all_projects(context: RequestContext | None) -> bool:
    return context is None or bool(context.is_admin and context.all_tenants)


def kind(context: RequestContext | None, admin_sees_all: bool = False) -> str:
    """The caller's kind; ``admin_sees_all`` for tables any admin sees whole (node groups)."""
    if sees_all_projects(context) or (admin_sees_all and context.is_admin):
        return ALL
    return PROJECT if context.project_id else USER


def params(context: RequestContext | None) -> dict[str, Any]:
    """The bind values the rules of ``context``'s kind take."""
    if context is None:
        return {}
    return {"scope_project_id": context.project_id, "scope_user_id": context.user_id}


def owned(table: sa.Table, kind_: str) -> sa.ColumnElement[bool] | None:
    """Rows of the caller's project (or user) in ``table``."""
    if kind_ == ALL:
        return None
    if kind_ == USER and "user_id" in table.c:
        return table.c.user_id == sa.bindparam("scope_user_id")
    return table.c.project_id == sa.bindparam("scope_project_id")


def template_lookup(kind_: str) -> sa.ColumnElement[bool] | None:
    """Templates a lookup by id, UUID or name finds: the caller's and every public one."""
    mine = owned(_TEMPLATE, kind_)
    return None if mine is None else sa.or_(mine, _TEMPLATE.c.public.is_(True))


def template_listing(kind_: str, admin: bool) -> sa.ColumnElement[bool] | None:
    """Templates a listing shows: the caller's and the public ones, other projects' hidden
    ones only to admins (a NULL ``hidden`` is not hidden)."""
    mine = owned(_TEMPLATE, kind_)
    if mine is None:
        return None
    public = _TEMPLATE.c.public.is_(True)
    if not admin:
        public = sa.and_(public, sa.or_(_TEMPLATE.c.hidden.is_(False),
                                        _TEMPLATE.c.hidden.is_(None)))
    return sa.or_(mine, public)


def where(query: sa.Select, rule: sa.ColumnElement[bool] | None) -> sa.Select:
    """``query`` restricted by ``rule``, its bind parameters left for execution time."""
    return query if rule is None else query.where(rule)


def restrict(query: sa.Select, rule: sa.ColumnElement[bool] | None,
             context: RequestContext | None) -> sa.Select:
    """``query`` restricted by ``rule`` with ``context``'s values bound."""
    return query if rule is None else query.where(rule).params(params(context))
