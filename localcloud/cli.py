"""localcloud's command line: up, down, status, env, node."""

import argparse
import fcntl
import json
import os
import shutil
import sys
import time

from . import guard, infra, procs, rest
from .cloud import Cloud
from .config import auth_url
from .full import FullCloud
from .layout import CLI, DB_PREFIX, HERE, Layout, load_secrets
from .procs import StartError, log
from .tiers import all_known_services, services_for, url

# ----------------------------------------------------------------------------- up

class _Lock:
    """One `up`/`down` at a time per state directory (parallel test workers call `up`)."""

    def __init__(self, layout):
        layout.mkdirs()
        self.path = os.path.join(layout.root, ".lock")

    def __enter__(self):
        self.f = open(self.path, "a")
        try:
            fcntl.flock(self.f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log("another localcloud up/down is running; waiting for it")
            fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        self.f.close()


def cmd_up(args):
    with _Lock(Layout()):
        return _up(args)


def _up(args):
    layout = Layout()
    previous = layout.read_tier()
    tier = args.tier or previous or "lite"
    if previous and previous != tier:
        log("switching tier %s -> %s: stopping the %s services first" % (previous, tier, previous))
        _down(layout)
    # recorded before the services start: an `up` waiting on the lock meanwhile (a test
    # fixture that found the cloud down) brings this tier, instead of switching back
    layout.write_tier(tier)
    cloud = FullCloud(layout) if tier == "full" else Cloud(layout, tier)
    try:
        guard_services(layout)
        cloud.up()
    except StartError as e:
        print("localcloud up FAILED: %s" % e, file=sys.stderr)
        print("logs: %s" % layout.logs, file=sys.stderr)
        return 1
    print()
    print("localcloud is up (tier %s). State: %s" % (tier, layout.root))
    print("  clouds.yaml:          %s  (clouds localcloud-admin, localcloud-demo)"
          % layout.clouds_yaml)
    print("  Magnum conf fragment: %s" % layout.magnum_conf)
    print("  logs:                 %s" % layout.logs)
    print("  eval \"$(%s env)\"" % CLI)
    return 0


def guard_services(layout):
    """Run the cloud's services under the network guard (localcloud/guard.py): its cgroup and
    table are made once; services already running are moved in, new ones start inside."""
    if not guard.disabled() and guard.unavailable() == guard.NO_NFT and os.geteuid() == 0:
        infra.apt_install("nftables")
    why = "MAGNUM_NET_GUARD=off" if guard.disabled() else guard.unavailable()
    if why:
        log("WARNING: the local cloud's services run without the network guard (%s)" % why)
        return
    cloud = guard.cloud_guard()
    if not cloud.active():
        cloud.start()
    for name in all_known_services():
        pid = procs.running_pid(layout, name)
        for member in procs.group_members(pid) if pid else ():
            try:
                cloud.enter(member)
            except OSError:
                pass  # exited meanwhile


# ----------------------------------------------------------------------------- down

def _down(layout):
    names = list(reversed(all_known_services()))
    # the node simulator first (it would signal half-stopped stacks), then everything at once
    stopped = procs.stop_many(layout, ["nodesim"])
    stopped += procs.stop_many(layout, [n for n in names if n != "nodesim"])
    if not guard.unavailable():
        guard.cloud_guard().stop()  # kept while anything still runs inside
    return stopped


def cmd_down(args):
    layout = Layout()
    with _Lock(layout):
        return _cmd_down(layout, args)


def _cmd_down(layout, args):
    stopped = _down(layout)
    log("stopped: %s" % (", ".join(stopped) if stopped else "nothing was running"))
    if args.purge:
        _purge(layout)
    return 0


def _purge(layout):
    """Forget the cloud's data (databases, vhosts, configs) but keep the venv and secrets."""
    out = infra.mysql("SHOW DATABASES LIKE '%s%%';" % DB_PREFIX.replace("_", "\\_"),
                      check=False)
    for name in (out or "").split():
        infra.drop_database(name)
        log("dropped database %s" % name)
    for vhost in ("localcloud_heat", "localcloud_heatfull", "localcloud_nova",
                  "localcloud_neutron", "localcloud_octavia"):
        infra.delete_vhost(vhost)
    for d in (layout.etc, layout.markers, layout.data, layout.run):
        shutil.rmtree(d, ignore_errors=True)
    for f in (layout.tier_file,):
        try:
            os.remove(f)
        except OSError:
            pass
    log("purged %s (kept venv, secrets.json and logs)" % layout.root)


# ----------------------------------------------------------------------------- status

def _heat_engines(layout, sec):
    """Number of heat-engine workers Heat reports as up, or None if it cannot be asked."""
    try:
        token, body = rest.password_token(auth_url(), "admin", sec["admin"], project="admin",
                                          )
        project = body["project"]["id"]
        services = rest.request("GET", url("heat-api", "/v1/%s/services" % project), token,
                                timeout=10)[2]["services"]
    except Exception:
        return None
    hosts = {}
    for s in services:
        if s.get("status") == "up":
            hosts[s["engine_id"]] = True
    return len(hosts)


def collect_status(layout):
    tier = layout.read_tier() or "lite"
    sec = load_secrets(layout) if os.path.exists(layout.secrets_file) else {}
    rows = []
    for name, probe in services_for(tier):
        pid = procs.running_pid(layout, name)
        row = {"service": name, "pid": pid, "running": bool(pid), "answers": None,
               "rss_mib": None, "pss_mib": None, "procs": 0}
        if pid:
            rss, pss, n = procs.memory(pid)
            row.update(rss_mib=round(rss / 1024.0, 1), pss_mib=round(pss / 1024.0, 1), procs=n)
            if probe:
                row["answers"] = procs.http_ok(probe)
            elif name in ("heat-engine", "heatfull-engine"):
                engines = _heat_engines(layout, sec) if sec else None
                row["answers"] = bool(engines)
                row["detail"] = "%s engine workers up" % engines
            elif name == "nodesim":
                hb = os.path.join(layout.run, "nodesim.heartbeat")
                try:
                    age = time.time() - os.path.getmtime(hb)
                    row["answers"] = age < 30
                    row["detail"] = "last poll %.0fs ago" % age
                except OSError:
                    row["answers"] = False
            else:
                row["answers"] = True
        rows.append(row)
    up = bool(rows) and all(r["running"] and r["answers"] for r in rows)
    return {"tier": tier, "up": up, "state_dir": layout.root, "services": rows}


def cmd_status(args):
    layout = Layout()
    st = collect_status(layout)
    if args.json:
        print(json.dumps(st, indent=1))
        return 0 if st["up"] else 1
    print("localcloud tier %s: %s   (state %s)" % (st["tier"], "UP" if st["up"] else "NOT UP",
                                                 st["state_dir"]))
    print("%-18s %8s  %-8s %-8s %9s %9s %5s  %s" % (
        "service", "pid", "process", "answers", "RSS MiB", "PSS MiB", "procs", "detail"))
    tot_rss = tot_pss = 0.0
    for r in st["services"]:
        ans = "-" if r["answers"] is None else ("yes" if r["answers"] else "NO")
        print("%-18s %8s  %-8s %-8s %9s %9s %5s  %s" % (
            r["service"], r["pid"] or "-", "running" if r["running"] else "STOPPED", ans,
            r["rss_mib"] if r["rss_mib"] is not None else "-",
            r["pss_mib"] if r["pss_mib"] is not None else "-", r["procs"] or "-",
            r.get("detail", "")))
        tot_rss += r["rss_mib"] or 0
        tot_pss += r["pss_mib"] or 0
    print("%-18s %8s  %-8s %-8s %9.1f %9.1f" % ("total", "", "", "", tot_rss, tot_pss))
    return 0 if st["up"] else 1


# ----------------------------------------------------------------------------- node

def _booted_nodes(layout):
    try:
        with open(os.path.join(layout.run, "nodesim-nodes.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return []


def _stopped_file(layout):
    return os.path.join(layout.run, "nodesim-stopped.json")


def cmd_node(args):
    """List the simulated nodes, or stop / start one (its cluster then sees it NotReady)."""
    layout = Layout()
    nodes = _booted_nodes(layout)
    if args.action == "list":
        try:
            with open(_stopped_file(layout)) as f:
                stopped = set(json.load(f))
        except (OSError, ValueError):
            stopped = set()
        rows = [{"name": n["env"].get("NODE_NAME") or n["server_id"],
                 "server_id": n["server_id"], "role": n["env"].get("NODEGROUP_ROLE", ""),
                 "ip": n["env"].get("NODE_IP", ""), "cluster": n["env"].get("CLUSTER_UUID", ""),
                 "api": bool(n.get("api")) and n["env"].get("IS_MASTER") == "true",
                 "stopped": bool({n["env"].get("NODE_NAME"), n["server_id"]} & stopped)}
                for n in nodes]
        if args.json:
            print(json.dumps(rows, indent=1))
            return 0
        print("%-36s %-7s %-15s %-4s %-8s %s" % ("node", "role", "address", "API", "state",
                                                 "cluster"))
        for r in rows:
            print("%-36s %-7s %-15s %-4s %-8s %s" % (
                r["name"], r["role"], r["ip"], "yes" if r["api"] else "-",
                "stopped" if r["stopped"] else "running", r["cluster"]))
        return 0
    match = [n for n in nodes if args.server in (n["server_id"], n["env"].get("NODE_NAME"))]
    if not match:
        print("no simulated node named %r (see `localcloud node list`)" % args.server,
              file=sys.stderr)
        return 1
    node = match[0]
    if (layout.read_tier() or "lite") == "full":
        # a real Nova server: stop or start it there; the simulator follows its status
        sec = load_secrets(layout)
        token, _ = rest.password_token(auth_url(), "admin", sec["admin"], project="admin")
        rest.request("POST", url("nova-api", "/v2.1/servers/%s/action" % node["server_id"]),
                     token, body={"os-stop" if args.action == "stop" else "os-start": None})
    with open(_stopped_file(layout) + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with open(_stopped_file(layout)) as f:
                stopped = set(json.load(f))
        except (OSError, ValueError):
            stopped = set()
        name = node["env"].get("NODE_NAME") or node["server_id"]
        stopped = stopped | {name} if args.action == "stop" else stopped - {name}
        tmp = _stopped_file(layout) + ".tmp"
        with open(tmp, "w") as f:
            json.dump(sorted(stopped), f)
        os.replace(tmp, _stopped_file(layout))
    log("%s %s: the node simulator reports it %s within a few seconds"
        % ("stopped" if args.action == "stop" else "started", args.server,
           "NotReady" if args.action == "stop" else "Ready"))
    return 0


# ----------------------------------------------------------------------------- env

def cmd_env(args):
    layout = Layout()
    cloud = "localcloud-" + args.cloud
    lines = [
        "export MAGNUM_LOCALCLOUD_DIR=%s" % layout.root,
        "export OS_CLIENT_CONFIG_FILE=%s" % layout.clouds_yaml,
        "export OS_CLOUD=%s" % cloud,
        "export LOCALCLOUD_MAGNUM_CONF=%s" % layout.magnum_conf,
        "export LOCALCLOUD_VENV=%s" % layout.venv,
        "export LOCALCLOUD_LOGS=%s" % layout.logs,
        "export LOCALCLOUD_OPENRC_ADMIN=%s" % os.path.join(layout.root, "admin-openrc"),
        "export LOCALCLOUD_OPENRC_DEMO=%s" % os.path.join(layout.root, "demo-openrc"),
        "# OpenStack CLI of the cloud venv: %s" % layout.bin("openstack"),
        "# README: %s" % os.path.join(HERE, "README.md"),
    ]
    print("\n".join(lines))
    return 0


def main(argv):
    import signal

    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `localcloud status | head` is fine
    p = argparse.ArgumentParser(prog="localcloud", description=(
        "Run real Keystone, Heat, Barbican and Glance (and, in tier full, Nova/Neutron/"
        "Placement/Octavia with fake drivers) on this machine for Magnum's tests."))
    sub = p.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("up", help="install (once) and start the cloud; idempotent")
    up.add_argument("--tier", choices=["lite", "full"],
                    help="switch to this tier (default: the tier recorded in the state "
                    "directory, i.e. the one up or being brought up; else lite)")
    up.set_defaults(func=cmd_up)
    down = sub.add_parser("down", help="stop the processes localcloud started")
    down.add_argument("--purge", action="store_true",
                      help="also drop the cloud's databases, vhosts and configs (keeps the venv)")
    down.set_defaults(func=cmd_down)
    st = sub.add_parser("status", help="each service: running? answering? memory")
    st.add_argument("--json", action="store_true")
    st.set_defaults(func=cmd_status)
    node = sub.add_parser("node", help="the simulated nodes: list, or stop/start one")
    node.add_argument("action", choices=["list", "stop", "start"])
    node.add_argument("server", nargs="?", help="node name or server id (stop, start)")
    node.add_argument("--json", action="store_true", help="list as JSON")
    node.set_defaults(func=cmd_node)
    env = sub.add_parser("env", help="print shell exports (eval \"$(localcloud env)\")")
    env.add_argument("--cloud", choices=["demo", "admin"], default="demo")
    env.set_defaults(func=cmd_env)
    args = p.parse_args(argv)
    if args.cmd == "node" and args.action != "list" and not args.server:
        p.error("node %s needs a node name or server id" % args.action)
    return args.func(args)
