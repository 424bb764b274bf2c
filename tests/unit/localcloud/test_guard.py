"""What the network guard decides before nft is asked (its refusals on a real machine are
tests/functional/tooling/test_net_guard.py): who may switch it off, which names and networks
it takes, the table it loads (the cgroup it matches, what it allows, what it rejects and
records), how refused packets are named and counted between snapshots, the report, and
its command line."""

from __future__ import annotations

import sys

import pytest

from localcloud import guard


@pytest.mark.parametrize(("value", "off"), [("off", True), ("0", True), ("No", True),
                                            ("false", True), ("", False), ("on", False)])
def test_only_an_explicit_value_switches_the_guard_off(monkeypatch, value, off):
    monkeypatch.setenv("MAGNUM_NET_GUARD", value)
    assert guard.disabled() is off


def test_a_guard_takes_safe_names_and_allows_loopback_plus_what_the_run_owns():
    for bad in ("", "-x", "a b", "a;b", "x" * 62):
        with pytest.raises(ValueError):
            guard.Guard(bad)
    one = guard.Guard("tests.gw-0", allow=["0.10.0.1/30"])
    assert one.allow == ["127.0.0.0/8", "::1/128", "0.10.0.0/30"]  # normalised
    assert one.table == "magnum_guard_tests_gw_0"  # an nft identifier
    assert one.cgroup.endswith("/magnum-guard/tests.gw-0")
    assert one.state_file == "/run/magnum-guard/tests.gw-0.json"


def test_the_table_rejects_and_records_what_leaves_the_allowed_networks():
    run = guard.Guard("run-1", allow=["0.10.0.0/30"])
    table = run.ruleset()
    assert table.startswith("table inet magnum_guard_run_1 {")
    assert "elements = { 127.0.0.0/8, 0.10.0.0/30 }" in table
    assert "elements = { ::1/128 }" in table
    assert run.nft_path.endswith("magnum-guard/run-1")  # below where nft resolves paths
    assert f'socket cgroupv2 level {run.level} "{run.nft_path}" jump outside' in table
    outside = table[table.index("chain outside"):]
    assert outside.index("ip daddr @allow4 return") < outside.index("reject")
    for name in guard.SETS:  # every family and protocol is recorded with a counter
        assert f"set {name} {{" in table and f"update @{name} " in table
    assert "reject with tcp reset" in table and "policy accept" in table


def test_refused_packets_are_named_and_counted_between_snapshots():
    assert guard._describe("tcp4", {"concat": ["0.10.0.7", 443]}) == "tcp 0.10.0.7:443"
    assert guard._describe("udp6", {"concat": ["100::1", 53]}) == "udp [100::1]:53"
    assert guard._describe("other4", "0.10.0.9") == "ip 0.10.0.9"
    before = {"tcp 0.10.0.7:443": 3, "ip 0.10.0.9": 1}
    after = {"tcp 0.10.0.7:443": 5, "ip 0.10.0.9": 1, "udp 0.10.0.8:53": 2}
    assert guard.difference(before, after) == {"tcp 0.10.0.7:443": 2, "udp 0.10.0.8:53": 2}
    assert guard.difference(after, after) == {}


def test_the_report_says_what_was_refused_and_whose_it_was():
    run = guard.Run("report-1")
    assert not run.failed
    assert run.report() == "network guard: no connection left 127.0.0.0/8 (report-1)"
    run.cloud_leaks = {"tcp 0.10.0.7:443": 4}
    run.left = [4242]
    report = run.report()
    assert run.failed and "no connection left" not in report
    assert "the local cloud's services tried to reach addresses outside" in report
    assert "  tcp 0.10.0.7:443  (4 packets)" in report
    assert "processes still in " in report and "4242 (left guarded)" in report


def test_the_command_line(monkeypatch, capsys):
    with pytest.raises(SystemExit):
        guard.main(["run", "--"])  # no command
    assert "run needs a command" in capsys.readouterr().err
    monkeypatch.setenv("MAGNUM_NET_GUARD", "off")
    assert guard.main(["run", "--", sys.executable, "-c", "raise SystemExit(7)"]) == 7
    assert "network guard: OFF" in capsys.readouterr().err
