"""What a fault kind or an expectation kind is, as the rest of the harness needs to know it.

One :class:`FaultFacts` per fault kind, declared on the kind's class in :mod:`~pytest_pulsar_ha.scenario.faults`
(``facts``), read by the nemesis (quiet ends, instant faults), the backends' capabilities (what a backend must be
able to do), the scenario rules, the window derivation, the fault generator, the report and the docs. One
:class:`ExpectationFacts` per expectation kind, on its class in :mod:`~pytest_pulsar_ha.scenario.expectations`,
read by the rules, the soak mode and the report. No other module lists kinds by name; ``tests/scenario/
test_fault_facts.py`` fails when a kind lacks its facts or a backend has no answer for it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ActsOn = Literal["processes", "connections", "link", "harness"]
"""What the fault acts on, which decides the backends that can apply it:

- ``processes``: the cluster's processes (signals, a restart, their environment): only where the harness runs them;
- ``connections``: the clients' connections to the cluster, through the harness's proxy in front of them;
- ``link``: a geo-replication link, through the harness's link proxies;
- ``harness``: the harness's own services or the admin API (a URL provider, an operator's call): anywhere.
"""

ACTS_ON: tuple[ActsOn, ...] = ("processes", "connections", "link", "harness")

Proposal = Literal["PIP-121", "PIP-188", "PIP-136", "PIP-7"]
"""The proposal a kind belongs to (a scenario with such a kind is grouped under it in the report)."""


@dataclass(frozen=True)
class FaultFacts:
    """The facts of one fault kind: what it acts on, and each property it has (the others are false)."""

    acts_on: ActsOn
    takes_cluster_down: bool = False
    """Its cluster's clients are cut off or slowed (a generator never holds such faults on every cluster at once);
    false for faults on a link, a URL provider or an operator's action."""
    cuts_replication: bool = False
    """It cuts the cluster's replication links too, unless the fault says ``replication: false``."""
    on_brokers: bool = False
    """It strikes some brokers of a multi-broker cluster (``reassigned`` is measured from it; it needs a cluster
    of several brokers)."""
    quiet_end: bool = False
    """Its end leaves the cluster recovering (a restart, a thaw, hung connections): a pinned end keeps clients
    off until the cluster serves the workload's topics and passes the provider's probe steadily."""
    restarts: bool = False
    """Its end starts the cluster's processes again: their JVMs are cold, so the first sends after a switch back
    take longer (:data:`~pytest_pulsar_ha.checks.windows.RESTARTED_RECONNECT_BUDGET_S`)."""
    slow_to_fail: bool = False
    """A health probe sees it only by timing out (nothing refuses a connection): a switch comes a probe
    timeout later."""
    instant: bool = False
    """It is one action with nothing to undo at a set time (no ``for``; rolled back when the scenario ends)."""
    proposal: Proposal | None = None
    """The proposal a scenario with this fault exercises, where the fault decides it (a migration: PIP-188)."""
    needs_provider: tuple[str, str] | None = None
    """The provider kind it needs and why (``controlled``: only ControlledClusterFailover polls a URL provider),
    or None."""


@dataclass(frozen=True)
class ExpectationFacts:
    """The facts of one expectation kind: what it needs from its scenario, and where it is judged."""

    proposal: Proposal | None
    """The proposal it belongs to, or None for the data checks every proposal shares."""
    needs_provider: bool = False
    """It watches a failover provider's switches (no scenario with provider kind none can meet it)."""
    needs_consumer: bool = False
    """It reads what consumers received (workload.consumers > 0)."""
    in_soak: bool = False
    """A soak may expect it: it is judged on Spark over the whole history file, not from a list in memory."""
    window: bool = False
    """It is a switch window measured from a fault (derived from the provider's settings, pinned by the nemesis)."""
