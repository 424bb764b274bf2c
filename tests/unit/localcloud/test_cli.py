"""``localcloud``'s commands that read the state directory only (a fresh one per test; ``up``
and ``down`` are tests/localcloud/harness): ``env`` points at it, ``status`` says which
services run and answer (the node simulator by its heartbeat) and is NOT UP unless all do,
``node`` lists the simulated nodes and stops or starts one by name or server id."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from localcloud import cli, layout


@pytest.fixture
def lay(tmp_path, monkeypatch):
    monkeypatch.setenv("MAGNUM_LOCALCLOUD_DIR", str(tmp_path / "state"))
    state = layout.Layout()
    state.mkdirs()
    previous = signal.getsignal(signal.SIGPIPE)
    yield state
    signal.signal(signal.SIGPIPE, previous)  # main() restores the default for `| head`


def test_env_points_at_the_state_directory(lay, capsys):
    assert cli.main(["env", "--cloud", "admin"]) == 0
    exports = dict(line[len("export "):].split("=", 1)
                   for line in capsys.readouterr().out.splitlines()
                   if line.startswith("export "))
    assert exports["MAGNUM_LOCALCLOUD_DIR"] == lay.root
    assert exports["OS_CLOUD"] == "localcloud-admin"
    assert exports["OS_CLIENT_CONFIG_FILE"] == lay.clouds_yaml


def test_status_is_up_only_when_every_service_runs_and_answers(lay, capsys):
    assert cli.main(["status", "--json"]) == 1
    status = json.loads(capsys.readouterr().out)
    assert (status["tier"], status["up"], status["state_dir"]) == ("lite", False, lay.root)
    assert {row["service"] for row in status["services"]} >= {"keystone", "heat-api",
                                                              "nodesim"}
    assert not any(row["running"] for row in status["services"])
    sleeper = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        with open(lay.pidfile("nodesim"), "w") as f:
            f.write(f"{sleeper.pid} -\n")
        (row,) = [r for r in cli.collect_status(lay)["services"] if r["service"] == "nodesim"]
        assert row["running"] and row["pid"] == sleeper.pid and row["answers"] is False
        heartbeat = os.path.join(lay.run, "nodesim.heartbeat")
        open(heartbeat, "w").close()
        (row,) = [r for r in cli.collect_status(lay)["services"] if r["service"] == "nodesim"]
        assert row["answers"] is True and row["detail"].startswith("last poll ")
        stale = time.time() - 120
        os.utime(heartbeat, (stale, stale))
        (row,) = [r for r in cli.collect_status(lay)["services"] if r["service"] == "nodesim"]
        assert row["answers"] is False
    finally:
        sleeper.kill()
        sleeper.wait()
    assert cli.main(["status"]) == 1
    assert "NOT UP" in capsys.readouterr().out


def _nodes(lay) -> None:
    with open(os.path.join(lay.run, "nodesim-nodes.json"), "w") as f:
        json.dump([{"server_id": "srv-1", "api": True,
                    "env": {"NODE_NAME": "c1-master-0", "NODEGROUP_ROLE": "master",
                            "NODE_IP": "127.10.0.11", "CLUSTER_UUID": "cl-1",
                            "IS_MASTER": "true"}},
                   {"server_id": "srv-2", "env": {"NODE_NAME": "c1-node-0",
                                                  "NODEGROUP_ROLE": "worker",
                                                  "IS_MASTER": "false"}}], f)


def _listed(capsys) -> dict:
    assert cli.main(["node", "list", "--json"]) == 0
    return {row["name"]: row for row in json.loads(capsys.readouterr().out)}


def test_nodes_are_listed_and_stopped_or_started_by_name_or_server_id(lay, capsys):
    _nodes(lay)
    rows = _listed(capsys)
    assert rows["c1-master-0"]["api"] and not rows["c1-node-0"]["api"]
    assert rows["c1-master-0"]["ip"] == "127.10.0.11"
    assert not any(row["stopped"] for row in rows.values())
    assert cli.main(["node", "stop", "srv-2"]) == 0
    assert "stopped srv-2" in capsys.readouterr().out
    assert _listed(capsys)["c1-node-0"]["stopped"]
    with open(os.path.join(lay.run, "nodesim-stopped.json")) as f:
        assert json.load(f) == ["c1-node-0"]  # what the simulator reads
    assert cli.main(["node", "start", "c1-node-0"]) == 0
    assert "reports it Ready" in capsys.readouterr().out
    assert not _listed(capsys)["c1-node-0"]["stopped"]
    assert cli.main(["node", "stop", "nobody"]) == 1
    assert "no simulated node named 'nobody'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["node", "stop"])
