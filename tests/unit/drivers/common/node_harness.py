"""A node's first seconds, replayed in a scratch directory with a real bash.

The settings files a stack hands a node (``bootstrap.env`` from the driver, ``runtime.env``
with Heat's values) are read by the bootstrap script's own ``load_settings``; then one
fragment's functions run with exactly those settings in an otherwise empty environment.
Nothing of the host is touched: the scratch directory is the working directory and HOME.
"""

from __future__ import annotations

import base64
import pathlib
import subprocess

from drivers.heat import bootstrap

BOOTSTRAP = bootstrap.FRAGMENTS_DIR / "magnum-bootstrap.sh"
#: What bash itself sets in an empty environment (not settings).
BASH_OWN = {"PWD", "SHLVL", "_", "OLDPWD", "PATH", "HOME"}


def write_settings(directory: pathlib.Path, bootstrap_env_b64: str,
                   runtime: dict[str, str]) -> tuple[pathlib.Path, pathlib.Path]:
    """bootstrap.env as the node's user data decodes it; runtime.env as Heat fills it."""
    boot = directory / "bootstrap.env"
    boot.write_bytes(base64.b64decode(bootstrap_env_b64))
    run = directory / "runtime.env"
    run.write_text("".join(f"{k}={v}\n" for k, v in runtime.items()))
    return boot, run


def run(directory: pathlib.Path, files: tuple[pathlib.Path, ...], script: str,
        fragment: str | tuple[str, ...] | None = None,
        check: bool = True) -> subprocess.CompletedProcess:
    """``script`` in bash after ``load_settings`` of ``files`` (and sourcing the fragments
    named, which only defines their functions)."""
    loads = "".join(f"load_settings {f} || exit 97\n" for f in files)
    names = (fragment,) if isinstance(fragment, str) else (fragment or ())
    source = "".join(f". {bootstrap.FRAGMENTS_DIR / name}\n" for name in names)
    program = f". {BOOTSTRAP}\n{loads}{source}{script}\n"
    result = subprocess.run(["bash", "-c", program], cwd=directory, capture_output=True,
                            env={"PATH": "/usr/bin:/bin", "HOME": str(directory)}, text=True)
    if check:
        assert result.returncode == 0, result.stderr
    return result


MARK = "\0>>>\0"


def sections(directory: pathlib.Path, files: tuple[pathlib.Path, ...],
             fragment: str | tuple[str, ...] | None, *commands: str) -> list[str]:
    """The output of each command, all run in one bash (``env -0`` gives the environment)."""
    script = "; printf '\\0>>>\\0'; ".join(commands)
    return run(directory, files, script, fragment).stdout.split(MARK)


def environment(output: str) -> dict[str, str]:
    """The settings in an ``env -0`` output (bash's own variables left out)."""
    env = dict(item.split("=", 1) for item in output.split("\0") if item)
    return {k: v for k, v in env.items() if k not in BASH_OWN}


def exported(directory: pathlib.Path, files: tuple[pathlib.Path, ...]) -> dict[str, str]:
    """Every variable the settings put into the environment of the node's scripts."""
    return environment(run(directory, files, "env -0").stdout)
