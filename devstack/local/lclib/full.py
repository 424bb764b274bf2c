"""The full tier (Placement, Nova with the fake driver, Neutron, Octavia, unstubbed Heat)."""

from .cloud import Cloud, lite_services


def full_services():
    return lite_services()


class FullCloud(Cloud):
    def __init__(self, layout):
        super().__init__(layout, "full")
