"""Grammars of every tenant string that can reach a cluster's nodes.

A tenant's labels, names, proxies and references end up in files a node's root shell,
systemd, the kubelet or a YAML parser reads. Each grammar here is a pure function
``check(value) -> str | None``: ``None`` when the value is acceptable, else the reason it is
not. The API checks every field against its resource's table before anything is recorded
(:func:`check`, a 400 naming the field); the drivers check again before a value leaves for a
node, so a row written by an older release cannot slip through either.

The grammars are strict on purpose: what a node cannot use unquoted (quotes, ``$``,
backticks, ``;``, newlines, NUL...) is refused where no real client sends it, and travels
quoted everywhere else.
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

from magnum_common import exception

Check = Callable[[Any], "str | None"]

#: C0 and C1 controls, DEL, the Unicode line and paragraph separators (YAML and JavaScript
#: read them as line breaks) and lone surrogates.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")

#: What a check of this module refuses, where it is a pattern (``check.pattern``: the value;
#: ``check.key_pattern``: the keys of a map), in the syntax JSON Schema and Python share, so
#: the API's OpenAPI document can state it (magnum_api.schemas.types.with_grammar).
PATTERNS = ("pattern", "key_pattern")
#: Single-line text: no control character, no line or paragraph separator (``_CONTROL``;
#: lone surrogates, refused with every string, are left out: schemathesis cannot honour a
#: surrogate range in a pattern).
PRINTABLE_PATTERN = r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029]*$"
LABEL_KEY_RE = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
LABEL_VALUE_MAX = 4096
#: A Kubernetes qualified name's name part: node-group names and roles, label names.
K8S_NAME_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?$")
#: RFC 1123 DNS label and subdomain (Kubernetes object names, label key prefixes).
_DNS_LABEL = r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
DNS_SUBDOMAIN_RE = re.compile(rf"^(?=.{{1,253}}$){_DNS_LABEL}(\.{_DNS_LABEL})*$")
_HOSTNAME_RE = re.compile(
    r"^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
#: OCI tag grammar (image and chart tags, release names in download URLs).
TAG_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,127}$")
VERSION_RE = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)([-+.][0-9A-Za-z.+-]*)?$")
#: A registry prefix image names are appended to: ``host[:port]/path/`` (or empty).
IMAGE_PREFIX_RE = re.compile(
    r"^([A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?/([a-z0-9._-]+/)*)?$")
KEYPAIR_RE = re.compile(r"^[A-Za-z0-9 _.@-]{1,255}$")
STORAGE_DRIVER_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
SHA256_RE = re.compile(r"^[0-9A-Fa-f]{64}$")
#: Characters a URL may carry here: RFC 3986 minus the ones a shell or a sed, YAML or
#: systemd line gives a meaning to (``$ & ' ( ) ; \\ " ` < > { } |`` and spaces). Anything
#: else is percent-encoded, as RFC 3986 allows.
_URL_CHARS_RE = re.compile(r"^[A-Za-z0-9._~:/?#\[\]@!*+,=%-]+$")
#: Command-line options of a Kubernetes component: words of these characters.
_ARGS_RE = re.compile(r"^[A-Za-z0-9 =,.:/_@%+*<>!^~\[\]-]*$")
_PLUGIN_LIST_RE = re.compile(r"^[A-Za-z0-9]+(,[A-Za-z0-9]+)*$")
_NO_PROXY_ENTRY_RE = re.compile(r"^(\*|\.?(\*\.)?[A-Za-z0-9_.:\[\]/-]+)$")
_PORT_RE = re.compile(r"^[0-9]{1,5}$")

#: Environment names no setting may take: they change how an interpreter or the dynamic
#: linker behaves (checked on the drivers' label table and on every exported key).
INTERPRETER_VARIABLES = frozenset({
    "BASH_ENV", "ENV", "PATH", "IFS", "CDPATH", "GLOBIGNORE", "PS4", "SHELLOPTS",
    "BASHOPTS", "PROMPT_COMMAND", "HOME", "SHELL", "TMPDIR", "PERL5LIB", "PERL5OPT",
    "RUBYOPT", "RUBYLIB", "NODE_OPTIONS", "OPENSSL_CONF", "GCONV_PATH", "HOSTALIASES",
    "RESOLV_HOST_CONF", "LOCALDOMAIN", "TZDIR", "NLSPATH", "EDITOR", "PAGER", "SYSTEMD_PAGER",
    "KUBECONFIG", "SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE", "GODEBUG", "GOTRACEBACK",
})
INTERPRETER_PREFIXES = ("LD_", "PYTHON", "BASH_FUNC_", "LC_", "GIT_", "DYLD_", "MALLOC_")
_ENV_KEY_RE = re.compile(r"^[A-Z][A-Z0-9_]{0,63}$")


def _text(value: Any) -> str | None:
    """The reason ``value`` is no plain, single-line string."""
    if not isinstance(value, str):
        return "it must be a string"
    if _CONTROL.search(value):
        return "control characters (newline, tab, NUL...) are not allowed"
    return None


def printable(max_length: int = 255) -> Check:
    """Any single-line text of at most ``max_length`` characters."""

    def check(value: Any) -> str | None:
        reason = _text(value)
        if reason:
            return reason
        if len(value) > max_length:
            return f"at most {max_length} characters are allowed"
        return None
    check.pattern = PRINTABLE_PATTERN  # type: ignore[attr-defined]
    return check


def _pattern(regex: re.Pattern, expected: str) -> Check:
    def check(value: Any) -> str | None:
        reason = _text(value)
        if reason:
            return reason
        return None if regex.match(value) else f"expected {expected}"
    check.pattern = regex.pattern  # type: ignore[attr-defined]
    return check


label_key = _pattern(LABEL_KEY_RE, "a label name matching ^[a-z][a-z0-9_]{0,62}$")
label_value = printable(LABEL_VALUE_MAX)
k8s_name = _pattern(K8S_NAME_RE, "a Kubernetes name: at most 63 letters, digits, '-', '_' "
                    "or '.', starting and ending with a letter or digit")
dns_subdomain = _pattern(DNS_SUBDOMAIN_RE, "a lower-case DNS name (RFC 1123)")
keypair = _pattern(KEYPAIR_RE, "a Nova keypair name (letters, digits, spaces, '_', '.', "
                   "'@', '-')")
storage_driver = _pattern(STORAGE_DRIVER_RE, "a storage driver name such as overlay2")
tag = _pattern(TAG_RE, "an image or release tag (letters, digits, '_', '.', '+', '-')")
version = _pattern(VERSION_RE, "a version such as v1.31.4")
image_prefix = _pattern(IMAGE_PREFIX_RE, "a registry prefix such as "
                        "registry.example.com:5000/project/ (ending with '/')")
sha256 = _pattern(SHA256_RE, "a sha256 digest (64 hexadecimal digits)")
component_args = _pattern(_ARGS_RE, "command-line options: words of letters, digits and "
                          "= , . : / _ @ % + * < > ! ^ ~ [ ] - (no quotes, '$', ';', '&', "
                          "'|', backslashes or parentheses)")
plugin_list = _pattern(_PLUGIN_LIST_RE, "comma-separated plugin names")
#: Names and UUIDs of OpenStack resources (images, flavors, networks, subnets, volume types).
openstack_ref = printable(255)


def domain_name(value: Any) -> str | None:
    reason = _text(value)
    if reason:
        return reason
    return None if _HOSTNAME_RE.match(value) else "expected a DNS domain name"


def ip_address(value: Any) -> str | None:
    reason = _text(value)
    if reason:
        return reason
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return "expected an IP address"
    return None


def cidr(value: Any) -> str | None:
    reason = _text(value)
    if reason:
        return reason
    try:
        ipaddress.ip_network(value.strip(), strict=False)
    except ValueError:
        return "expected a CIDR such as 10.0.0.0/24"
    return None


def cidrs(value: Any) -> str | None:
    reason = _text(value)
    if reason:
        return reason
    for part in filter(None, (p.strip() for p in value.split(","))):
        if cidr(part):
            return "expected comma-separated CIDRs"
    return None


def boolean(value: Any) -> str | None:
    text = str(value).strip().lower()
    return None if text in ("true", "false", "1", "0", "yes", "no", "on", "off") \
        else "expected true or false"


def non_negative_int(value: Any) -> str | None:
    try:
        ok = int(str(value).strip()) >= 0
    except ValueError:
        ok = False
    return None if ok else "expected a non-negative integer"


def one_of(*choices: str, fold_case: bool = False) -> Check:
    """An enumeration (compared lower-cased when ``fold_case``)."""
    allowed = {c.lower() for c in choices} if fold_case else set(choices)

    def check(value: Any) -> str | None:
        text = str(value).strip()
        probe = text.lower() if fold_case else text
        if probe in allowed:
            return None
        return "expected one of " + ", ".join(repr(c) for c in choices)
    return check


def parse_version(value: str) -> tuple[int, int, int] | None:
    """``v1.31.4`` (or ``v1.31.4-rancher1``) -> ``(1, 31, 4)``; None when malformed."""
    match = VERSION_RE.match(value.strip())
    return (int(match.group(1)), int(match.group(2)), int(match.group(3))) if match else None


def version_at_least(minimum: tuple[int, int, int]) -> Check:
    oldest = "v" + ".".join(map(str, minimum))

    def check(value: Any) -> str | None:
        reason = version(value)
        if reason:
            return reason
        parsed = parse_version(value)
        return None if parsed and parsed >= minimum else f"expected {oldest} or later"
    return check


def _host(value: str) -> bool:
    if value.startswith("[") and value.endswith("]"):
        try:
            ipaddress.IPv6Address(value[1:-1])
        except ValueError:
            return False
        return True
    return bool(_HOSTNAME_RE.match(value))


def url(*schemes: str, max_length: int = 255) -> Check:
    """An absolute URL of one of ``schemes`` with a host, in the safe character set."""

    def check(value: Any) -> str | None:
        reason = _text(value)
        if reason:
            return reason
        expected = f"a {'/'.join(schemes)} URL such as {schemes[0]}://host:port/"
        if len(value) > max_length or not _URL_CHARS_RE.match(value):
            return f"expected {expected} (percent-encode other characters)"
        try:
            parts = urllib.parse.urlsplit(value)
            parts.port  # noqa: B018  (raises ValueError for a bad port)
        except ValueError:
            return f"expected {expected}"
        if parts.scheme not in schemes or not parts.hostname:
            return f"expected {expected}"
        host = parts.netloc.rpartition("@")[2]
        if parts.port is not None:
            host = host.rsplit(":", 1)[0]
        return None if _host(host) else f"expected {expected}"
    return check


http_url = url("http", "https")
_proxy_url = url("http", "https", "socks5", "socks5h")


def proxy_url(value: Any) -> str | None:
    """A proxy URL; ``host:port`` alone means ``http://host:port`` (as curl and Go read it)."""
    if isinstance(value, str) and "://" not in value:
        return _proxy_url("http://" + value)
    return _proxy_url(value)


