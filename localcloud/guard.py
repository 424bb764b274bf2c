"""The network guard: a run's processes may connect to 127.0.0.0/8 (and ::1) only.

A guarded run (``tools/run-tests``, ``tools/main-job``) lives in a cgroup v2 of its own,
``<cgroup2>/magnum-guard/<name>``; every process it starts inherits it. An nftables table
``inet magnum_guard_<name>`` hooks locally generated packets: a packet whose socket belongs to
that cgroup and whose destination is outside 127.0.0.0/8, ::1 and the CIDRs the run declared
as its own (network namespaces it created) is **rejected** (TCP reset, ICMP for the rest: the
process sees ECONNREFUSED or EPERM, nothing leaves the machine) and **recorded** in a set of
destinations with a packet counter. At the end the run lists what was recorded and fails.

The local cloud's services run in ``magnum-guard/localcloud`` under a table of the same kind
(``localcloud up`` puts them there): a run also reports what the cloud's services tried while
it ran (counters that grew).

Needs root (cgroup writes, CAP_NET_ADMIN), cgroup v2 mounted at or under /sys/fs/cgroup (nft
resolves the cgroup's path there) and the ``nft`` command (Debian's ``nftables``). When any of
these is missing, :func:`unavailable` says why and the callers refuse to run unguarded unless
``MAGNUM_NET_GUARD=off`` asks for it explicitly. Standard library only.

``python3 -m localcloud.guard run [--name N] [--allow CIDR]... -- COMMAND...`` runs one command
guarded and exits non-zero when it tried to leave the machine; ``status`` lists active guards.
"""

import argparse
import ipaddress
import json
import os
import re
import shutil
import subprocess
import sys
import time

from localcloud.pids import alive

LOCAL = ("127.0.0.0/8", "::1/128")
ROOT_NAME = "magnum-guard"
CLOUD = "localcloud"
STATE_DIR = "/run/magnum-guard"
NFT_BASE = "/sys/fs/cgroup"  # nft resolves `socket cgroupv2 "path"` below this directory
NO_NFT = "the nft command is missing (Debian package nftables)"
SETS = ("tcp4", "udp4", "other4", "tcp6", "udp6", "other6")


class GuardError(RuntimeError):
    """The guard cannot be set up here; the message says what is missing."""


def disabled():
    """True when the caller asked explicitly to run without the guard."""
    return os.environ.get("MAGNUM_NET_GUARD", "").lower() in ("off", "0", "no", "false")


def cgroup2_mount():
    """The mount point of the cgroup v2 hierarchy, or None."""
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                if right.split()[0] == "cgroup2":
                    return left.split()[4]
    except OSError:
        pass
    return None


def unavailable():
    """Why the guard cannot run on this machine, or None when it can."""
    if os.geteuid() != 0:
        return "it needs root (cgroup v2 writes and CAP_NET_ADMIN for nftables)"
    mount = cgroup2_mount()
    if not mount:
        return "no cgroup v2 hierarchy is mounted"
    if mount != NFT_BASE and not mount.startswith(NFT_BASE + "/"):
        return "cgroup v2 is mounted at %s, not at or under %s where nft looks" % (
            mount, NFT_BASE)
    if not shutil.which("nft"):
        return NO_NFT
    return None


def require():
    """Raise GuardError unless the guard can run (or the caller switched it off)."""
    why = unavailable()
    if why:
        raise GuardError(
            "the network guard cannot run: %s. Install nftables (apt-get install nftables) and "
            "run as root, or set MAGNUM_NET_GUARD=off to run unguarded on purpose." % why)


def _nft(*args, input=None):
    res = subprocess.run(["nft", *args], input=input, capture_output=True, text=True)
    if res.returncode != 0:
        raise GuardError("nft %s failed: %s" % (" ".join(args[:3]), res.stderr.strip()))
    return res.stdout


def _ident(name):
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


