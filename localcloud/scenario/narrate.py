"""Narration: what each step does and did, how long it took, and the closing report."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TextIO


@dataclass
class Step:
    name: str
    seconds: float
    ok: bool
    detail: str = ""


@dataclass
class Narrator:
    """Prints as it goes; remembers every step for the report.

    ``t0`` is the wall-clock start of the whole job (a cold start includes bringing the local
    cloud up), so milestones read as "seconds since the job started".
    """

    out: TextIO = field(default_factory=lambda: sys.stdout)
    t0: float = field(default_factory=time.time)
    steps: list[Step] = field(default_factory=list)
    milestones: dict[str, float] = field(default_factory=dict)

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def detail(self, text: str) -> None:
        self.say("   " + text)

    def command(self, display: str) -> None:
        self.say("   $ " + display)

    def milestone(self, name: str) -> float:
        """Record the first time ``name`` happened (seconds since t0)."""
        if name not in self.milestones:
            self.milestones[name] = time.time() - self.t0
        return self.milestones[name]

    @contextmanager
    def step(self, name: str):
        """Time a step; its outcome (and the error, if any) goes into the report."""
        number = len(self.steps) + 1
        self.say(f"\n[{number}] {name}")
        t0 = time.monotonic()
        try:
            yield
        except BaseException as exc:
            seconds = time.monotonic() - t0
            self.steps.append(Step(name, seconds, False, f"{type(exc).__name__}: {exc}"))
            self.say(f"   FAILED after {seconds:.1f}s: {type(exc).__name__}: {exc}")
            raise
        seconds = time.monotonic() - t0
        self.steps.append(Step(name, seconds, True))
        self.say(f"   done in {seconds:.1f}s")

    def report(self, memory: list[tuple[str, str, float | None, float | None]]) -> str:
        """Per-step times, milestones and resident memory (owner, service, RSS, PSS)."""
        lines = ["", "=" * 72, "Summary", "=" * 72]
        for name, at in self.milestones.items():
            lines.append(f"{name}: {at:.1f}s after the job started")
        lines.append("")
        lines.append(f"{'#':>3}  {'step':<54} {'seconds':>8}  result")
        for i, step in enumerate(self.steps, 1):
            lines.append(f"{i:>3}  {step.name[:54]:<54} {step.seconds:>8.1f}  "
                         f"{'ok' if step.ok else 'FAILED'}")
        total = sum(s.seconds for s in self.steps)
        lines.append(f"{'':>3}  {'all steps':<54} {total:>8.1f}")
        lines.append("")
        lines.append(f"{'owner':<11} {'service':<22} {'RSS MiB':>9} {'PSS MiB':>9}")
        rss_sum = {"local cloud": 0.0, "magnum": 0.0}
        for owner, service, rss, pss in memory:
            rss_text = f"{rss:9.1f}" if rss is not None else f"{'-':>9}"
            pss_text = f"{pss:9.1f}" if pss is not None else f"{'-':>9}"
            lines.append(f"{owner:<11} {service:<22} {rss_text} {pss_text}")
            rss_sum[owner] = rss_sum.get(owner, 0.0) + (rss or 0.0)
        for owner, rss in rss_sum.items():
            lines.append(f"{owner:<11} {'(total)':<22} {rss:9.1f}")
        return "\n".join(lines)