def registry_host(value: Any) -> str | None:
    """``host[:port]`` of a registry (a directory name and a TOML key on the nodes)."""
    reason = _text(value)
    if reason:
        return reason
    host, port = value, None
    if value.startswith("[") and "]:" in value:
        host, port = value.rsplit(":", 1)
    elif not value.startswith("[") and value.count(":") == 1:
        host, port = value.split(":")
    if (port is not None and not _PORT_RE.match(port)) or not _host(host):
        return "expected a registry address host[:port] such as registry.example.com:5000"
    return None


def no_proxy(value: Any) -> str | None:
    """Comma-separated hosts, domains (``.example.com``), addresses and CIDRs, or ``*``."""
    reason = printable(255)(value)
    if reason:
        return reason
    for entry in value.split(","):
        entry = entry.strip()
        if entry and not _NO_PROXY_ENTRY_RE.match(entry):
            return ("expected comma-separated host names, domains, addresses or CIDRs, "
                    f"not {entry!r}")
    return None


def labels(value: Any) -> str | None:
    """A label map: names by :data:`LABEL_KEY_RE`, single-line values."""
    if not isinstance(value, Mapping):
        return "expected an object"
    for key, item in value.items():
        reason = label_key(key)
        if reason:
            return f"label {str(key)!r}: {reason}"
        reason = label_value(str(item))
        if reason:
            return f"label {key}: {reason}"
    return None


