"""Which conductor polls which cluster: a consistent hash ring over the live conductors.

Members are the hosts with a live ``magnum-conductor`` row in magnum_service; within a host
the host's share is split between its worker processes by a second hash. Every conductor
computes the same ring from the same rows, so each cluster is polled by exactly one
conductor per interval, and when a conductor dies only its share moves.
"""

from __future__ import annotations

import bisect
import hashlib
import zlib
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
    """This process's share: its host's part of the ring, then its worker's part of that."""

    def __init__(self, ring: HashRing, host: str, worker: int, workers: int) -> None:
        self.ring = ring
        self.host = host
        self.worker = worker
        self.workers = max(1, workers)

    def owns(self, key: str) -> bool:
        if self.ring.owner(key) != self.host:
            return False
        return zlib.crc32(key.encode()) % self.workers == self.worker
