"""Operation records of a cluster (an extension of this implementation): the views."""

from __future__ import annotations

from typing import Any

from magnum_api.schemas import fields, types
from magnum_common import context, states

#: Recorded arguments the API never shows: the requester's identity and sealed token, and
#: what a refused queued request puts back.
HIDDEN_ARGUMENTS = frozenset({context.RECORD_CONTEXT, context.RECORD_CREDENTIALS,
                              "previous_nodegroup"})
FIELDS = ("uuid", "cluster_id", "nodegroup_id", "kind", "state", "user_id", "project_id",
          "request_id", "result_reason", "progress")
TIMES = ("accepted_at", "started_at", "finished_at")

_STRING = fields.String(None, 0)
VIEW = types.view({
    "uuid": fields.Uuid(nullable=False), "cluster_id": _STRING, "nodegroup_id": _STRING,
    "kind": fields.Enum(states.OPERATIONS, nullable=False,
                        description="What was asked (the conductor's name for it)."),
    "state": fields.Enum(states.OPERATION_STATES, nullable=False),
    "arguments": fields.Any_(description="The request's arguments (no credentials)."),
    "user_id": _STRING, "project_id": _STRING,
    "request_id": _STRING, "result_reason": _STRING,
    "progress": _STRING, "accepted_at": types.TIMESTAMP, "started_at": types.TIMESTAMP,
    "finished_at": types.TIMESTAMP, "links": types.LINKS,
}, description="One accepted request on the cluster and what became of it.")


def view(row: Any, base_url: str) -> dict[str, Any]:
    body = {name: getattr(row, name) for name in FIELDS}
    body["arguments"] = {key: value for key, value in (row.arguments or {}).items()
                         if key not in HIDDEN_ARGUMENTS}
    for name in TIMES:
        body[name] = types.isotime(getattr(row, name))
    body["links"] = types.links(base_url, f"clusters/{row.cluster_id}/operations", row.uuid)
    return body
