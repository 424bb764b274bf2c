"""Valid bodies for the fuzz run's stateful phase: what the API asks beyond JSON Schema.

The OpenAPI document states some rules only in words, because JSON Schema cannot say them:
an integer is written without a fraction (JSON Schema counts ``2.0`` as an integer, the API
refuses it), a master count is odd and needs the load balancer past one, counts of a node
group are ordered, a discovery URL is an http(s) URL with a host, reserved Kubernetes label
prefixes. A positive case that schemathesis generates from the schema alone breaks one of
them nearly always, so its links would stop at templates. :func:`repair` makes a positive
case keep them, checking with the API's own grammars where the rule is a grammar, and leaves
every value that already keeps them as generated.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable, MutableMapping
from typing import Any

from drivers.heat import labels as label_table
from magnum_api import microversion
from magnum_api.schemas import types
from magnum_api.validation import nodegroup as nodegroup_rules
from magnum_common import exception, grammar

#: Where a discovery URL the grammar refuses is kept, percent-encoded, as the path.
DISCOVERY = "http://127.0.0.1:2379/"
_MAX_URL = 255
#: The least cluster quota a positive stateful case sets (``_quota``).
QUOTA_FLOOR = 10000
_UNSENDABLE = re.compile(r"[\x00\ud800-\udfff]")


def _integer(value: Any) -> int | None:
    """The integer a count field holds (an int or its decimal string), None when absent."""
    if value is None or isinstance(value, bool):
        return None
    return int(value)


def _whole(value: Any) -> Any:
    """``2.0`` written as ``2``: the API takes JSON integers without a fraction only."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _version(headers: MutableMapping[str, Any]) -> microversion.Version:
    """The microversion the case asks for (the API's reading of its header)."""
    header = next((v for k, v in headers.items() if k.lower() == microversion.HEADER.lower()),
                  None)
    try:
        return microversion.parse(header)
    except (microversion.MalformedVersion, microversion.UnsupportedVersion):
        return microversion.MIN_VERSION  # refused with 406 whatever the body


def _set_version(headers: MutableMapping[str, Any], version: microversion.Version) -> None:
    for key in [k for k in headers if k.lower() == microversion.HEADER.lower()]:
        del headers[key]
    headers[microversion.HEADER] = f"container-infra {version}"


def _labels(body: dict[str, Any]) -> None:
    """Labels the grammar refuses, or whose value a known label cannot take (the driver's
    table), left out."""
    labels = body.get("labels")
    if isinstance(labels, dict):
        body["labels"] = {k: v for k, v in labels.items() if not grammar.labels({k: v})
                          and not label_table.problem(k, types.stringify_labels({k: v})[k])}


def _grammar(body: dict[str, Any], table: dict[str, grammar.Check]) -> None:
    """Fields a grammar of the resource refuses left out (absent fields take defaults)."""
    for name, check in table.items():
        if body.get(name) is not None and check(body[name]):
            del body[name]


def _counts(body: dict[str, Any], version: microversion.Version) -> None:
    if _integer(body.get("node_count")) == 0 and version < microversion.ZERO_NODES:
        body["node_count"] = 1


def _cluster(body: dict[str, Any], headers: MutableMapping[str, Any]) -> None:
    url = body.get("discovery_url")
    if url is not None and grammar.http_url(url):
        body["discovery_url"] = DISCOVERY + urllib.parse.quote(url, safe="")[
            :_MAX_URL - len(DISCOVERY)]
    _grammar(body, {k: v for k, v in grammar.CLUSTER.items() if k != "labels"})
    _labels(body)
    masters = _integer(body.get("master_count"))
    if masters is not None and masters % 2 == 0:
        body["master_count"] = masters - 1 if masters > 1 else 1
        masters = body["master_count"]
    if masters is not None and masters > 1:
        body["master_lb_enabled"] = True
    volume = _integer(body.get("docker_volume_size"))
    if volume is not None and volume < 3:  # devicemapper templates need 3 GB
        body["docker_volume_size"] = 3
    _counts(body, _version(headers))


def _nodegroup(body: dict[str, Any], headers: MutableMapping[str, Any]) -> None:
    _grammar(body, {**{k: v for k, v in grammar.NODEGROUP.items() if k != "labels"},
                    **grammar.NODE_LABELLING})
    _labels(body)
    for name, check in (("node_labels", nodegroup_rules.normalize_node_labels),
                        ("node_taints", nodegroup_rules.normalize_node_taints)):
        try:
            check("fuzz", body.get(name))
        except exception.MagnumException:  # the 409 of a reserved prefix, say
            del body[name]
    if body.get("role") == "master":
        del body["role"]
    _counts(body, _version(headers))
    count = _integer(body.get("node_count"))
    count = 1 if count is None else count
    if (_integer(body.get("min_node_count")) or 0) > count:
        body["min_node_count"] = count
    largest = _integer(body.get("max_node_count"))
    if largest is not None and largest < count:
        body["max_node_count"] = count


def _quota(body: dict[str, Any], headers: MutableMapping[str, Any]) -> None:
    """A quota the run sets (on its own project too: schemathesis reuses the project ids it
    saw) leaves room for the clusters the run creates."""
    limit = _integer(body.get("hard_limit"))
    if limit is None or limit < QUOTA_FLOOR:  # absent is 1
        body["hard_limit"] = QUOTA_FLOOR


def _resize(body: dict[str, Any], headers: MutableMapping[str, Any]) -> None:
    _counts(body, _version(headers))


def _upgrade(body: dict[str, Any], headers: MutableMapping[str, Any]) -> None:
    if _version(headers) < microversion.UPGRADE:
        _set_version(headers, microversion.UPGRADE)


REPAIRS: dict[tuple[str, str], Callable[[dict[str, Any], MutableMapping[str, Any]], None]] = {
    ("POST", "/v1/clusters"): _cluster,
    ("POST", "/v1/clusters/{cluster_ident}/nodegroups"): _nodegroup,
    ("POST", "/v1/clusters/{cluster_ident}/actions/resize"): _resize,
    ("POST", "/v1/clusters/{cluster_ident}/actions/upgrade"): _upgrade,
    ("POST", "/v1/quotas"): _quota,
    ("PATCH", "/v1/quotas/{project_id}/{resource}"): _quota,
}


def _plain(value: Any) -> Any:
    """``value`` with whole floats written as integers and strings without NUL or lone
    surrogates (which the document says no string holds; the patterns cannot exclude
    surrogates, schemathesis does not honour such a range)."""
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return _UNSENDABLE.sub("", value)
    return _whole(value)


def repair(method: str, path: str, headers: MutableMapping[str, Any], body: Any) -> None:
    """Make a positive case of ``method path`` keep the rules the document states in words
    (in place: ``body`` and ``headers`` as schemathesis generated them)."""
    if isinstance(body, dict):
        plain = _plain(body)
        body.clear()
        body.update(plain)
        fix = REPAIRS.get((method, path))
        if fix is not None:
            fix(body, headers)
    elif isinstance(body, list):
        body[:] = _plain(body)
