"""The repositories' row reads (the GET handlers' read path) find, order, page and fail
exactly as their ORM reads do, on every backend, for every kind of caller. (Both take who
sees what from magnum_common.db.scoping, tested against the contract in
tests/unit/magnum_common/db/test_scoping.py.)"""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from oslo_db import exception as db_exc

from magnum_common import exception
from magnum_common.context import RequestContext
from magnum_common.db import api as db_api
from magnum_common.db import models
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import NODEGROUP_COLUMNS, clusters
from tests.conftest import MYSQL_SERVER

P1, P2 = "project-1", "project-2"


def _contexts() -> dict[str, RequestContext]:
    return {
        "member": RequestContext(user_id="u1", project_id=P1, roles=["member"]),
        "other": RequestContext(user_id="u2", project_id=P2, roles=["member"]),
        "user only": RequestContext(user_id="u1", project_id=None, roles=["member"]),
        "admin own project": RequestContext(user_id="a", project_id=P1, roles=["admin"],
                                            is_admin=True),
        "admin all projects": RequestContext(user_id="a", project_id=P1, roles=["admin"],
                                             is_admin=True, all_tenants=True),
    }


def _template(name: str, project: str, user: str, public: bool = False,
              hidden: bool | None = False) -> models.ClusterTemplate:
    return cluster_templates.create(None, {
        "name": name, "project_id": project, "user_id": user, "coe": "kubernetes",
        "image_id": "img", "public": public, "hidden": hidden, "labels": {"a": name}})


def _cluster(name: str, project: str, user: str, template: str) -> models.Cluster:
    return clusters.create_with_nodegroups(
        None, {"name": name, "project_id": project, "user_id": user, "status": "CREATE_COMPLETE",
               "cluster_template_id": template, "labels": {"a": "1"}},
        [{"name": "default-master", "role": "master", "node_count": 1, "is_default": True,
          "project_id": project, "node_addresses": ["127.0.0.1"]},
         {"name": "default-worker", "role": "worker", "node_count": 2, "is_default": True,
          "project_id": project, "node_addresses": ["127.0.0.2", "127.0.0.3"],
          "status": "CREATE_FAILED", "status_reason": "boom"}])


@pytest.fixture
def rows(db_any):
    templates = [
        _template("own", P1, "u1"), _template("own-hidden", P1, "u1", hidden=True),
        _template("own-other-user", P1, "u9"), _template("public", P2, "u2", public=True),
        _template("public-hidden", P2, "u2", public=True, hidden=True),
        _template("public-hidden-null", P2, "u2", public=True, hidden=None),
        _template("private", P2, "u2"), _template("dup", P1, "u1"), _template("dup", P1, "u1"),
    ]
    cluster_rows = [_cluster(f"c{i}", P1 if i % 3 else P2, "u1" if i % 2 else "u2",
                             templates[i % 4].uuid) for i in range(9)]
    cluster_rows.append(_cluster("orphan", P1, "u1", "no-such-template"))
    return templates, cluster_rows


def _outcome(lookup, ctx, ident):
    try:
        return ("row", lookup(ctx, ident).uuid)
    except exception.MagnumException as exc:
        return (type(exc).__name__, exc.code)


def _read(method, *args, **kwargs):
    with db_api.reading() as conn:
        return method(conn, *args, **kwargs)


def _template_row(ctx, ident):
    return _read(cluster_templates.row, ctx, ident)


def _cluster_row(ctx, ident):
    return _read(clusters.row, ctx, ident)


@pytest.mark.parametrize("who", list(_contexts()))
def test_template_lookups_and_listing_agree_with_the_repository(rows, who):
    ctx = _contexts()[who]
    templates, _ = rows
    for tpl in templates:
        for ident in (tpl.uuid, tpl.name):
            assert _outcome(_template_row, ctx, ident) == \
                _outcome(cluster_templates.get, ctx, ident)
    row = _read(cluster_templates.row, ctx, templates[0].uuid) if who != "other" else None
    if row is not None:
        assert db_api.as_dict(row) == \
            cluster_templates.get(ctx, templates[0].uuid).as_dict()
    for sort_key, sort_dir in ((None, None), ("name", "desc"), ("public", "asc")):
        listed = [r.uuid for r in cluster_templates.list(ctx, sort_key=sort_key,
                                                         sort_dir=sort_dir)]
        assert [r.uuid for r in _read(cluster_templates.rows, ctx, sort_key=sort_key,
                                       sort_dir=sort_dir)] == listed
        for limit in (1, 2, 3):
            marker, paged = None, []
            while True:
                page = _read(cluster_templates.rows, ctx, limit=limit, marker=marker,
                             sort_key=sort_key, sort_dir=sort_dir)
                paged += [r.uuid for r in page]
                if len(page) < limit:
                    break
                marker = page[-1].uuid
            assert paged == listed


