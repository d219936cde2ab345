"""The seam between the environment and whatever runs the brokers.

The environment decides the network plan (which proxied addresses each cluster must advertise) and asks a
backend for cluster nodes that follow it. The embedded backend runs local processes; a Docker or an
"existing clusters" backend implements the same two protocols.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pytest_pulsar_ha.network.listeners import ListenerPlan
from pytest_pulsar_ha.process.control import Controls
from pytest_pulsar_ha.settings.clusters import ClusterSpec


class ProcessControl(Controls, Protocol):
    """One process (or the single process of a standalone) that faults can hit: the verbs of
    :class:`~pytest_pulsar_ha.process.control.Controls`, and a name."""

    @property
    def name(self) -> str: ...


class BrokerControl(ProcessControl, Protocol):
    """One broker of a cluster, with its direct (unproxied) addresses."""

    @property
    def id(self) -> str:
        """The load manager's broker id (``advertisedAddress:webServicePort``), as ``GET /admin/v2/brokers/{c}``."""

    @property
    def broker_url(self) -> str: ...

    @property
    def web_url(self) -> str: ...


class ClusterNode(Controls, Protocol):
    """A running (or stopped) cluster as a backend controls it (the verbs of
    :class:`~pytest_pulsar_ha.process.control.Controls`: every process of it at once); addresses are direct, not
    proxied."""

    spec: ClusterSpec
    token: str | None
    """A superuser token of this cluster when it runs with token authentication, else None."""

    @property
    def broker_url(self) -> str: ...

    @property
    def web_url(self) -> str: ...

    @property
    def brokers(self) -> Sequence[BrokerControl]:
        """The brokers in order (one for a standalone: the standalone process itself)."""

    @property
    def zookeeper(self) -> ProcessControl | None:
        """The metadata store process, or None where it runs inside the broker (standalone)."""

    @property
    def bookie(self) -> ProcessControl | None:
        """The bookie process, or None where it runs inside the broker (standalone)."""

    def stop(self) -> None:
        """Stop for good, releasing every process."""


class Backend(Protocol):
    name: str

    def describe(self) -> str:
        """One line for the report header (what runs the brokers, which version)."""

    def create(self, spec: ClusterSpec, plans: Sequence[ListenerPlan]) -> ClusterNode:
        """A not-yet-started cluster whose broker ``i`` follows ``plans[i]`` (``spec.brokers`` plans)."""
