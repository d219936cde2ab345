"""Faults on some brokers of a multi-broker cluster: one broker killed or frozen, or a whole failure domain killed.

A domain outage is a kill of every broker of the domain (SIGKILL, all at once), not a network cut: only a
broker whose metadata session expires gives up its bundles, so a kill is what moves them to the surviving
domains; a cut broker keeps them and its clients wait. The brokers are started again (one after the other, each
until it is healthy) when the fault ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass

from pytest_pulsar_ha.errors import ConfigurationError
from pytest_pulsar_ha.runtime.cluster import Broker, Cluster


@dataclass(frozen=True)
class BrokerFault:
    make: Callable[[], AbstractContextManager[object]]
    brokers: tuple[str, ...]
    """the load-manager ids of the brokers it hits"""


@contextmanager
def _all_killed(brokers: Sequence[Broker]) -> Iterator[None]:
    killed: list[Broker] = []
    try:
        for broker in brokers:
            broker.kill()
            killed.append(broker)
        yield
    finally:
        errors = []
        for broker in killed:
            try:
                broker.start()
            except Exception as exc:
                errors.append(f"broker {broker.index} ({broker.id}): {exc}")
        if errors:
            raise RuntimeError("could not start again: " + "; ".join(errors))


def _broker(cluster: Cluster, index: int) -> Broker:
    if not 0 <= index < len(cluster.brokers):
        raise ConfigurationError(
            f"cluster {cluster.name} has {len(cluster.brokers)} broker(s); there is no broker {index} "
            "(check topology.brokers of the scenario)"
        )
    return cluster.brokers[index]


def on_broker(
    cluster: Cluster, index: int, action: Callable[[Broker], Callable[[], AbstractContextManager[object]]]
) -> BrokerFault:
    """The fault ``action`` (e.g. ``lambda broker: broker.killed``) on broker ``index`` of ``cluster``."""
    victim = _broker(cluster, index)
    return BrokerFault(action(victim), (victim.id,))


def on_domain(cluster: Cluster, domain: Sequence[int]) -> BrokerFault:
    """Every broker of a failure domain of ``cluster`` (the brokers' indexes) killed at once."""
    victims = [_broker(cluster, i) for i in domain]
    if not victims:
        raise ConfigurationError(f"domain_outage on {cluster.name}: the domain has no broker")
    return BrokerFault(lambda: _all_killed(victims), tuple(b.id for b in victims))
