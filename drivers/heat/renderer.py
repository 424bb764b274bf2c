"""Render a driver's Jinja2 templates into the HOT template and files of one stack.

The rendered text is a pure function of (driver, template version, stack shape): no
secrets, no random data, so renders are cached per process and a stack update with an
unchanged shape sends Heat exactly the template it already has.
"""

from __future__ import annotations

import dataclasses
import functools
import pathlib

import jinja2

from drivers.heat import bootstrap
from drivers.heat.parameters import Features

#: Bumped whenever a template change matters to running stacks (shown in descriptions).
TEMPLATE_VERSION = "1.2.0"

DRIVERS_DIR = pathlib.Path(__file__).resolve().parent.parent
SHARED_TEMPLATES = DRIVERS_DIR / "heat" / "templates"


@dataclasses.dataclass(frozen=True)
class Rendered:
    """A root template plus the files (nested templates, user data) it references."""

    template: str
    files: dict[str, str]


def template_dirs(driver_name: str) -> list[pathlib.Path]:
    """The driver's own templates first, then the shared base."""
    return [DRIVERS_DIR / driver_name / "templates", SHARED_TEMPLATES]


@functools.cache
def _environment(driver_name: str) -> jinja2.Environment:
    loader = jinja2.FileSystemLoader([str(p) for p in template_dirs(driver_name)])
    return jinja2.Environment(loader=loader, undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True,
                              keep_trailing_newline=True, autoescape=False)


def _render(driver_name: str, name: str, **context) -> str:
    env = _environment(driver_name)
    return env.get_template(name).render(driver=driver_name, version=TEMPLATE_VERSION,
                                         **context)


def _node_files(driver_name: str, f: Features) -> dict[str, str]:
    return {
        "worker.yaml": _render(driver_name, "worker.yaml.j2", f=f,
                               userdata_file="userdata-worker"),
        "userdata-worker": _render(driver_name, "userdata.j2",
                                   **bootstrap.render_context("worker")),
    }


@functools.lru_cache(maxsize=256)
def render_cluster(driver_name: str, features: Features) -> Rendered:
    """The cluster stack: network, API endpoint, masters, default worker group."""
    files = _node_files(driver_name, features)
    files["master.yaml"] = _render(driver_name, "master.yaml.j2", f=features,
                                   userdata_file="userdata-master")
    files["userdata-master"] = _render(driver_name, "userdata.j2",
                                       **bootstrap.render_context("master"))
    files["nodegroup.yaml"] = _render(driver_name, "nodegroup.yaml.j2", f=features)
    return Rendered(_render(driver_name, "cluster.yaml.j2", f=features), files)


@functools.lru_cache(maxsize=256)
def render_nodegroup(driver_name: str, features: Features) -> Rendered:
    """An extra worker node group's own stack."""
    return Rendered(_render(driver_name, "nodegroup.yaml.j2", f=features),
                    _node_files(driver_name, features))
