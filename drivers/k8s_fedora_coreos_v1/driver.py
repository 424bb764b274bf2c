"""Kubernetes on Fedora CoreOS: Ignition user data, containerd from the image."""

from __future__ import annotations

from drivers.heat.driver import KubernetesHeatDriver
from drivers.heat.profile import IGNITION, OsProfile


class Driver(KubernetesHeatDriver):
    name = "k8s_fedora_coreos_v1"
    profile = OsProfile(driver_name=name, os_distro="fedora-coreos", bootstrap_format=IGNITION,
                        containerd_source="image", login_user="core", selinux=True)