class Guard:
    """One guarded cgroup and its nftables table."""

    def __init__(self, name, allow=()):
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,60}", name):
            raise ValueError("bad guard name %r" % name)
        self.name = name
        self.allow = [str(ipaddress.ip_network(c, strict=False)) for c in (*LOCAL, *allow)]
        self.table = "magnum_guard_" + _ident(name)
        mount = cgroup2_mount() or NFT_BASE
        self.cgroup = os.path.join(mount, ROOT_NAME, name)
        self.nft_path = os.path.relpath(self.cgroup, NFT_BASE)
        self.level = len(os.path.relpath(self.cgroup, mount).split(os.sep))
        self.state_file = os.path.join(STATE_DIR, name + ".json")

    # ------------------------------------------------------------------ setup
    def ruleset(self):
        v4 = ", ".join(c for c in self.allow if ":" not in c)
        v6 = ", ".join(c for c in self.allow if ":" in c)
        sets = "".join(
            "  set %s { type %s; flags dynamic; counter; size 65535; }\n"
            % (s, ("ipv4_addr" if s.endswith("4") else "ipv6_addr")
                  + ("" if s.startswith("other") else " . inet_service"))
            for s in SETS)
        record = []
        for fam, ipx in (("4", "ip"), ("6", "ip6")):
            proto = "ipv4" if fam == "4" else "ipv6"
            record += [
                "    meta nfproto %s meta l4proto tcp update @tcp%s { %s daddr . tcp dport } "
                "reject with tcp reset" % (proto, fam, ipx),
                "    meta nfproto %s meta l4proto udp update @udp%s { %s daddr . udp dport } "
                "reject with icmpx type admin-prohibited" % (proto, fam, ipx),
                "    meta nfproto %s update @other%s { %s daddr } "
                "reject with icmpx type admin-prohibited" % (proto, fam, ipx),
            ]
        return (
            "table inet %s {\n"
            "  set allow4 { type ipv4_addr; flags interval; elements = { %s }; }\n"
            "  set allow6 { type ipv6_addr; flags interval; elements = { %s }; }\n"
            "%s"
            "  chain output {\n"
            "    type filter hook output priority -10; policy accept;\n"
            "    socket cgroupv2 level %d \"%s\" jump outside\n"
            "  }\n"
            "  chain outside {\n"
            "    ip daddr @allow4 return\n"
            "    ip6 daddr @allow6 return\n"
            "%s\n"
            "  }\n"
            "}\n" % (self.table, v4, v6, sets, self.level, self.nft_path, "\n".join(record)))

    def start(self):
        """Create the cgroup and (re)load the table; idempotent."""
        require()
        collect_stale()
        os.makedirs(self.cgroup, exist_ok=True)
        if self.table in tables():
            _nft("delete", "table", "inet", self.table)
        _nft("-f", "-", input=self.ruleset())
        os.makedirs(STATE_DIR, exist_ok=True)
        with open(self.state_file, "w") as f:
            json.dump({"owner": os.getpid(), "started": time.time(), "allow": self.allow}, f)
        return self

    def active(self):
        return os.path.isdir(self.cgroup) and self.table in tables()

    def enter(self, pid=0):
        """Move a process (0: the calling one) into the guarded cgroup."""
        with open(os.path.join(self.cgroup, "cgroup.procs"), "w") as f:
            f.write(str(pid))

    def preexec(self):
        """A ``preexec_fn`` for subprocess: the child enters the cgroup before it execs."""
        path = os.path.join(self.cgroup, "cgroup.procs")

        def enter():
            with open(path, "w") as f:
                f.write("0")

        return enter

    def processes(self):
        try:
            with open(os.path.join(self.cgroup, "cgroup.procs")) as f:
                return [int(p) for p in f.read().split()]
        except OSError:
            return []

    # ------------------------------------------------------------------ results
    def records(self):
        """{"tcp 192.0.2.7:443": packets, ...}: what the guard refused so far."""
        return records(self.table)

    def stop(self):
        """Drop the table and the cgroup; processes still inside are left (and returned)."""
        left = [p for p in self.processes() if alive(p)]
        if left:
            return left
        if self.table in tables():
            _nft("delete", "table", "inet", self.table)
        try:
            os.rmdir(self.cgroup)
        except OSError:
            pass
        try:
            os.remove(self.state_file)
        except OSError:
            pass
        return []


def _describe(set_name, value):
    proto = set_name[:-1]
    if isinstance(value, dict) and "concat" in value:
        addr, port = value["concat"]
        shown = "[%s]:%s" % (addr, port) if ":" in str(addr) else "%s:%s" % (addr, port)
        return "%s %s" % (proto, shown)
    return "%s %s" % ("ip" if proto == "other" else proto, value)


def records(table):
    """What the guard table ``table`` refused: {"tcp 192.0.2.7:443": packets, ...}."""
    if table not in tables():
        return {}
    out = {}
    for name in SETS:
        data = json.loads(_nft("-j", "list", "set", "inet", table, name))
        for item in data["nftables"]:
            for elem in (item.get("set") or {}).get("elem") or []:
                inner = elem.get("elem", elem) if isinstance(elem, dict) else elem
                value = inner.get("val", inner) if isinstance(inner, dict) else inner
                counter = inner.get("counter") if isinstance(inner, dict) else None
                out[_describe(name, value)] = (counter or {}).get("packets", 1)
    return out


