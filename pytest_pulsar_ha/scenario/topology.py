"""The clusters a scenario runs on (``topology:``), and the rule that every cluster a scenario names is one of them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal

from pydantic import (
    Field,
    model_validator,
)

from pytest_pulsar_ha.scenario.base import (
    BrokerCount,
    BrokerIndex,
    ClusterName,
    DomainName,
    Loc,
    SettingName,
    SettingValue,
    _duplicates,
    _Model,
    _raise_problems,
)

if TYPE_CHECKING:
    from pytest_pulsar_ha.scenario.model import Scenario


# -- topology ------------------------------------------------------------------------------------------------


SyncMode = Literal["pulsar", "reference", "store"]


class Topology(_Model):
    """The clusters a scenario runs on: their names, brokers, broker settings and failure domains.

    A scenario whose topology differs from the session's (brokers, broker settings, clusters) gets an
    environment of its own, started for it and shared with every scenario of the same topology.
    """

    clusters: tuple[ClusterName, ...] | None = None
    """Names of the clusters, in order. Default: the session's clusters (`--pulsar-ha-clusters`)."""
    auth: Literal["none", "token"] = "none"
    """What the clusters must require of clients: `token` needs a session started with `--pulsar-ha-auth=token`
    (each cluster then has its own secret key, and the providers switch credentials with the URL)."""
    brokers: BrokerCount | dict[ClusterName, BrokerCount] | None = None
    """Brokers per cluster: a number for every cluster, or `{cluster: number}` (others: 1). 1 is a `pulsar
    standalone`; 2 or more is one ZooKeeper, one bookie and that many brokers. Default: the session's
    (`--pulsar-ha-brokers`)."""
    broker_settings: dict[ClusterName, dict[SettingName, SettingValue]] = Field(default_factory=dict)
    """broker.conf settings per cluster, e.g. `{cluster-a: {failureDomainsEnabled: true}}` (part of what
    decides which environment runs the scenario)."""
    failure_domains: dict[ClusterName, dict[DomainName, tuple[BrokerIndex, ...]]] = Field(default_factory=dict)
    """PIP-7 failure domains per cluster, by broker index: `{cluster-a: {rack-1: [0, 1], rack-2: [2, 3]}}`.
    Declared through the admin API before the workload starts (replacing the cluster's other domains)."""
    metadata_sync: SyncMode | dict[ClusterName, SyncMode] | None = None
    """PIP-136: every cluster gets a configuration store of its own, kept in sync with the others' through a
    geo-replicated event topic: `pulsar` by Pulsar's own synchronizer (`configurationMetadataSyncEventTopic`),
    `reference` by this project's, `store` by nothing the harness runs (your own synchronizer); or per
    cluster, e.g. `{cluster-a: pulsar, cluster-b: reference}` (the two side by side on one topic). Needs
    `brokers: 1` (standalones with a second RocksDB store)."""
    ledger_ids_higher: ClusterName | None = None
    """The cluster whose ledger ids sort above every other cluster's (its ids are seeded with higher high
    bits), so that a message id it handed out compares above any of another cluster's: e.g. a consumer that
    keeps this cluster's last acked id after a switch sees the other cluster's messages as older. Default: the
    clusters in order, each above the one before. A standalone's (brokers: 1): the multi-broker clusters keep
    Pulsar's own numbering."""

    @model_validator(mode="after")
    def _check(self) -> Topology:
        problems: list[tuple[Loc, str]] = []
        if self.clusters is not None:
            problems += _duplicates(self.clusters, ("clusters",), "cluster")
            if not self.clusters:
                problems.append((("clusters",), "expected at least one cluster, found an empty list"))
        problems += self._check_named_clusters()
        problems += self._check_ledger_ids()
        problems += self._check_domains()
        if isinstance(self.metadata_sync, dict):
            named = self.clusters or ()
            problems += [
                (("metadata_sync", name), f"unknown cluster {name!r}; expected one of topology.clusters")
                for name in self.metadata_sync
                if name not in named
            ]
            problems += [
                (("metadata_sync",), f"every cluster needs a mode; missing: {name}")
                for name in named
                if name not in self.metadata_sync
            ]
        if self.metadata_sync is not None:
            several = [c for c in (self.clusters or ()) if (self.brokers_of(c) or 1) > 1]
            if several or (isinstance(self.brokers, int) and self.brokers > 1):
                problems.append(
                    (
                        ("metadata_sync",),
                        "metadata sync runs on standalones (brokers: 1) for now; remove topology.brokers or set "
                        "it to 1",
                    )
                )
            if self.clusters is not None and len(self.clusters) < 2:
                problems.append((("metadata_sync",), "metadata sync needs at least two clusters in topology.clusters"))
        _raise_problems(problems)
        return self

    def _named(self) -> Iterator[tuple[Loc, str]]:
        if isinstance(self.brokers, dict):
            yield from ((("brokers", name), name) for name in self.brokers)
        yield from ((("broker_settings", name), name) for name in self.broker_settings)
        yield from ((("failure_domains", name), name) for name in self.failure_domains)

    def _check_named_clusters(self) -> list[tuple[Loc, str]]:
        named = list(self._named())
        if not named:
            return []
        if self.clusters is None:
            loc, _ = named[0]
            return [(loc[:1], f"{loc[0]} per cluster needs topology.clusters (the names of the clusters)")]
        return [
            (loc, f"unknown cluster {name!r}; expected one of topology.clusters: {', '.join(self.clusters)}")
            for loc, name in named
            if name not in self.clusters
        ]

    def _check_ledger_ids(self) -> list[tuple[Loc, str]]:
        higher = self.ledger_ids_higher
        if higher is None:
            return []
        if self.clusters is None:
            return [(("ledger_ids_higher",), "ledger_ids_higher needs topology.clusters (the names of the clusters)")]
        if higher not in self.clusters:
            return [
                (
                    ("ledger_ids_higher",),
                    f"unknown cluster {higher!r}; expected one of topology.clusters: {', '.join(self.clusters)}",
                )
            ]
        if any((self.brokers_of(name) or 1) > 1 for name in self.clusters):
            return [
                (
                    ("ledger_ids_higher",),
                    "ledger ids are seeded on standalones only (brokers: 1 for every cluster); multi-broker "
                    "clusters keep Pulsar's numbering",
                )
            ]
        return []

    def sync_of(self, cluster: str) -> SyncMode | None:
        """How ``cluster``'s metadata is kept in sync (None: it is not)."""
        if isinstance(self.metadata_sync, dict):
            return self.metadata_sync.get(cluster)
        return self.metadata_sync

    def brokers_of(self, cluster: str) -> int | None:
        """The brokers this topology asks of ``cluster`` (None: the session's count)."""
        if isinstance(self.brokers, dict):
            return self.brokers.get(cluster, 1)
        return self.brokers

    def settings_of(self, cluster: str) -> dict[str, str]:
        """``broker_settings`` of ``cluster`` as broker.conf strings (booleans as ``true``/``false``)."""
        values = self.broker_settings.get(cluster, {})
        return {key: str(v).lower() if isinstance(v, bool) else str(v) for key, v in values.items()}

    def domain_brokers(self, cluster: str, domain: str) -> tuple[int, ...] | None:
        """The broker indexes of ``domain`` in ``cluster`` (None: no such domain)."""
        return self.failure_domains.get(cluster, {}).get(domain)

    def _check_domains(self) -> list[tuple[Loc, str]]:
        problems: list[tuple[Loc, str]] = []
        for cluster, domains in self.failure_domains.items():
            loc: Loc = ("failure_domains", cluster)
            count = self.brokers_of(cluster)
            if not domains:
                problems.append((loc, "expected at least one domain, e.g. {rack-1: [0, 1], rack-2: [2, 3]}"))
            if count is None or count < 2:
                problems.append(
                    (
                        loc,
                        f"failure domains need a cluster of several brokers; set topology.brokers for {cluster} "
                        f"(found {count or 'the session default'})",
                    )
                )
                continue
            owner: dict[int, str] = {}
            for domain, indexes in domains.items():
                if not indexes:
                    problems.append(((*loc, domain), "expected at least one broker index, found an empty list"))
                for position, index in enumerate(indexes):
                    where = (*loc, domain, position)
                    if index >= count:
                        problems.append(
                            (
                                where,
                                f"broker index {index} is out of range: {cluster} has {count} brokers "
                                f"(indexes 0 to {count - 1})",
                            )
                        )
                    elif index in owner:
                        problems.append(
                            (where, f"broker {index} is already in domain {owner[index]!r}; domains are disjoint")
                        )
                    else:
                        owner[index] = domain
        return problems


# -- the rule ------------------------------------------------------------------------------------------------


def check_clusters(scenario: Scenario) -> list[tuple[Loc, str]]:
    """Every cluster the scenario names (:meth:`Scenario.cluster_refs`) is one of the topology's."""
    known = scenario.topology.clusters
    if known is None:
        return []
    return [
        (loc, f"unknown cluster {name!r}; expected one of the topology's clusters: {', '.join(known)}")
        for loc, name in scenario.cluster_refs()
        if name not in known
    ]
