"""What to start: clusters, each with its broker count and broker settings (open to multi-broker clusters)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pytest_pulsar_ha.errors import ConfigurationError

_NAME = re.compile(r"^[a-z][a-z0-9-]{0,39}$")
MAX_CLUSTERS = 5
MAX_BROKERS = 8
AUTH_MODES = (None, "token")
METADATA_SYNC_MODES = (None, "pulsar", "reference", "store")


@dataclass(frozen=True)
class ClusterSpec:
    """One Pulsar cluster.

    ``broker_settings`` are written into the broker configuration of every broker of this cluster only (e.g.
    ``{"clusterMigrationCheckDurationSeconds": "1"}`` or ``{"failureDomainsEnabled": "true"}``); ``brokers`` is
    the number of brokers: 1 is a ``pulsar standalone``, 2 or more is one ZooKeeper, one bookie and that many
    brokers. ``auth="token"`` turns on token authentication with a secret key of this cluster's own, so every
    cluster accepts only its own tokens.

    ``metadata_sync`` gives the cluster a configuration store of its own (PIP-136 needs one per cluster) and
    keeps it in sync with the other clusters that have one: ``"pulsar"`` with Pulsar's own synchronizer
    (``configurationMetadataSyncEventTopic``), ``"reference"`` with this project's
    (:mod:`pytest_pulsar_ha.pips.metadata_sync`), ``"store"`` by nothing the harness runs (bring your own
    synchronizer, e.g. ``pulsar-ha metadata-sync``); None: the configuration store is the metadata store.
    """

    name: str
    brokers: int = 1
    broker_settings: Mapping[str, str] = field(default_factory=dict)
    auth: str | None = None
    metadata_sync: str | None = None
    ledger_ids_high: bool = False
    """this cluster's ledger ids sort above every other cluster's of the environment (where they are seeded)"""

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ConfigurationError(
                f"cluster name {self.name!r} is not valid: use 1-40 lowercase letters, digits and '-', "
                "starting with a letter (e.g. cluster-a)"
            )
        if self.auth not in AUTH_MODES:
            raise ConfigurationError(
                f"cluster {self.name}: auth={self.auth!r} is not supported; valid values: "
                + ", ".join(repr(m) for m in AUTH_MODES)
            )
        if self.metadata_sync not in METADATA_SYNC_MODES:
            raise ConfigurationError(
                f"cluster {self.name}: metadata_sync={self.metadata_sync!r} is not supported; valid values: "
                + ", ".join(repr(m) for m in METADATA_SYNC_MODES)
            )
        if self.metadata_sync is not None and self.brokers > 1:
            raise ConfigurationError(
                f"cluster {self.name}: metadata_sync needs brokers: 1 for now (a standalone with a second RocksDB "
                "configuration store); multi-broker clusters would need a configuration store of their own"
            )
        if self.brokers < 1:
            raise ConfigurationError(f"cluster {self.name}: brokers must be at least 1, got {self.brokers}")
        if self.brokers > MAX_BROKERS:
            raise ConfigurationError(
                f"cluster {self.name}: brokers={self.brokers} is more than {MAX_BROKERS}; each broker is a JVM "
                "of its own, so use at most that many"
            )


def default_names(count: int) -> list[str]:
    return [f"cluster-{chr(ord('a') + i)}" for i in range(count)]


def parse_clusters(value: str, source: str = "pulsar_ha_clusters") -> list[ClusterSpec]:
    """Parse a count (``3``) or a comma list of names (``east,west``) into cluster specs.

    Raises ConfigurationError naming ``source`` and the valid forms.
    """
    text = value.strip()
    usage = (
        f"{source} takes a count from 1 to {MAX_CLUSTERS} (clusters named cluster-a, cluster-b, ...) or a "
        "comma-separated list of distinct cluster names"
    )
    if not text:
        raise ConfigurationError(f"{source} is empty: {usage}")
    if text.isdigit():
        count = int(text)
        if not 1 <= count <= MAX_CLUSTERS:
            raise ConfigurationError(f"{source}={value!r} is out of range: {usage}")
        return [ClusterSpec(name) for name in default_names(count)]
    names = [part.strip() for part in text.split(",")]
    if any(not name for name in names):
        raise ConfigurationError(f"{source}={value!r} has an empty name: {usage}")
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigurationError(f"{source}={value!r} names {', '.join(duplicates)} twice: {usage}")
    if len(names) > MAX_CLUSTERS:
        raise ConfigurationError(f"{source}={value!r} has {len(names)} clusters: {usage}")
    try:
        return [ClusterSpec(name) for name in names]
    except ConfigurationError as exc:
        raise ConfigurationError(f"{source}={value!r}: {exc}") from None


def parse_brokers(value: str, source: str = "pulsar_ha_brokers") -> int:
    """Parse the broker count of every cluster (1 = a standalone; 2 or more = ZooKeeper + bookie + N brokers)."""
    text = value.strip()
    if not text.isdigit() or not 1 <= int(text) <= MAX_BROKERS:
        raise ConfigurationError(
            f"{source}={value!r} is not a broker count: use a whole number from 1 (one pulsar standalone per "
            f"cluster) to {MAX_BROKERS} (ZooKeeper, one bookie and that many brokers per cluster)"
        )
    return int(text)


def ordered_pairs(names: Sequence[str]) -> list[tuple[str, str]]:
    """Every replication direction (src, dst) between distinct clusters, in topology order."""
    return [(src, dst) for src in names for dst in names if src != dst]
