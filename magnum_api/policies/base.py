"""Composite rules every API rule is built from (names kept for operators' policy files)."""

from __future__ import annotations

from oslo_policy import policy

_DEPRECATED_REASON = (
    "Magnum's API rules now distinguish the reader and member roles of the project; "
    "the old defaults only compared project ids."
)
_SINCE = "2023.2"
_OLD_OWNER = "is_admin:True or project_id:%(project_id)s"
_OLD_USER = "((rule:context_is_admin) or (rule:is_user))"


def _deprecated(name: str, check: str) -> policy.DeprecatedRule:
    return policy.DeprecatedRule(name=name, check_str=check,
                                 deprecated_reason=_DEPRECATED_REASON, deprecated_since=_SINCE)


def _rule(name: str, check: str, old: str | None = None, description: str | None = None):
    return policy.RuleDefault(
        name=name, check_str=check, description=description,
        deprecated_rule=_deprecated(name, old) if old else None,
    )


ADMIN = "rule:context_is_admin"
ADMIN_OR_PROJECT_READER = "rule:admin_or_project_reader"
ADMIN_OR_PROJECT_MEMBER = "rule:admin_or_project_member"
ADMIN_OR_PROJECT_MEMBER_USER = "rule:admin_or_project_member_user"
ADMIN_OR_PROJECT_READER_USER = "rule:admin_or_project_reader_user"
ADMIN_OR_PROJECT_MEMBER_USER_OR_CLUSTER_USER = "rule:admin_or_project_member_user_or_cluster_user"
PROJECT_MEMBER_DENY_CLUSTER_USER = "rule:project_member_deny_cluster_user"
ADMIN_OR_PROJECT_MEMBER_DENY_CLUSTER_USER = "rule:admin_or_project_member_deny_cluster_user"
ADMIN_OR_PROJECT_READER_DENY_CLUSTER_USER = "rule:admin_or_project_reader_deny_cluster_user"

rules = [
    _rule("context_is_admin", "role:admin", description="Who counts as a cloud administrator."),
    _rule("admin_or_owner", "is_admin:True or project_id:%(project_id)s"),
    _rule("admin_or_user", "is_admin:True or user_id:%(user_id)s"),
    _rule("is_user", "user_id:%(user_id)s"),
    _rule("project_member", "role:member and project_id:%(project_id)s"),
    _rule("project_reader", "role:reader and project_id:%(project_id)s"),
    _rule("admin_or_project_reader", "(rule:context_is_admin) or (rule:project_reader)",
          _OLD_OWNER),
    _rule("admin_or_project_member", "(rule:context_is_admin) or (rule:project_member)",
          _OLD_OWNER),
    _rule("admin_or_project_member_user",
          "(rule:context_is_admin) or ((rule:project_member) and (rule:is_user))", _OLD_USER),
    _rule("admin_or_project_member_user_or_cluster_user",
          "(rule:context_is_admin) or ((rule:project_member) and (rule:is_user))", _OLD_USER),
    _rule("project_member_deny_cluster_user", "(rule:project_member)", _OLD_OWNER),
    _rule("admin_or_project_member_deny_cluster_user",
          "(rule:context_is_admin) or (rule:project_member)", _OLD_OWNER),
    _rule("project_reader_deny_cluster_user", "(rule:project_reader)", _OLD_OWNER),
    _rule("admin_or_project_reader_deny_cluster_user",
          "(rule:context_is_admin) or (rule:project_reader)", _OLD_OWNER),
    _rule("admin_or_project_reader_user",
          "(rule:context_is_admin) or ((rule:project_reader) and (rule:is_user))", _OLD_USER),
]


def api_rule(name: str, check: str, description: str, operations: list[tuple[str, str]],
             project_scoped: bool = True) -> policy.DocumentedRuleDefault:
    """An API rule; ``operations`` are (method, path) pairs as the upstream docs spell them."""
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{"path": path, "method": method} for method, path in operations],
        scope_types=["project"] if project_scoped else None,
    )


def list_rules():
    return rules
