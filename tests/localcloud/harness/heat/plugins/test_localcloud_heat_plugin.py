"""The lite tier's Heat plugin, run in the cloud's venv where Heat loads it (its resources
inside real stacks are tests/localcloud/harness/test_heat.py): the IPAM hands out unique,
persistent 127.x addresses per owner and refuses any other, the stubbed constraints refuse
only ``missing-*`` values and cover only the stubbed services, the failure switch, a
subnet only inside 127.0.0.0/8, Heat's member strings read back as maps, and a server's user
data kept privately for the node simulator."""

from __future__ import annotations

import pytest

from tests.localcloud.harness.cloudvenv import LOCALCLOUD, probe

PROBE = r"""
import json, os, stat
import localcloud_heat_plugin as p

def refused(call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except Exception as exc:
        return str(exc)
    return None

out = {}
with p._Ipam() as ipam:
    out["first"] = ipam.allocate("srv-1")
    out["second"] = ipam.allocate("srv-2")["ip"]
    out["again"] = ipam.allocate("srv-1")["ip"]
    out["floating"] = ipam.allocate("fip-1", pool="floating")["ip"]
    out["requested"] = ipam.allocate("port-1", requested="127.10.9.9")["ip"]
    out["refused"] = [refused(ipam.allocate, "bad-%d" % i, requested=ip)
                      for i, ip in enumerate(("0.10.0.7", "127.0.0.1", "nonsense"))]
with p._Ipam() as ipam:
    out["persisted"] = ipam.lookup("srv-1")["ip"]
    ipam.release("srv-1")
with p._Ipam() as ipam:
    out["released"] = ipam.lookup("srv-1")
mapping = p.constraint_mapping()
out["constraints"] = sorted(mapping)
volume = mapping["cinder.volume"]()
out["missing"] = refused(volume.validate_with_client, None, "missing-vol")
out["present"] = refused(volume.validate_with_client, None, "vol-1")
out["fail"] = [p.fail_switch({"flavor": "fail.small"}),
               p.fail_switch({"metadata": '{"localcloud_fail": "true"}'}),
               p.fail_switch({"flavor": "m1.small", "metadata": {"localcloud_fail": "no"}})]
out["cidr"] = [str(p.local_cidr("127.11.0.5/24"))] + [
    refused(p.local_cidr, c) for c in ("0.10.0.0/24", "100::/64", "x")]
out["members"] = p._members(".member.1.port=abc,.member.0.network=private,"
                            ".member.0.fixed_ip=127.10.0.9")
with p._Ipam() as ipam:
    server = p.build_server("5e0a1b2c-0000-4000-8000-000000000001",
                            {"name": "n-0", "networks": out["members"][:1]},
                            {"project_id": "demo"}, ipam)
out["server"] = [server["first_address"], server["show"]["tenant_id"]]
p.store_user_data("srv-9", "#cloud-config secret")
kept = os.path.join(os.environ["LOCALCLOUD_SERVERS_DIR"], "srv-9.user_data")
out["user_data"] = [open(kept).read(), oct(stat.S_IMODE(os.stat(kept).st_mode))]
p.store_user_data("srv-9", None)
out["user_data_gone"] = not os.path.exists(kept)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def found(localcloud, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("heat-plugin")
    return probe(localcloud, PROBE, LOCALCLOUD / "heat" / "plugins", {
        "LOCALCLOUD_IPAM_FILE": str(tmp_path / "ipam.json"),
        "LOCALCLOUD_SERVERS_DIR": str(tmp_path / "servers"),
        "LOCALCLOUD_STUBBED_SERVICES": "cinder"})


def test_addresses_are_unique_persistent_and_local(found):
    assert found["first"]["ip"] == "127.10.0.3" and found["first"]["mac"].startswith("fa:16:3e:")
    assert found["second"] == "127.10.0.4" and found["again"] == "127.10.0.3"
    assert found["floating"] == "127.24.4.10" and found["requested"] == "127.10.9.9"
    bad_address, services_address, nonsense = found["refused"]
    assert "0.10.0.7 is not a local address" in bad_address
    assert "127.0.0.1 is not a local address" in services_address
    assert "'nonsense' is not an address" in nonsense
    assert found["persisted"] == "127.10.0.3" and found["released"] is None


def test_only_the_stubbed_services_constraints_and_only_missing_values_refused(found):
    assert found["constraints"] and all(n.startswith("cinder.") for n in found["constraints"])
    assert "cinder.volume" in found["constraints"]
    assert "missing-vol" in found["missing"] and found["present"] is None


def test_the_failure_switch_subnets_members_and_user_data(found):
    flavor, metadata, neither = found["fail"]
    assert "'fail.small' selects the localcloud failure switch" in flavor
    assert "metadata localcloud_fail=true" in metadata and neither is None
    local, outside, v6, nonsense = found["cidr"]
    assert local == "127.11.0.0/24"
    assert "0.10.0.0/24 is outside 127.0.0.0/8" in outside and "outside 127.0.0.0/8" in v6
    assert "'x' is not a CIDR" in nonsense
    assert found["members"] == [{"network": "private", "fixed_ip": "127.10.0.9"},
                                {"port": "abc"}]
    assert found["server"] == ["127.10.0.9", "demo"]
    assert found["user_data"] == ["#cloud-config secret", "0o600"]
    assert found["user_data_gone"]