def tables():
    try:
        out = subprocess.run(["nft", "list", "tables"], capture_output=True, text=True).stdout
    except OSError:
        return set()
    return {line.split()[-1] for line in out.splitlines() if line.startswith("table inet ")}


def collect_stale():
    """Remove the guards of runs that ended without cleaning up (owner gone, cgroup empty)."""
    try:
        names = os.listdir(STATE_DIR)
    except OSError:
        return
    for entry in names:
        name = entry[:-len(".json")]
        if not entry.endswith(".json") or name == CLOUD:
            continue
        try:
            with open(os.path.join(STATE_DIR, entry)) as f:
                owner = json.load(f).get("owner")
        except (OSError, ValueError):
            owner = None
        if owner and alive(owner):
            continue
        Guard(name).stop()


def cloud_guard():
    """The guard the local cloud's services run under."""
    return Guard(CLOUD)


def difference(before, after):
    """Records that are new or whose packet counter grew between two snapshots."""
    return {k: v - before.get(k, 0) for k, v in after.items() if v > before.get(k, 0)}


class Run:
    """``with Run("tests") as run:`` - a guarded part of a job, checked when it ends.

    ``run.preexec`` goes to subprocess; ``run.report()`` after the block says what was refused
    (the run's own processes and the local cloud's while it lasted) and ``run.failed`` is true
    when anything was.
    """

    def __init__(self, name, allow=()):
        self.guard = Guard(name, allow)
        self.cloud = cloud_guard()
        self.cloud_before = {}
        self.leaks = {}
        self.cloud_leaks = {}
        self.left = []

    def __enter__(self):
        self.guard.start()
        self.cloud_before = self.cloud.records() if self.cloud.active() else {}
        return self

    @property
    def preexec(self):
        return self.guard.preexec()

    def __exit__(self, *exc):
        self.leaks = self.guard.records()
        if self.cloud.active():
            self.cloud_leaks = difference(self.cloud_before, self.cloud.records())
        self.left = self.guard.stop()
        return False

    @property
    def failed(self):
        return bool(self.leaks or self.cloud_leaks)

    def report(self):
        lines = []
        if not self.failed:
            lines.append("network guard: no connection left 127.0.0.0/8 (%s)" % self.guard.name)
        for title, found in (("this run's processes", self.leaks),
                             ("the local cloud's services", self.cloud_leaks)):
            if found:
                lines.append("network guard: %s tried to reach addresses outside this machine "
                             "(refused):" % title)
                lines += ["  %s  (%d packets)" % (k, v) for k, v in sorted(found.items())]
        if self.left:
            lines.append("network guard: processes still in %s: %s (left guarded)"
                         % (self.guard.cgroup, " ".join(map(str, self.left))))
        return "\n".join(lines)


def run_command(name, argv, allow=(), **popen):
    """Run argv guarded (``popen``: env, cwd...); its exit status, or 3 when it tried to
    leave the machine."""
    if disabled():
        print("network guard: OFF (MAGNUM_NET_GUARD=off): connections are NOT checked",
              file=sys.stderr, flush=True)
        return subprocess.call(argv, **popen)
    with Run(name, allow) as run:
        with subprocess.Popen(argv, preexec_fn=run.preexec, **popen) as proc:
            try:
                rc = proc.wait()
            except KeyboardInterrupt:  # the child got the same SIGINT: let it finish
                rc = proc.wait()
    print(run.report(), file=sys.stderr, flush=True)
    return rc if not run.failed else (rc or 3)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m localcloud.guard", description=(
        "Run a command whose processes may only connect to 127.0.0.0/8 (and ::1)."))
    sub = parser.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="run COMMAND guarded; fail if it tried to leave")
    run.add_argument("--name", default="run-%d" % os.getpid())
    run.add_argument("--allow", action="append", default=[], metavar="CIDR",
                     help="also allow a network the run owns (e.g. a namespace it created)")
    run.add_argument("command", nargs=argparse.REMAINDER)
    sub.add_parser("status", help="the active guards and what they refused")
    args = parser.parse_args(argv)
    if args.cmd == "run":
        command = args.command[1:] if args.command[:1] == ["--"] else args.command
        if not command:
            parser.error("run needs a command")
        try:
            return run_command(args.name, command, args.allow)
        except GuardError as exc:
            print("network guard: %s" % exc, file=sys.stderr)
            return 2
    why = unavailable()
    if why:
        print("network guard unavailable: %s" % why)
        return 1
    for table in sorted(t for t in tables() if t.startswith("magnum_guard_")):
        found = records(table)
        print("%s: %s" % (table, ", ".join("%s (%d)" % kv for kv in sorted(found.items()))
                          or "nothing refused"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
