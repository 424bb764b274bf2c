"""How systemd reads what the node scripts write: unit files, EnvironmentFile= files and the
variable substitution of ExecStart=, after systemd 252's documented rules (systemd.unit(5),
systemd.exec(5), systemd.service(5)). The tests pair it with ``systemd-analyze verify``,
systemd's own parser, for the unit files themselves.
"""

from __future__ import annotations

import re

#: Inside double quotes a backslash escapes exactly these (and a line break continues).
_DQ_ESCAPES = '"\\`$'
_WHITESPACE = " \t\n\r"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_env_file(text: str) -> dict[str, str]:
    """An EnvironmentFile's assignments: ``KEY=value`` lines, ``#``/``;`` comments, single
    quotes literal, double quotes with backslash escapes, unquoted values trimmed."""
    result: dict[str, str] = {}
    state, key, value, trailing = "pre_key", "", "", 0

    def push() -> None:
        name = key.strip()
        if _ENV_NAME.match(name):
            result[name] = value[:len(value) - trailing] if trailing else value

    for c in text + "\n":
        if state == "pre_key":
            if c in "#;":
                state = "comment"
            elif c not in _WHITESPACE:
                state, key, value, trailing = "key", c, "", 0
        elif state == "key":
            if c == "\n":
                state = "pre_key"
            elif c == "=":
                state = "pre_value"
            else:
                key += c
        elif state == "pre_value":
            if c == "\n":
                push()
                state = "pre_key"
            elif c == "'":
                state = "single"
            elif c == '"':
                state = "double"
            elif c == "\\":
                state = "value_escape"
            elif c not in _WHITESPACE:
                state, value, trailing = "value", value + c, 0
        elif state == "value":
            if c == "\n":
                push()
                state = "pre_key"
            elif c == "\\":
                state, trailing = "value_escape", 0
            else:
                value += c
                trailing = trailing + 1 if c in _WHITESPACE else 0
        elif state == "value_escape":
            state = "value"
            if c != "\n":
                value += c
        elif state == "single":
            if c == "'":
                state = "pre_value"
            else:
                value += c
        elif state == "double":
            if c == '"':
                state = "pre_value"
            elif c == "\\":
                state = "double_escape"
            else:
                value += c
        elif state == "double_escape":
            state = "double"
            if c in _DQ_ESCAPES:
                value += c
            elif c != "\n":
                value += "\\" + c
        elif state == "comment":
            if c == "\n":
                state = "pre_key"
    return result


def parse_unit(text: str) -> list[tuple[str, str, str]]:
    """(section, key, value) of every directive: comments skipped, a trailing backslash
    joins the next line with a space."""
    directives = []
    section = ""
    logical = []
    pending = ""
    for raw in text.splitlines():
        if pending and raw.lstrip().startswith(("#", ";")):
            continue
        line = pending + raw
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        pending = ""
        logical.append(line)
    for line in logical:
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1]
            continue
        key, sep, value = stripped.partition("=")
        assert sep, f"not a directive: {line!r}"
        directives.append((section, key.strip(), value.strip()))
    return directives


def exec_argv(command: str, env: dict[str, str]) -> list[str]:
    """ExecStart= words after substitution: ``${NAME}`` is the value as part of one word,
    a word that is exactly ``$NAME`` becomes the value's whitespace-separated words."""
    argv: list[str] = []
    for word in command.split():
        whole = re.fullmatch(r"\$([A-Za-z_][A-Za-z0-9_]*)", word)
        if whole:
            argv += env.get(whole.group(1), "").split()
            continue
        argv.append(re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}",
                           lambda m: env.get(m.group(1), ""), word))
    return argv
