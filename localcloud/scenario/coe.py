"""The real ``openstack`` command line, as a user of the local cloud's clouds.yaml.

Everything the scenario does to Magnum goes through here, so it exercises what an operator
types: osc + python-magnumclient 5.0.0 -> Keystone catalog -> our magnum-api.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import time
from dataclasses import dataclass

from localcloud.scenario import paths

DEMO = "localcloud-demo"
ADMIN = "localcloud-admin"


class CliError(RuntimeError):
    """A command failed; carries everything needed to reproduce it."""

    def __init__(self, argv: list[str], returncode: int, stdout: str, stderr: str) -> None:
        self.argv, self.returncode, self.stdout, self.stderr = argv, returncode, stdout, stderr
        super().__init__(f"`{shlex.join(argv)}` exited {returncode}:\n"
                         f"{(stderr or stdout).strip()[-2000:]}")

    @property
    def http_status(self) -> int | None:
        """The ``(HTTP nnn)`` python-magnumclient prints for an API error."""
        match = re.search(r"\(HTTP (\d{3})\)", self.stderr + self.stdout)
        return int(match.group(1)) if match else None


@dataclass
class Result:
    argv: list[str]
    stdout: str
    seconds: float

    def json(self):
        """The JSON document of the output (magnumclient may print a line before it).

        python-magnumclient shows unset fields as ``"-"``; they read back as None here.
        """
        starts = [i for i in (self.stdout.find("{"), self.stdout.find("[")) if i >= 0]
        try:
            doc = json.loads(self.stdout[min(starts):] if starts else self.stdout)
        except ValueError:
            raise CliError(self.argv, 0, self.stdout, "output is not JSON") from None
        if isinstance(doc, dict):
            return {k: (None if v == "-" else v) for k, v in doc.items()}
        return doc


class Openstack:
    """``openstack --os-cloud <cloud> ...``; one instance per user."""

    def __init__(self, cloud: str = DEMO, timeout: float = 180.0,
                 unreachable_grace: float = 300.0) -> None:
        self.cloud = cloud
        self.timeout = timeout
        self.unreachable_grace = unreachable_grace
        env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
        env["OS_CLIENT_CONFIG_FILE"] = str(paths.clouds_yaml())
        env["PYTHONWARNINGS"] = "ignore"
        # `coe cluster config` reads $SHELL to pick the export syntax and fails without it
        # (cron, systemd units and CI runners often start with no SHELL).
        env.setdefault("SHELL", "/bin/sh")
        self.env = env

    def argv(self, *args: str) -> list[str]:
        return [paths.venv_bin("openstack"), "--os-cloud", self.cloud, *args]

    def run(self, *args: str, timeout: float | None = None) -> Result:
        """Run once; while the cloud is unreachable (Keystone restarting), wait and retry.

        A connection refused happens before any request reaches a service, so retrying
        is safe for every command.
        """
        argv = self.argv(*args)
        t0 = time.monotonic()
        while True:
            try:
                res = subprocess.run(argv, capture_output=True, text=True, env=self.env,
                                     timeout=timeout or self.timeout)
            except subprocess.TimeoutExpired as exc:
                raise CliError(argv, -1, str(exc.stdout or ""),
                               f"timed out after {exc.timeout}s") from None
            if res.returncode == 0:
                return Result(argv, res.stdout, time.monotonic() - t0)
            err = CliError(argv, res.returncode, res.stdout, _clean(res.stderr))
            if not _unreachable(err.stderr) or time.monotonic() - t0 > self.unreachable_grace:
                raise err
            time.sleep(5)

    def json(self, *args: str, timeout: float | None = None):
        return self.run(*args, "-f", "json", timeout=timeout).json()

    def display(self, *args: str) -> str:
        """The command as a user would type it (for the narration)."""
        return shlex.join(["openstack", "--os-cloud", self.cloud, *args])


def _clean(stderr: str) -> str:
    """Drop the noise of unrelated OSC plugins failing to load."""
    return "\n".join(line for line in stderr.splitlines()
                     if not line.startswith("Could not load '"))


def _unreachable(stderr: str) -> bool:
    return "Unable to establish connection" in stderr or "Connection refused" in stderr


def accepted_uuid(text: str) -> str:
    """The uuid in ``Request to create cluster <uuid> accepted`` (and similar)."""
    match = re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", text)
    if not match:
        raise ValueError(f"no uuid in {text!r}")
    return match.group(0)
