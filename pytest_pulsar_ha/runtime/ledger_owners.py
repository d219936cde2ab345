"""Which cluster stored a ledger, where the clusters of an environment number their ledgers apart: pure functions
over ledger ids, for whoever reads positions (the workload's attribution). The seeding itself, before a
standalone's first start, is :mod:`pytest_pulsar_ha.runtime.nodes.ledger_ids`: a cluster seeded with high bits
``k`` hands out the ledger ids ``(k << 32) | n``."""

from __future__ import annotations

from collections.abc import Mapping


def ledger_id_range(high_bits: int) -> tuple[int, int]:
    """The ledger ids a cluster seeded with ``high_bits`` hands out: [low, high)."""
    return high_bits << 32, (high_bits + 1) << 32


def seeded_owner(seeded: Mapping[int, str], ledger_id: int) -> str | None:
    """The cluster seeded with this ledger id's high 32 bits (``seeded``: high bits -> cluster), else None."""
    return seeded.get(ledger_id >> 32) if ledger_id > 0 else None
