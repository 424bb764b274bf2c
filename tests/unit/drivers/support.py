"""Rows and resources the driver tests build: real model instances, never persisted."""

from __future__ import annotations

import types
import uuid
from typing import Any

from magnum_common.db import models
from magnum_common.drivers.base import TrusteeCredentials


def template(**kw: Any) -> models.ClusterTemplate:
    values = dict(uuid=str(uuid.uuid4()), name="k8s", image_id="fcos", flavor_id="m1.small",
                  master_flavor_id="m1.medium", keypair_id="kp",
                  external_network_id="public", network_driver="flannel", volume_driver=None,
                  dns_nameserver="8.8.8.8", docker_storage_driver="overlay2",
                  cluster_distro="fedora-coreos", coe="kubernetes", server_type="vm",
                  tls_disabled=False, master_lb_enabled=False, floating_ip_enabled=False,
                  registry_enabled=False, labels={}, fixed_network=None, fixed_subnet=None,
                  no_proxy=None, http_proxy=None, https_proxy=None, insecure_registry=None)
    values.update(kw)
    return models.ClusterTemplate(**values)


def cluster(ct: models.ClusterTemplate, **kw: Any) -> models.Cluster:
    values = dict(uuid=str(uuid.uuid4()), name="my_cluster.one", project_id="proj",
                  user_id="user", cluster_template_id=ct.uuid, keypair="kp",
                  docker_volume_size=None, labels=dict(ct.labels or {}),
                  master_flavor_id=ct.master_flavor_id, flavor_id=ct.flavor_id,
                  stack_id=None, fixed_network=ct.fixed_network, fixed_subnet=ct.fixed_subnet,
                  floating_ip_enabled=ct.floating_ip_enabled,
                  master_lb_enabled=ct.master_lb_enabled, create_timeout=60,
                  coe_version=None, api_address=None)
    values.update(kw)
    return models.Cluster(**values)


def nodegroup(cl: models.Cluster, name: str, role: str, count: int, default: bool,
              **kw: Any) -> models.NodeGroup:
    values = dict(uuid=str(uuid.uuid4()), name=name, cluster_id=cl.uuid,
                  project_id=cl.project_id, role=role, node_count=count, is_default=default,
                  flavor_id=cl.master_flavor_id if role == "master" else cl.flavor_id,
                  image_id="fcos", docker_volume_size=None, labels=dict(cl.labels or {}),
                  min_node_count=0, max_node_count=None, stack_id=None)
    values.update(kw)
    return models.NodeGroup(**values)


def default_nodegroups(cl: models.Cluster, masters: int = 1,
                       workers: int = 1) -> list[models.NodeGroup]:
    return [nodegroup(cl, "default-master", "master", masters, True),
            nodegroup(cl, "default-worker", "worker", workers, True)]


class Resources:
    """A ClusterResources with a fixed catalog and trustee, and no backend to talk to."""

    def __init__(self, catalog: dict[str, str] | None = None,
                 trust_id: str | None = "trust-1", certificates: tuple | None = None) -> None:
        self.context = types.SimpleNamespace(user_name="demo")
        self.catalog = catalog if catalog is not None else {
            "identity": "http://keystone.example:5000",
            "container-infra": "http://magnum.example:9511/v1",
        }
        self._trust_id = trust_id
        self._certificates = certificates

    def session(self) -> Any:
        raise AssertionError("a unit test reached for the backend")

    def url_for(self, service_type: str, interface: str = "public") -> str | None:
        return self.catalog.get(service_type)

    def trustee(self) -> TrusteeCredentials:
        return TrusteeCredentials(user_id="trustee-id", username="trustee",
                                  password="s3cr'et \"pw\"", domain_id="magnum-domain",
                                  trust_id=self._trust_id)

    def ca_private_key(self) -> str | None:
        return "-----BEGIN RSA PRIVATE KEY-----\nMIIfake\n-----END RSA PRIVATE KEY-----\n"

    def keypair_public_key(self, name: str | None) -> str | None:
        return "ssh-rsa AAAAfake user@host" if name else None

    def client_certificates(self) -> tuple[str, str, str] | None:
        return self._certificates
