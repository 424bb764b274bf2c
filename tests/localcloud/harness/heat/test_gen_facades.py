"""The facade generator, run in the cloud's venv against its installed Heat (the facades
inside real stacks are tests/localcloud/harness/test_heat.py): every stubbed leaf type gets
a facade declaring exactly the real type's properties and outputting every real attribute,
``show`` included, with the server's user data and password hidden and the password never
forwarded; the others map to OS::Heat::None; limited to a service (the full tier's cinder),
only that service's types are stubbed."""

from __future__ import annotations

import pytest
import yaml

from tests.localcloud.harness.cloudvenv import LOCALCLOUD, probe

PROBE = r"""
import json, sys
import gen_facades
from heat.engine import properties, resources

gen_facades.main(sys.argv[1] + "/env", sys.argv[1] + "/facades")
gen_facades.main(sys.argv[1] + "/env-cinder", sys.argv[1] + "/facades-cinder", ["cinder"])
server = resources.global_env().get_class("OS::Nova::Server")
print(json.dumps({
    "properties": sorted(name for name, schema in
                         properties.schemata(server.properties_schema).items()
                         if schema.implemented),
    "attributes": sorted([*server.attributes_schema, *server.base_attributes_schema])}))
"""


@pytest.fixture(scope="module")
def generated(localcloud, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("facades")
    code = PROBE.replace("sys.argv[1]", repr(str(tmp_path)))
    real = probe(localcloud, code, LOCALCLOUD / "heat")
    return tmp_path, real


def _registry(path) -> dict:
    return yaml.safe_load(path.read_text())["resource_registry"]


def test_facades_declare_the_real_types_properties_and_attributes(generated):
    out, real = generated
    registry = _registry(out / "env" / "localcloud-stubs.yaml")
    server_file = out / "facades" / "os_nova_server.yaml"
    assert registry["OS::Nova::Server"] == f"file://{server_file}"
    assert registry["OS::Neutron::Net"] == "OS::Heat::None"
    assert {"OS::Neutron::Port", "OS::Octavia::LoadBalancer", "OS::Cinder::Volume"} <= set(
        registry)
    server = yaml.safe_load(server_file.read_text())
    assert sorted(server["parameters"]) == real["properties"]
    assert set(server["outputs"]) == {"OS::stack_id", *real["attributes"]}
    assert "show" in server["outputs"]
    params = server["parameters"]
    assert params["user_data"]["hidden"] and params["admin_pass"]["hidden"]
    assert params["flavor"]["constraints"] == [{"custom_constraint": "nova.flavor"}]
    impl = server["resources"]["impl"]
    assert (impl["type"], impl["properties"]["kind"]) == ("LocalCloud::Fake::Resource",
                                                          "server")
    assert "admin_pass" not in impl["properties"]["params"]
    assert impl["properties"]["params"]["user_data"] == {"get_param": "user_data"}


def test_limited_to_a_service_only_its_types_are_stubbed(generated):
    out, _ = generated
    registry = _registry(out / "env-cinder" / "localcloud-stubs.yaml")
    assert set(registry) == {"OS::Cinder::Volume", "OS::Cinder::VolumeAttachment"}
    assert sorted(p.name for p in (out / "facades-cinder").iterdir()) == ["os_cinder_volume.yaml"]