labels.key_pattern = LABEL_KEY_RE.pattern  # type: ignore[attr-defined]


def k8s_label_key(value: Any) -> str | None:
    """``[prefix/]name``: a DNS subdomain prefix and a Kubernetes name."""
    reason = _text(value)
    if reason:
        return reason
    prefix, _, name = value.rpartition("/")
    if "/" in value and (not prefix or dns_subdomain(prefix)):
        return "expected a key prefix that is a lower-case DNS name"
    return k8s_name(name)


def k8s_label_value(value: Any) -> str | None:
    return None if value in ("", None) else k8s_name(value)


def node_labels(value: Any) -> str | None:
    """Kubernetes node labels (``key: value``) for the kubelet's ``--node-labels``."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        return "expected an object"
    for key, item in value.items():
        reason = k8s_label_key(key)
        if reason:
            return f"key {str(key)!r}: {reason}"
        reason = k8s_label_value(item if item is None else str(item))
        if reason:
            return f"value of {key}: {reason}"
    return None


def node_taints(value: Any) -> str | None:
    """Kubernetes taints ``[{key, value, effect}]`` for ``--register-with-taints``."""
    if value is None:
        return None
    if not isinstance(value, list):
        return "expected a list"
    for i, taint in enumerate(value):
        if not isinstance(taint, Mapping):
            return f"node_taints[{i}]: expected an object"
        reason = k8s_label_key(taint.get("key"))
        if reason:
            return f"node_taints[{i}].key: {reason}"
        item = taint.get("value")
        reason = k8s_label_value(item if item is None else str(item))
        if reason:
            return f"node_taints[{i}].value: {reason}"
        if taint.get("effect") not in TAINT_EFFECTS:
            return f"node_taints[{i}].effect: expected one of {', '.join(TAINT_EFFECTS)}"
    return None


def env_key(value: Any) -> str | None:
    """A node environment name that no interpreter or the dynamic linker reads."""
    if not isinstance(value, str) or not _ENV_KEY_RE.match(value):
        return "expected an upper-case name matching ^[A-Z][A-Z0-9_]{0,63}$"
    if value in INTERPRETER_VARIABLES or value.startswith(INTERPRETER_PREFIXES):
        return "it is an interpreter or linker variable"
    return None


# --- per-resource tables ------------------------------------------------------------------
#: Fields of a cluster template that reach the nodes or their stack.
TEMPLATE = {
    "image_id": openstack_ref, "flavor_id": openstack_ref, "master_flavor_id": openstack_ref,
    "keypair_id": keypair, "external_network_id": openstack_ref,
    "fixed_network": openstack_ref, "fixed_subnet": openstack_ref,
    "docker_storage_driver": storage_driver, "http_proxy": proxy_url,
    "https_proxy": proxy_url, "no_proxy": no_proxy, "insecure_registry": registry_host,
    "labels": labels,
}
CLUSTER = {
    "keypair": keypair, "discovery_url": http_url, "flavor_id": openstack_ref,
    "master_flavor_id": openstack_ref, "fixed_network": openstack_ref,
    "fixed_subnet": openstack_ref, "labels": labels,
}
NODEGROUP = {
    "name": k8s_name, "role": k8s_name, "image_id": openstack_ref,
    "flavor_id": openstack_ref, "labels": labels,
}
#: A node group's Kubernetes labels and taints (checked after the rules upstream answers
#: with 409, so those keep their code).
NODE_LABELLING = {"node_labels": node_labels, "node_taints": node_taints}


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def invalid(field: str, value: Any, reason: str) -> exception.InvalidParameterValue:
    """The 400 the API answers for ``field``."""
    return exception.InvalidParameterValue(
        err=f"Invalid input for field/attribute {field}. Value: {_shown(value)}. "
        f"Invalid {field}: {reason}.")


def check(table: Mapping[str, Check], values: Mapping[str, Any],
          fields: Any = None) -> None:
    """Raise the 400 of the first field of ``values`` (or of ``fields``) that ``table``
    refuses; absent and null fields pass."""
    for field, checker in table.items():
        if fields is not None and field not in fields:
            continue
        value = values.get(field)
        if value is None:
            continue
        reason = checker(value)
        if reason:
            raise invalid(field, value, reason)
