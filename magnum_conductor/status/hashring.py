"""Which conductor polls which cluster: a consistent hash ring over the live conductors.

Members are the identities of the live conductor processes (magnum_service_process: host,
worker and a random part, never ``[DEFAULT] host`` alone, which two processes or two
machines may share) whose service is enabled. Every conductor computes the same ring from
the same rows, so each cluster is polled by exactly one process per interval, and when a
process dies only its share moves.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Iterable


def _point(key: str) -> int:
    return int.from_bytes(hashlib.md5(key.encode(), usedforsecurity=False).digest()[:8], "big")


class HashRing:
    """A ring of ``replicas`` virtual nodes per member."""

    def __init__(self, members: Iterable[str], replicas: int = 64) -> None:
        self.members = tuple(sorted(set(members)))
        ring = sorted((_point(f"{member}#{i}"), member)
                      for member in self.members for i in range(replicas))
        self._points = [point for point, _ in ring]
        self._owners = [member for _, member in ring]

    def owner(self, key: str) -> str | None:
        if not self._points:
            return None
        index = bisect.bisect(self._points, _point(key)) % len(self._points)
        return self._owners[index]


class Partition:
    """This process's share: the keys the ring gives its identity."""

    def __init__(self, ring: HashRing, member: str) -> None:
        self.ring = ring
        self.member = member

    def owns(self, key: str) -> bool:
        return self.ring.owner(key) == self.member
