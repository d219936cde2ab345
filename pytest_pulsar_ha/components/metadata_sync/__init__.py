"""PIP-136 metadata sync: the oracle of what every cluster must converge to (first slice of issue #12)."""

from pytest_pulsar_ha.components.metadata_sync.oracle import (
    TIE_RULES,
    Divergence,
    MetadataWrite,
    converged,
    divergences,
    winners,
    wins_over,
)

__all__ = ["TIE_RULES", "Divergence", "MetadataWrite", "converged", "divergences", "winners", "wins_over"]
