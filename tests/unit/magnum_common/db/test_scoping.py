"""The visibility rules (magnum_common.db.scoping) on every backend: what each kind of caller
sees (magnum-api-v1.md §1.4, §6.1.4), both as statements built once per kind and run with
the caller's values (the API's reads) and through the repositories, which bind them at once."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from magnum_common import exception
from magnum_common.context import RequestContext
from magnum_common.db import api, models, scoping
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters
from magnum_common.db.federations import federations
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.quotas import quotas

P1, P2 = "project-1", "project-2"
CALLERS: dict[str, RequestContext | None] = {
    "member": RequestContext(user_id="u1", project_id=P1),
    "other project": RequestContext(user_id="u2", project_id=P2),
    "user only": RequestContext(user_id="u1", project_id=None),
    "admin": RequestContext(user_id="a", project_id=P1, is_admin=True),
    "admin all projects": RequestContext(user_id="a", project_id=P1, is_admin=True,
                                         all_tenants=True),
    "no context": None,
}

#: name -> (project, user, public, hidden)
TEMPLATES = {
    "own": (P1, "u1", False, False),
    "own-hidden": (P1, "u1", False, True),
    "own-public-hidden": (P1, "u1", True, True),
    "colleague": (P1, "u9", False, False),
    "public": (P2, "u2", True, False),
    "public-hidden": (P2, "u2", True, True),
    "public-hidden-null": (P2, "u2", True, None),
    "private": (P2, "u2", False, False),
    "u1-elsewhere": (P2, "u1", False, False),
}
#: name -> (project, user); each cluster has one node group named after it
CLUSTERS = {"c-own": (P1, "u1"), "c-colleague": (P1, "u9"), "c-other": (P2, "u2"),
            "c-u1-elsewhere": (P2, "u1")}
EVERY_TEMPLATE = set(TEMPLATES)
EVERY_CLUSTER = set(CLUSTERS)
PROJECT_1 = {"own", "own-hidden", "own-public-hidden", "colleague"}
PROJECT_2 = {"public", "public-hidden", "public-hidden-null", "private", "u1-elsewhere"}
USER_U1 = {"own", "own-hidden", "own-public-hidden", "u1-elsewhere"}
PUBLIC = {"own-public-hidden", "public", "public-hidden", "public-hidden-null"}
PUBLIC_NOT_HIDDEN = {"public", "public-hidden-null"}

#: caller -> (template lookups find, template listings show, clusters, node groups, federations)
EXPECTED = {
    "member": (PROJECT_1 | PUBLIC, PROJECT_1 | PUBLIC_NOT_HIDDEN, {"c-own", "c-colleague"},
               {"c-own", "c-colleague"}, {"f1"}),
    "other project": (PROJECT_2 | PUBLIC, PROJECT_2 | PUBLIC_NOT_HIDDEN,
                      {"c-other", "c-u1-elsewhere"}, {"c-other", "c-u1-elsewhere"}, {"f2"}),
    "user only": (USER_U1 | PUBLIC, USER_U1 | PUBLIC_NOT_HIDDEN, {"c-own", "c-u1-elsewhere"},
                  set(), set()),
    "admin": (PROJECT_1 | PUBLIC, PROJECT_1 | PUBLIC, {"c-own", "c-colleague"}, EVERY_CLUSTER,
              {"f1"}),
    "admin all projects": (EVERY_TEMPLATE, EVERY_TEMPLATE, EVERY_CLUSTER, EVERY_CLUSTER,
                           {"f1", "f2"}),
    "no context": (EVERY_TEMPLATE, EVERY_TEMPLATE, EVERY_CLUSTER, EVERY_CLUSTER, {"f1", "f2"}),
}


@pytest.fixture
def rows(db_any) -> dict[str, str]:
    """Every template and cluster of the table above; name -> UUID."""
    uuids = {}
    for name, (project, user, public, hidden) in TEMPLATES.items():
        uuids[name] = cluster_templates.create(None, {
            "name": name, "project_id": project, "user_id": user, "public": public,
            "hidden": hidden}).uuid
    for name, (project, user) in CLUSTERS.items():
        uuids[name] = clusters.create_with_nodegroups(
            None, {"name": name, "project_id": project, "user_id": user},
            [{"name": name, "project_id": project, "role": "worker", "node_count": 1}]).uuid
    federations.create(None, {"name": "f1", "project_id": P1})
    federations.create(None, {"name": "f2", "project_id": P2})
    return uuids


def _names(statement: sa.Select, context: RequestContext | None) -> set[str]:
    """Run a statement built once per kind with the caller's values, as the API does."""
    with api.get_engine().connect() as conn:
        return set(conn.execute(statement, scoping.params(context)).scalars())


