"""localcloud: a real OpenStack control plane on this machine, for Magnum's tests and main job.

Keystone, Heat, Barbican and Glance (tier ``lite``; plus Placement, Nova with the fake driver,
Neutron and Octavia in tier ``full``) from PyPI in a virtualenv of their own, against the
machine's MariaDB and RabbitMQ, plus helpers that play the part of booted nodes. See
``localcloud/README.md``.

Layout: ``cli`` (up, down, status, env, node), ``tiers`` (which services each tier runs),
``cloud`` / ``full`` (what ``up`` does per tier), ``layout`` / ``config`` / ``procs`` /
``infra`` / ``rest`` (paths, config files, process groups, MariaDB and RabbitMQ, HTTP);
``helpers/`` (node simulator, etcd discovery stand-in), ``heat/`` (Heat plugin and facades),
``full/`` and ``wsgi/`` (installed into / run by the cloud's virtualenv), ``main_job`` and
``scenario/`` (the main job), ``tools/``.

Everything that runs before any virtualenv exists (``cli`` and what it imports, ``main_job``,
``scenario.paths`` / ``scenario.services`` / ``scenario.procs``) uses only the standard library.
"""