@pytest.mark.parametrize("who", list(_contexts()))
def test_cluster_lookups_pages_and_nodegroups_agree_with_the_repository(rows, who):
    ctx = _contexts()[who]
    templates, cluster_rows = rows
    by_uuid = {t.uuid: t for t in templates}
    for cl in cluster_rows:
        for ident in (cl.uuid, cl.name):
            assert _outcome(_cluster_row, ctx, ident) == _outcome(clusters.get, ctx, ident)
    visible = clusters.list(ctx)
    for cl in visible:
        values = db_api.as_dict(_read(clusters.row, ctx, cl.uuid))
        template = by_uuid.get(cl.cluster_template_id)
        assert values.pop("template_labels") == (template.labels if template else {})
        assert values == clusters.get(ctx, cl.uuid).as_dict()
    for labels in (False, True):
        for sort_key, sort_dir in ((None, None), ("name", "desc"), ("status", "asc")):
            listed = [r.uuid for r in clusters.list(ctx, sort_key=sort_key, sort_dir=sort_dir)]
            page = _read(clusters.rows, ctx, limit=4, sort_key=sort_key, sort_dir=sort_dir,
                         detail=labels)
            assert [r.uuid for r in page] == listed[:4]
            if len(page) == 4:
                rest = _read(clusters.rows, ctx, limit=100, marker=page[-1].uuid,
                             sort_key=sort_key, sort_dir=sort_dir, detail=labels)
                assert [r.uuid for r in rest] == listed[4:]
    uuids = [cl.uuid for cl in visible]
    expected = clusters.nodegroups_of(None, uuids)
    got = _read(clusters.nodegroup_rows, uuids)
    assert sorted(got) == sorted(expected)
    for uuid, groups in expected.items():
        assert [{c: getattr(g, c) for c in NODEGROUP_COLUMNS} for g in groups] == \
            [dict(r._mapping) for r in got[uuid]]


def test_page_errors_are_the_repository_errors(rows):
    ctx = _contexts()["member"]
    other_project_cluster = next(c for c in rows[1] if c.project_id == P2)
    with pytest.raises(exception.ClusterNotFound):
        _read(clusters.rows, ctx, marker=other_project_cluster.uuid)
    with pytest.raises(exception.InvalidParameterValue, match="invalid field for sorting"):
        _read(clusters.rows, ctx, sort_key="no_such_column")
    with pytest.raises(exception.Conflict, match="Multiple ClusterTemplates"):
        _read(cluster_templates.row, ctx, "dup")


def test_a_killed_connection_is_lost_and_a_refused_statement_is_not():
    """On the machine's MariaDB: the server kills our connection mid-session, as a restart
    or a cut would; a duplicate key is the database refusing, which no re-run fixes."""
    engine = sa.create_engine(f"{MYSQL_SERVER}/mysql", poolclass=sa.pool.NullPool)
    with engine.connect() as victim, engine.connect() as killer:
        killer.execute(sa.text("KILL :id"), {"id": victim.execute(
            sa.text("SELECT CONNECTION_ID()")).scalar()})
        with pytest.raises(sa.exc.DBAPIError) as lost:
            victim.execute(sa.text("SELECT 1"))
        assert db_api.connection_lost(lost.value)
        killer.execute(sa.text("CREATE TEMPORARY TABLE t_lost (id INT PRIMARY KEY)"))
        killer.execute(sa.text("INSERT INTO t_lost VALUES (1)"))
        with pytest.raises(sa.exc.IntegrityError) as refused:
            killer.execute(sa.text("INSERT INTO t_lost VALUES (1)"))
        assert not db_api.connection_lost(refused.value)
    assert db_api.connection_lost(db_exc.DBConnectionError())
