"""The cluster / nodegroup state machine and the other enumerations of the data model.

Statuses mirror Heat's ``ACTION_STATUS`` vocabulary (the poller copies Heat's status onto
node groups), so they are plain strings; the sets below are the gates the handlers use.
"""

from __future__ import annotations

CREATE_IN_PROGRESS = "CREATE_IN_PROGRESS"
CREATE_FAILED = "CREATE_FAILED"
CREATE_COMPLETE = "CREATE_COMPLETE"
UPDATE_IN_PROGRESS = "UPDATE_IN_PROGRESS"
UPDATE_FAILED = "UPDATE_FAILED"
UPDATE_COMPLETE = "UPDATE_COMPLETE"
DELETE_IN_PROGRESS = "DELETE_IN_PROGRESS"
DELETE_FAILED = "DELETE_FAILED"
DELETE_COMPLETE = "DELETE_COMPLETE"
RESUME_COMPLETE = "RESUME_COMPLETE"
RESUME_FAILED = "RESUME_FAILED"
RESTORE_COMPLETE = "RESTORE_COMPLETE"
ROLLBACK_IN_PROGRESS = "ROLLBACK_IN_PROGRESS"
ROLLBACK_FAILED = "ROLLBACK_FAILED"
ROLLBACK_COMPLETE = "ROLLBACK_COMPLETE"
SNAPSHOT_COMPLETE = "SNAPSHOT_COMPLETE"
CHECK_COMPLETE = "CHECK_COMPLETE"
ADOPT_COMPLETE = "ADOPT_COMPLETE"

ALL_STATUSES = (
    CREATE_IN_PROGRESS, CREATE_FAILED, CREATE_COMPLETE,
    UPDATE_IN_PROGRESS, UPDATE_FAILED, UPDATE_COMPLETE,
    DELETE_IN_PROGRESS, DELETE_FAILED, DELETE_COMPLETE,
    RESUME_COMPLETE, RESUME_FAILED, RESTORE_COMPLETE,
    ROLLBACK_IN_PROGRESS, ROLLBACK_FAILED, ROLLBACK_COMPLETE,
    SNAPSHOT_COMPLETE, CHECK_COMPLETE, ADOPT_COMPLETE,
)

STATUS_FAILED = frozenset(
    {CREATE_FAILED, UPDATE_FAILED, DELETE_FAILED, ROLLBACK_FAILED, RESUME_FAILED}
)
IN_PROGRESS = frozenset(
    {CREATE_IN_PROGRESS, UPDATE_IN_PROGRESS, DELETE_IN_PROGRESS, ROLLBACK_IN_PROGRESS}
)
#: Statuses from which update / upgrade / CA rotation may start.
STABLE = frozenset(
    {CREATE_COMPLETE, UPDATE_COMPLETE, RESUME_COMPLETE, RESTORE_COMPLETE,
     ROLLBACK_COMPLETE, SNAPSHOT_COMPLETE, CHECK_COMPLETE, ADOPT_COMPLETE}
)
#: Resize additionally accepts these (autoscaler retries).
RESIZABLE = STABLE | {UPDATE_FAILED, UPDATE_IN_PROGRESS}
#: Node group create / update / credential rotation gate (checked on the node group).
NODEGROUP_OPERABLE = STABLE | {UPDATE_IN_PROGRESS, UPDATE_FAILED}
#: What the health monitor looks at.
HEALTH_POLLED = frozenset(
    {CREATE_IN_PROGRESS, CREATE_FAILED, CREATE_COMPLETE, UPDATE_IN_PROGRESS,
     UPDATE_COMPLETE, UPDATE_FAILED, DELETE_IN_PROGRESS, DELETE_FAILED,
     ROLLBACK_IN_PROGRESS}
)

# Health
HEALTHY = "HEALTHY"
UNHEALTHY = "UNHEALTHY"
UNKNOWN = "UNKNOWN"
HEALTH_STATUSES = (HEALTHY, UNHEALTHY, UNKNOWN)

# Federation
FEDERATION_STATUSES = tuple(
    f"{action}_{result}"
    for action in ("CREATE", "UPDATE", "DELETE")
    for result in ("IN_PROGRESS", "FAILED", "COMPLETE")
)

