"""The ML2 mechanism driver's address rule, run in the cloud's venv with Neutron's library:
a subnet is taken only inside 127.0.0.0/8 (IPv4), refused with Neutron's InvalidInput (a 400)
saying why otherwise. On the full tier's real Neutron the refusal reaches a stack
(tests/localcloud/harness/test_heat.py, test_a_subnet_outside_loopback_is_refused) and every
port the driver binds goes ACTIVE (test_full_tier.py, real servers and ports)."""

from __future__ import annotations

from tests.localcloud.harness.cloudvenv import LOCALCLOUD, probe

PROBE = r"""
import json
from neutron_lib import exceptions
from localcloud_ml2 import driver

verdicts = {}
for cidr in ("127.11.0.0/24", "127.0.0.0/8", "0.10.0.0/24", "100::/64", "0.0.0.0/0"):
    try:
        driver.check_local({"cidr": cidr})
        verdicts[cidr] = None
    except exceptions.InvalidInput as exc:
        verdicts[cidr] = str(exc)
print(json.dumps(verdicts))
"""


def test_only_subnets_inside_loopback_are_taken(localcloud):
    verdicts = probe(localcloud, PROBE, LOCALCLOUD / "full" / "localcloud_ml2")
    assert verdicts["127.11.0.0/24"] is None and verdicts["127.0.0.0/8"] is None
    for cidr in ("0.10.0.0/24", "100::/64", "0.0.0.0/0"):
        assert f"subnet {cidr} is outside 127.0.0.0/8" in verdicts[cidr]
