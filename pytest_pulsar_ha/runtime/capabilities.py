"""Which faults a backend can really apply, and the scenarios it cannot run (skipped with the reason, never faked).

The embedded backend runs every process and wires every link through toxiproxy: everything is possible, and it
has no :class:`Capabilities` (None). A backend over clusters it does not run (``external``) can neither kill nor
pause them, nor configure their brokers, and it cuts connections only where they go through its proxies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pytest_pulsar_ha.scenario.facts import ActsOn
from pytest_pulsar_ha.scenario.faults import FAULT_CLASSES

if TYPE_CHECKING:
    import pytest

    from pytest_pulsar_ha.scenario.model import Scenario


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do to the clusters it serves (see the module's documentation)."""

    backend: str
    clusters: tuple[str, ...]
    processes: bool = False
    """kill and pause (of clusters, brokers, domains)"""
    proxied_clients: frozenset[str] = frozenset()
    """clusters whose every client connection goes through the harness's proxy"""
    links_proxied: bool = False
    """replication links go through the harness's proxies"""
    replicated: bool = True
    """the clusters replicate to each other"""
    configurable: bool = False
    """the harness sets broker counts, broker settings, failure domains and metadata stores"""
    auth: dict[str, str] = field(default_factory=dict)
    """cluster -> ``token`` or ``none``"""
    routes: dict[str, str] = field(default_factory=dict)
    """cluster -> how its client connections go (named in reasons)"""

    def _fault_reasons(self, kind: str, cluster: str | None, replication: bool) -> list[str]:
        facts = FAULT_CLASSES[kind].facts
        reasons = ANSWERS[facts.acts_on](self, kind, cluster)
        if facts.cuts_replication and replication and facts.acts_on != "link":
            reasons += _links(self, kind, cluster, also=True)
        return reasons

    def impossible(self, scenario: Scenario) -> list[str]:
        """Why ``scenario`` cannot run here (empty when it can)."""
        reasons: list[str] = []
        topology = scenario.topology
        names = list(topology.clusters or self.clusters)
        missing = [n for n in names if n not in self.clusters]
        if missing:
            reasons.append(
                f"the scenario needs clusters {', '.join(missing)}; the {self.backend} backend has "
                f"{', '.join(self.clusters)}"
            )
        if not self.configurable:
            asked = [
                key
                for key, value in (
                    ("brokers", topology.brokers),
                    ("broker_settings", topology.broker_settings),
                    ("failure_domains", topology.failure_domains),
                    ("metadata_sync", topology.metadata_sync),
                )
                if value
            ]
            if asked:
                reasons.append(
                    f"topology.{', topology.'.join(asked)} configures brokers, which the harness does not run on the "
                    f"{self.backend} backend"
                )
        wrong_auth = [n for n in names if n in self.auth and self.auth[n] != topology.auth]
        if wrong_auth:
            reasons.append(
                f"the scenario needs clusters with auth {topology.auth}; "
                + ", ".join(f"{n} has {self.auth[n]}" for n in wrong_auth)
            )
        if len(names) > 1 and not self.replicated:
            reasons.append(f"the scenario needs clusters that replicate; the {self.backend} backend's do not")
        for fault in scenario.faults:
            reasons += self._fault_reasons(fault.kind, fault.target, fault.cuts_links)
        if scenario.generate is not None:
            for kind in scenario.generate.kinds:
                for name in scenario.generate.clusters or names:
                    reasons += self._fault_reasons(kind, name, True)
        return list(dict.fromkeys(reasons))


def _processes(caps: Capabilities, kind: str, cluster: str | None) -> list[str]:
    if caps.processes:
        return []
    return [
        f"fault kind {kind} acts on the cluster's processes, which the harness does not run on the "
        f"{caps.backend} backend"
    ]


def _connections(caps: Capabilities, kind: str, cluster: str | None) -> list[str]:
    reasons = []
    for name in [cluster] if cluster is not None else list(caps.clusters):
        if name not in caps.proxied_clients:
            reasons.append(
                f"fault kind {kind} cuts or slows client connections, but {name}'s clients are not all behind the "
                f"harness's proxy on the {caps.backend} backend (route {caps.routes.get(name, 'unknown')}: lookups "
                "hand clients the broker's own address)"
            )
    return reasons


def _links(caps: Capabilities, kind: str, cluster: str | None, *, also: bool = False) -> list[str]:
    if caps.links_proxied:
        return []
    what = (
        f"fault kind {kind} with replication: true (the default) cuts replication links too"
        if also
        else f"fault kind {kind} cuts a replication link"
    )
    return [
        f"{what}, and the clusters are not registered in each other through the harness's proxies on the "
        f"{caps.backend} backend" + (f" (a {kind} of clients alone is replication: false)" if also else "")
    ]


def _harness(caps: Capabilities, kind: str, cluster: str | None) -> list[str]:
    return []  # the harness's own services and the admin API are there on every backend


ANSWERS: dict[ActsOn, Callable[[Capabilities, str, str | None], list[str]]] = {
    "processes": _processes,
    "connections": _connections,
    "link": _links,
    "harness": _harness,
}
"""What a fault acts on -> why a backend cannot apply it (empty: it can)."""


def skip_impossible(items: Iterable[pytest.Item], capabilities: Capabilities | None) -> None:
    """Mark every scenario test that needs a fault (or a topology) the backend cannot give ``skip``, with why."""
    if capabilities is None:
        return
    import pytest

    for item in items:
        case = getattr(item, "case", None)
        scenario = getattr(case, "scenario", None)
        if scenario is None:
            continue
        reasons = capabilities.impossible(scenario)
        if reasons:
            item.add_marker(pytest.mark.skip(reason="; ".join(reasons)))
