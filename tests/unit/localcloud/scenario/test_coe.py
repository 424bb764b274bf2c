"""The ``openstack`` runner of the main job, with the real client of our venv and no cloud:
what a failure carries (the command to reproduce it, the HTTP status magnumclient printed,
stderr without plugin noise), how output is read back as JSON (unset ``-`` fields as
None), the environment it runs in, and the UUID of an accepted request."""

from __future__ import annotations

import pytest

from localcloud.scenario import coe


@pytest.fixture
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("MAGNUM_LOCALCLOUD_DIR", str(tmp_path))
    monkeypatch.setenv("OS_CLOUD", "somewhere-else")
    monkeypatch.delenv("SHELL", raising=False)
    return coe.Openstack("nosuch", timeout=60)


def test_the_client_runs_alone_in_its_environment_and_failures_carry_the_command(
        client, tmp_path):
    assert "OS_CLOUD" not in client.env and client.env["SHELL"] == "/bin/sh"
    assert client.env["OS_CLIENT_CONFIG_FILE"] == str(tmp_path.resolve() / "clouds.yaml")
    with pytest.raises(coe.CliError) as failed:
        client.run("coe", "cluster", "list")
    err = failed.value
    assert err.returncode == 1 and "Cloud nosuch was not found" in err.stderr
    assert str(err).startswith(f"`{client.argv('coe', 'cluster', 'list')[0]} --os-cloud "
                               "nosuch coe cluster list` exited 1:")
    assert err.http_status is None
    assert client.display("coe", "cluster", "show", "a b") == \
        "openstack --os-cloud nosuch coe cluster show 'a b'"


def test_what_a_failure_says():
    err = coe.CliError(["openstack"], 1, "", "Bad request (HTTP 400) (Request-ID: req-1)")
    assert err.http_status == 400
    noisy = "Could not load 'foo': no module\nERROR: quota exceeded\nCould not load 'bar': x"
    assert coe._clean(noisy) == "ERROR: quota exceeded"
    assert coe._unreachable("Unable to establish connection to http://127.0.0.1:5000/v3")
    assert coe._unreachable("[Errno 111] Connection refused")
    assert not coe._unreachable("Forbidden (HTTP 403)")


def test_output_reads_back_as_json_with_unset_fields_as_none():
    shown = coe.Result(["x"], 'Request accepted\n{"name": "c1", "stack_id": "-"}\n', 0.1)
    assert shown.json() == {"name": "c1", "stack_id": None}
    assert coe.Result(["x"], '[{"uuid": "u"}]', 0.1).json() == [{"uuid": "u"}]
    with pytest.raises(coe.CliError, match="output is not JSON"):
        coe.Result(["x"], "no json here", 0.1).json()


def test_the_uuid_of_an_accepted_request():
    uuid = "0b5d9a8e-4c71-4b38-9a55-2f1f8b0c9d11"
    assert coe.accepted_uuid(f"Request to create cluster {uuid} accepted") == uuid
    with pytest.raises(ValueError, match="no uuid"):
        coe.accepted_uuid("Request accepted")
