"""Which cluster stored a ledger, where the clusters of an environment number their ledgers apart: pure functions
over ledger ids, for whoever reads positions (the workload's attribution). The seeding itself, before a
standalone's first start, is :mod:`pytest_pulsar_ha.runtime.nodes.ledger_ids`: a cluster seeded with high bits
``k`` hands out the ledger ids ``(k << 32) | n``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def ledger_id_range(high_bits: int) -> tuple[int, int]:
    """The ledger ids a cluster seeded with ``high_bits`` hands out: [low, high)."""
    return high_bits << 32, (high_bits + 1) << 32


def seeded_owner(seeded: Mapping[int, str], ledger_id: int) -> str | None:
    """The cluster seeded with this ledger id's high 32 bits (``seeded``: high bits -> cluster), else None."""
    return seeded.get(ledger_id >> 32) if ledger_id > 0 else None


def ledger_id_order(seeded: Mapping[int, str], clusters: Sequence[str], higher: str) -> str:
    """The run's fact of how its clusters' ledger ids compare (lowest first), where ``higher`` must sort above
    every other of ``clusters``; raises ``RuntimeError`` when it does not (a backend that does not seed them)."""
    bits = {name: high for high, name in seeded.items() if name in clusters}
    missing = [name for name in clusters if name not in bits]
    if missing:
        raise RuntimeError(
            f"topology.ledger_ids_higher: {higher}, but the ledger ids of {', '.join(missing)} are not seeded "
            "(the embedded backend's standalones seed them)"
        )
    order = sorted(clusters, key=lambda name: bits[name])
    if order[-1] != higher:
        raise RuntimeError(f"topology.ledger_ids_higher: {higher}, but {order[-1]}'s ledger ids sort highest")
    return " < ".join(f"{name} ({bits[name]} << 32)" for name in order)
