"""The network guard refuses and records what leaves 127.0.0.0/8, without any foreign address.

The "foreign" host is a network namespace this test creates: a veth pair whose far end holds
a TEST-NET address that no route or address of this machine overlaps (checked first), so even
a broken guard could only reach our own namespace. The guarded commands run in guards of
their own, siblings of the test run's guard: what they try is theirs to report, not the run's.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

from localcloud import guard

CANDIDATES = ("198.51.100.0/30", "203.0.113.0/30", "198.51.100.252/30", "203.0.113.252/30")


def _ip(*args: str) -> list:
    out = subprocess.run(["ip", "-j", *args], capture_output=True, text=True, check=True).stdout
    return json.loads(out or "[]")


def _free_network() -> ipaddress.IPv4Network:
    """A TEST-NET /30 that no address or route of this machine (but the default) overlaps."""
    used = []
    for route in _ip("-4", "route", "show", "table", "all"):
        dst = route.get("dst", "")
        if dst and dst != "default":
            used.append(ipaddress.ip_network(dst if "/" in dst else dst + "/32", strict=False))
    for link in _ip("-4", "addr"):
        for addr in link.get("addr_info", []):
            used.append(ipaddress.ip_network(f"{addr['local']}/{addr['prefixlen']}",
                                             strict=False))
    for cidr in CANDIDATES:
        net = ipaddress.ip_network(cidr)
        if not any(net.overlaps(u) for u in used):
            return net
    pytest.fail(f"every candidate TEST-NET range overlaps this machine's networks: {used}")


@pytest.fixture
def namespace():
    """A namespace at the far end of a veth: (its address, a TCP port, a UDP port)."""
    why = guard.unavailable()
    assert why is None, f"the network guard cannot run here: {why}"
    net = _free_network()
    host_ip, ns_ip = (str(h) for h in list(net.hosts())[:2])
    tag = uuid.uuid4().hex[:6]
    ns, host_if, ns_if = f"lcguard-{tag}", f"lcg{tag}a", f"lcg{tag}b"
    steps = [
        ["ip", "netns", "add", ns],
        ["ip", "link", "add", host_if, "type", "veth", "peer", "name", ns_if],
        ["ip", "link", "set", ns_if, "netns", ns],
        ["ip", "addr", "add", f"{host_ip}/{net.prefixlen}", "dev", host_if],
        ["ip", "link", "set", host_if, "up"],
        ["ip", "-n", ns, "addr", "add", f"{ns_ip}/{net.prefixlen}", "dev", ns_if],
        ["ip", "-n", ns, "link", "set", ns_if, "up"],
        ["ip", "-n", ns, "link", "set", "lo", "up"],
    ]
    server = None
    try:
        for argv in steps:
            subprocess.run(argv, check=True, capture_output=True)
        route = _ip("route", "get", ns_ip)[0]
        assert route["dev"] == host_if, f"{ns_ip} would not go into our namespace: {route}"
        server = subprocess.Popen(
            ["ip", "netns", "exec", ns, sys.executable, "-c", textwrap.dedent(f"""
                import socket, sys
                tcp = socket.socket(); tcp.bind(({ns_ip!r}, 0)); tcp.listen()
                udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); udp.bind(({ns_ip!r}, 0))
                print(tcp.getsockname()[1], udp.getsockname()[1], flush=True)
                while True:
                    conn, _ = tcp.accept(); conn.sendall(b"hello from the namespace"); conn.close()
            """)], stdout=subprocess.PIPE, text=True)
        tcp_port, udp_port = (int(p) for p in server.stdout.readline().split())
        yield net, ns_ip, tcp_port, udp_port
    finally:
        if server is not None:
            server.kill()
            server.wait()
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        subprocess.run(["ip", "link", "del", host_if], capture_output=True)


CLIENT = textwrap.dedent("""
    import socket, sys
    addr, tcp_port, udp_port, local_port = sys.argv[1], *map(int, sys.argv[2:5])
    try:
        with socket.create_connection((addr, tcp_port), timeout=5) as s:
            print("tcp:", s.recv(100).decode())
    except OSError as e:
        print("tcp:", type(e).__name__)
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        u.sendto(b"x", (addr, udp_port)); print("udp: sent")
    except OSError as e:
        print("udp:", type(e).__name__)
    with socket.create_connection(("127.0.0.1", local_port), timeout=5):
        print("local: ok")
""")


def _guarded(name: str, allow: list[str], *args) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "localcloud.guard", "run", "--name", name]
    for cidr in allow:
        argv += ["--allow", cidr]
    env = {k: v for k, v in os.environ.items() if k != "MAGNUM_NET_GUARD"}
    return subprocess.run(argv + ["--", sys.executable, "-c", CLIENT, *map(str, args)],
                          capture_output=True, text=True, timeout=60, env=env)


@pytest.fixture
def local_listener():
    """A listener on 127.0.0.1: the one place the guarded client may always reach."""
    sock = socket.create_server(("127.0.0.1", 0))
    yield sock.getsockname()[1]
    sock.close()


def test_a_namespace_the_guard_was_not_told_about_is_refused_and_recorded(namespace,
                                                                          local_listener):
    net, ns_ip, tcp_port, udp_port = namespace
    name = f"selftest-{uuid.uuid4().hex[:6]}"
    res = _guarded(name, [], ns_ip, tcp_port, udp_port, local_listener)
    assert res.returncode == 3, res.stdout + res.stderr
    assert "tcp: ConnectionRefusedError" in res.stdout, res.stdout
    assert "udp: PermissionError" in res.stdout, res.stdout
    assert "local: ok" in res.stdout, res.stdout
    assert f"tcp {ns_ip}:{tcp_port}" in res.stderr and f"udp {ns_ip}:{udp_port}" in res.stderr
    assert "127.0.0.1" not in res.stderr.split("refused", 1)[-1], res.stderr
    assert f"magnum_guard_{name.replace('-', '_')}" not in guard.tables()


def test_a_namespace_the_run_declared_is_reached(namespace, local_listener):
    net, ns_ip, tcp_port, udp_port = namespace
    res = _guarded(f"selftest-{uuid.uuid4().hex[:6]}", [str(net)], ns_ip, tcp_port, udp_port,
                   local_listener)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "tcp: hello from the namespace" in res.stdout and "udp: sent" in res.stdout
    assert "no connection left 127.0.0.0/8" in res.stderr


def test_a_run_that_ended_without_cleaning_up_is_collected():
    """A crashed run's cgroup and table go at the next guard's start."""
    stale = guard.Guard(f"selftest-{uuid.uuid4().hex[:6]}").start()
    with open(stale.state_file, "w") as f:
        json.dump({"owner": 2 ** 22 + 1, "started": time.time()}, f)  # above pid_max: gone
    guard.Guard(f"selftest-{uuid.uuid4().hex[:6]}").start().stop()
    assert stale.table not in guard.tables() and not os.path.exists(stale.cgroup)