def _name_of(table: sa.Table) -> sa.Select:
    return sa.select(table.c.name)


@pytest.mark.parametrize("who", list(CALLERS))
def test_statements_built_once_per_kind_show_what_the_contract_says(rows, who):
    ctx = CALLERS[who]
    lookup, listing, cluster_names, group_names, federation_names = EXPECTED[who]
    kind = scoping.kind(ctx)
    admin = bool(ctx and ctx.is_admin)
    template = models.ClusterTemplate.__table__
    assert _names(scoping.where(_name_of(template), scoping.template_lookup(kind)),
                  ctx) == lookup
    assert _names(scoping.where(_name_of(template), scoping.template_listing(kind, admin)),
                  ctx) == listing
    assert _names(scoping.where(_name_of(models.Cluster.__table__),
                                scoping.owned(models.Cluster.__table__, kind)),
                  ctx) == cluster_names
    groups = models.NodeGroup.__table__
    group_kind = scoping.kind(ctx, admin_sees_all=True)
    assert _names(scoping.where(_name_of(groups), scoping.owned(groups, group_kind)),
                  ctx) == group_names
    federation = models.Federation.__table__
    assert _names(scoping.where(_name_of(federation), scoping.owned(federation, kind)),
                  ctx) == federation_names


@pytest.mark.parametrize("who", list(CALLERS))
def test_repositories_apply_the_same_rules(rows, who):
    ctx = CALLERS[who]
    lookup, listing, cluster_names, group_names, federation_names = EXPECTED[who]
    found = set()
    for name in TEMPLATES:
        try:
            found.add(cluster_templates.get(ctx, rows[name]).name)
        except exception.ClusterTemplateNotFound:
            pass
    assert found == lookup
    assert {t.name for t in cluster_templates.list(ctx)} == listing
    assert cluster_templates.count(ctx) == len(lookup)
    assert {c.name for c in clusters.list(ctx)} == cluster_names
    for name in EVERY_CLUSTER - cluster_names:
        with pytest.raises(exception.ClusterNotFound):
            clusters.get(ctx, name)
        with pytest.raises(exception.ClusterNotFound):
            clusters.update(ctx, rows[name], {"status_reason": "not yours"})
    assert {g.name for g in nodegroups.list(ctx)} == group_names
    assert {f.name for f in federations.list(ctx)} == federation_names


def test_quotas_are_scoped_by_project_alone(db_any):
    quotas.create(None, {"project_id": P1, "resource": "Cluster", "hard_limit": 1})
    quotas.create(None, {"project_id": None, "resource": "Cluster", "hard_limit": 2})
    assert [q.hard_limit for q in quotas.list(CALLERS["member"])] == [1]
    assert quotas.list(CALLERS["user only"]) == []
    assert sorted(q.hard_limit for q in quotas.list(CALLERS["admin all projects"])) == [1, 2]


def test_one_compiled_statement_per_kind_whoever_the_caller(db_any):
    """The caller's identity is a bind value, never part of the SQL: SQLAlchemy compiles a
    repository's scoped query once per kind of caller, not once per project."""
    def key(ctx):
        return clusters.scope(sa.select(models.Cluster), ctx)._generate_cache_key().key

    member, other = CALLERS["member"], CALLERS["other project"]
    assert key(member) == key(other)
    assert key(member) != key(CALLERS["user only"])
    statement = clusters.scope(sa.select(models.Cluster), member)
    assert statement.compile().params["scope_project_id"] == P1
