"""What a provider kind or a client kind is, as the rest of the harness needs to know it.

One :class:`ProviderFacts` per provider kind and one :class:`ClientFacts` per client kind, declared on the kind's
class in :mod:`~pytest_pulsar_ha.scenario.providers` (``facts``), read by the scenario rules, the window derivation,
the mutant catalogue, the run's parts, the nemesis, the process count and the report. No other module branches on
a provider or client kind by name or class; ``tests/quality/test_kind_branches.py`` fails where one does, and
``tests/scenario/test_kind_facts.py`` where a kind lacks its facts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Decides = Literal["policy", "probe_counts", "url_provider", "factory", "nothing"]
"""How a provider decides a switch, which picks its model wherever one is needed (building it, configuring the
Java driver, deriving a switch window):

- ``policy``: our AutoClusterFailover's ``FailoverPolicy`` over probes (on the Java client, Java's own
  AutoClusterFailover: delays compared on ``System.nanoTime()``);
- ``probe_counts``: the C++ client's AutoClusterFailover, which switches after N failed probes in a row (the delays
  turned into counts);
- ``url_provider``: ControlledClusterFailover, which polls a URL-provider service an operator switches;
- ``factory``: the user's own ``pulsar.ServiceInfoProvider``, built by their factory;
- ``nothing``: no failover (clients connect to one cluster).
"""

DECIDES: tuple[Decides, ...] = ("policy", "probe_counts", "url_provider", "factory", "nothing")


@dataclass(frozen=True)
class ProviderFacts:
    """The facts of one provider kind."""

    decides: Decides
    """How it decides a switch (:data:`Decides`)."""
    label: str
    """It in words as the Python client runs it (the side-by-side tables); ``{name}`` takes its setting ``name``."""
    java: str | None = None
    """What runs it on the Java client, in words (Java's own class), or None: a Python object the Java driver cannot
    run (refused at load time)."""
    relayed: bool = False
    """It runs in the runner, which relays its switches to a fleet's workers (``workload.processes`` > 1); false for
    one that lives inside one client."""
    ours: bool = False
    """One of our providers (``pulsar_ha_providers``): a provider mutant of its kind can change it, and it reports
    its switches as they happen (a client mutant acts after the first one)."""
    probed: bool = False
    """The runner probes clusters as it does (its ``probe`` setting): a recovered cluster must pass that probe
    steadily before clients may reach it (on the Python client; Java's probes by TCP connect)."""

    @property
    def fails_over(self) -> bool:
        """It may switch clients to another cluster (a scenario with it exercises PIP-121)."""
        return self.decides != "nothing"


@dataclass(frozen=True)
class ClientFacts:
    """The facts of one client kind."""

    driver: bool = False
    """It runs in a driver process of its own, with the provider's Java classes: one process (no fleet), no
    harness-built provider, no mutant; false for a client in the runner (or a fleet's workers)."""
    waits_out_backoff: bool = False
    """After a provider's switch its producer first waits out the reconnect backoff in progress
    (``max_backoff``, which a switch window's budget adds)."""
