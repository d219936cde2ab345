"""The embedded backend, the default: each cluster runs as local processes on loopback ports (a ``pulsar
standalone`` per 1-broker cluster, ZooKeeper + bookie + brokers otherwise)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_pulsar_ha.network.listeners import ListenerPlan
from pytest_pulsar_ha.runtime.nodes.common import EmbeddedOptions
from pytest_pulsar_ha.runtime.nodes.multi_broker import MultiBrokerNode
from pytest_pulsar_ha.runtime.nodes.standalone import StandaloneNode, create_node
from pytest_pulsar_ha.settings.clusters import ClusterSpec

__all__ = ["EmbeddedBackend", "EmbeddedOptions", "compile_ledger_id_seed"]

HIGH_OFFSET = 16
"""Added to the high bits of the cluster whose ledger ids sort higher: above every other cluster's k (at most
:data:`~pytest_pulsar_ha.settings.clusters.MAX_CLUSTERS`)."""


class EmbeddedBackend:
    """Local ``pulsar standalone`` processes; the default backend."""

    name = "embedded"

    def __init__(self, options: EmbeddedOptions) -> None:
        self.options = options
        self._created = 0

    def describe(self) -> str:
        dist = self.options.distribution
        return (
            f"embedded (local processes: a standalone per 1-broker cluster, ZooKeeper + bookie + brokers otherwise; "
            f"Pulsar {dist.label} at {dist.home}, heap {self.options.heap})"
        )

    @property
    def pulsar_runtime(self) -> str:
        """The Pulsar the clusters run, as verdicts name it (an assembled runtime says so)."""
        return self.options.distribution.label

    def create(self, spec: ClusterSpec, plans: Sequence[ListenerPlan]) -> StandaloneNode | MultiBrokerNode:
        """The cluster's node; the k-th cluster of the environment numbers its ledgers from k << 32 (k from 1),
        so that a (ledger, entry) position names one cluster (runtime/nodes/ledger_ids.py); one whose ids must
        sort above the others' (``spec.ledger_ids_high``) from (k + :data:`HIGH_OFFSET`) << 32."""
        self._created += 1
        bits = self._created + (HIGH_OFFSET if spec.ledger_ids_high else 0)
        return create_node(spec, plans, self.options, ledger_id_high_bits=bits)


def compile_ledger_id_seed(java: Path, pulsar_home: Path, log_path: Path) -> Path:
    """Compile (once, cached) the tool that seeds each cluster's ledger ids before its first start, so that a
    session's first clusters do not wait for it (provisioning calls this)."""
    from pytest_pulsar_ha.runtime.nodes.ledger_ids import seed_classes

    return seed_classes(java, pulsar_home, log_path)