COE_TYPES = ("kubernetes",)
SERVER_TYPES = ("vm", "bm")
SERVICE_UP = "up"
SERVICE_DOWN = "down"
QUOTA_RESOURCES = ("Cluster",)

# Pending operations the API records on a cluster row before casting (recoverable intent).
OP_CREATE = "cluster_create"
OP_UPDATE = "cluster_update"
OP_RESIZE = "cluster_resize"
OP_UPGRADE = "cluster_upgrade"
OP_DELETE = "cluster_delete"
OP_ROTATE_CA = "rotate_ca_certificate"
OP_ROTATE_CREDENTIAL = "credential_rotate"
OP_NODEGROUP_CREATE = "nodegroup_create"
OP_NODEGROUP_UPDATE = "nodegroup_update"
OP_NODEGROUP_DELETE = "nodegroup_delete"
OPERATIONS = (
    OP_CREATE, OP_UPDATE, OP_RESIZE, OP_UPGRADE, OP_DELETE, OP_ROTATE_CA,
    OP_ROTATE_CREDENTIAL, OP_NODEGROUP_CREATE, OP_NODEGROUP_UPDATE, OP_NODEGROUP_DELETE,
)
#: The cluster statuses each recorded operation may start from (None: any). The API
#: records an operation only from these, the conductor checks them again when it starts.
OPERATION_GATES: dict[str, frozenset[str | None] | None] = {
    OP_CREATE: frozenset({None, CREATE_IN_PROGRESS}),
    OP_UPDATE: STABLE,
    OP_RESIZE: RESIZABLE,
    OP_UPGRADE: STABLE,
    OP_ROTATE_CA: STABLE,
    OP_ROTATE_CREDENTIAL: NODEGROUP_OPERABLE,
    OP_DELETE: None,
    OP_NODEGROUP_CREATE: None,
    OP_NODEGROUP_UPDATE: None,
    OP_NODEGROUP_DELETE: None,
}

# What became of an operation record (magnum_common.db.operations).
OPERATION_PENDING = "pending"
OPERATION_RUNNING = "running"
OPERATION_SUCCEEDED = "succeeded"
OPERATION_FAILED = "failed"
OPERATION_SUPERSEDED = "superseded"
OPERATION_STATES = (OPERATION_PENDING, OPERATION_RUNNING, OPERATION_SUCCEEDED,
                    OPERATION_FAILED, OPERATION_SUPERSEDED)
#: Records still to run or still running.
OPERATION_OPEN = frozenset({OPERATION_PENDING, OPERATION_RUNNING})
# An external side effect of an operation (its record's ``effects``): recorded pending
# before the call, done once the call returned and its result was saved.
EFFECT_PENDING = "pending"
EFFECT_DONE = "done"
#: The cluster status each operation moves to when it starts (when accepted, or when its
#: turn in the cluster's queue comes), and the reason shown meanwhile.
ACCEPTED_STATUS = {
    OP_UPDATE: (UPDATE_IN_PROGRESS, "Updating the cluster."),
    OP_RESIZE: (UPDATE_IN_PROGRESS, "Resizing the cluster."),
    OP_UPGRADE: (UPDATE_IN_PROGRESS, "Upgrading the cluster."),
    OP_ROTATE_CA: (UPDATE_IN_PROGRESS, "Rotating the CA certificates."),
    OP_ROTATE_CREDENTIAL: (UPDATE_IN_PROGRESS, "Rotating the cluster's credentials."),
    OP_DELETE: (DELETE_IN_PROGRESS, "Deleting the cluster."),
    OP_NODEGROUP_CREATE: (UPDATE_IN_PROGRESS, "Creating a node group."),
    OP_NODEGROUP_UPDATE: (UPDATE_IN_PROGRESS, "Updating a node group."),
    OP_NODEGROUP_DELETE: (UPDATE_IN_PROGRESS, "Deleting a node group."),
}


def action_of(status: str | None) -> str | None:
    """``'CREATE_IN_PROGRESS'`` -> ``'CREATE'``."""
    if not status:
        return None
    for suffix in ("_IN_PROGRESS", "_COMPLETE", "_FAILED"):
        if status.endswith(suffix):
            return status[: -len(suffix)]
    return status


def is_in_progress(status: str | None) -> bool:
    return bool(status) and status.endswith("_IN_PROGRESS")
