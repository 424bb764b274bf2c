"""The ``[conductor]`` options of the engine itself (process count, intervals, lease).

Options that belong to one mechanism are declared next to it (``[heat_client]`` in
resources.py, ``[cluster_heat]`` in status_sync.py, ``[kubernetes]`` in health.py); these are
the ones several conductor modules share.
"""

from __future__ import annotations

from oslo_config import cfg

CONF = cfg.CONF

conductor_opts = [
    cfg.IntOpt("workers", min=1,
               help="Conductor processes on this host; default: the number of CPUs. Every "
               "process serves RPC and takes its share of the periodic work."),
    cfg.IntOpt("report_interval", default=10, min=1,
               help="Seconds between two heartbeats of a conductor in magnum_service."),
    cfg.IntOpt("lease_seconds", default=60, min=2,
               help="Length of a conductor's lease on a cluster. The lease is renewed every "
               "third of this while the conductor works; when its conductor dies, another "
               "conductor takes the cluster over once the lease has expired."),
    cfg.IntOpt("lease_wait", default=10, min=0,
               help="Seconds an RPC request waits for a cluster's lease held by another "
               "conductor before it gives up (casts are then replayed by the reconciler)."),
    cfg.IntOpt("reconcile_interval", default=10, min=1,
               help="Seconds between two runs of the reconciler that replays recorded "
               "operations whose cast was lost or whose conductor died."),
    cfg.IntOpt("pending_grace", default=30, min=0,
               help="Age in seconds after which a recorded operation nobody holds is "
               "considered lost and replayed."),
    cfg.IntOpt("reconcile_workers", default=4, min=1,
               help="Threads the reconciler uses to replay operations."),
    cfg.IntOpt("sync_interval", default=10, min=1,
               help="Seconds between two Heat status syncs of the in-progress clusters."),
]
CONF.register_opts(conductor_opts, group="conductor")

BINARY = "magnum-conductor"


def list_opts():
    return [("conductor", conductor_opts)]
