"""Partitioning of the status sync: every cluster has exactly one poller."""

from __future__ import annotations

import uuid

from magnum_conductor.status.hashring import HashRing, Partition


def test_every_key_owned_by_exactly_one_process():
    members = [f"{host}:{worker}:{uuid.uuid4().hex[:6]}" for host in "abc" for worker in (0, 1)]
    ring = HashRing(members)
    partitions = [Partition(ring, member) for member in members]
    keys = [str(uuid.uuid4()) for _ in range(3000)]
    counts = [sum(p.owns(k) for k in keys) for p in partitions]
    assert all(sum(p.owns(k) for p in partitions) == 1 for k in keys)
    assert min(counts) > 3000 / 6 * 0.5  # roughly balanced
    assert sum(Partition(ring, "a:0:other").owns(k) for k in keys) == 0  # not a member


def test_losing_a_member_moves_only_its_keys():
    keys = [str(uuid.uuid4()) for _ in range(2000)]
    before = HashRing(["a", "b", "c"])
    after = HashRing(["a", "b"])
    moved = [k for k in keys if before.owner(k) != after.owner(k)]
    assert moved and all(before.owner(k) == "c" for k in moved)


def test_empty_ring_owns_nothing():
    assert HashRing([]).owner("x") is None
