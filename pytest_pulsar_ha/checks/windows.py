"""The switch windows a scenario's settings derive: one derivation the docs, the benchmark, the runner and the
tests share.

How (docs/reference/providers.md, "How the tests measure a switch"): the nemesis pins the fault a window is measured
from half an interval before a provider check (:mod:`pytest_pulsar_ha.scenario.tick_grid`). The on-time provider's
switch, S after the fault, follows from its rules tick by tick: ours (AutoClusterFailover) through its real decision
code (``FailoverPolicy``), the others from their sources (Java's and the C++ client's AutoClusterFailover, our
ControlledClusterFailover's poll, the example StickyFailover). The window is [S - EPS, S + R + EPS]: R is the
client's reconnect budget, from the switch to the first send acknowledged by the new cluster
(:data:`RECONNECT_BUDGET_S`, backed by ``benchmarks/switch_windows.py``'s stored output); a Java producer also waits
out its reconnect backoff (``client.max_backoff``). A provider one interval late lands at S + I + R, outside the
window for every R in [0, R] when I > R + 2 EPS.

A scenario whose provider this module has no model of (``kind: none``, a custom factory other than the example)
derives no window: :func:`derive_window` says why.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pytest_pulsar_ha.scenario.expectations import SwitchBackExpectation, SwitchExpectation
from pytest_pulsar_ha.scenario.kind_facts import Decides
from pytest_pulsar_ha.scenario.model import Scenario
from pytest_pulsar_ha.scenario.providers import (
    AutoProvider,
    ControlledProvider,
    CustomProvider,
    NativeProvider,
    NoProvider,
)
from pytest_pulsar_ha.scenario.tick_grid import TickGrid

RECONNECT_BUDGET_S = 0.4
"""R: the switch to the first send acknowledged by the new cluster, for a client that reconnects at once."""
RESTARTED_RECONNECT_BUDGET_S = 1.5
"""R for a switch back to a cluster whose processes the fault restarted (its facts say ``restarts``): their JVMs
are cold. In primary-outage[killed-primary] the first ack came 0.46 s after the provider's on-time switch back in
CI (stop 28), 0.34 s in rehearsal #16 and 0.94 s in CI (stop 45), where 15 local rounds measured 0.11-0.13 s
(``docs/results/data/switch_windows_killed.txt``): a loaded 2-core machine puts a tail on it. It needs a check
interval above R + 2 EPS, so that a provider one interval late stays outside the window."""
EPS = 0.05
"""How far the pinned moment and the provider's grid may be off: the nemesis wakes and applies a fault within
milliseconds; the native provider's checks drift by each check's duration (it schedules the next one after)."""
STICKY_FACTORY = "examples.sticky_failover:build"
"""The one custom provider modelled here (it says when it checks: ``tick_grid``)."""

WindowExpectation = SwitchExpectation | SwitchBackExpectation


@dataclass(frozen=True)
class DerivedWindow:
    low_s: float
    high_s: float
    switch_s: float
    """S: when the on-time provider switches, after the (pinned) fault start or end"""
    interval_s: float
    budget_s: float

    def describe(self) -> str:
        return (
            f"[{self.low_s:.3f}s, {self.high_s:.3f}s]: the on-time switch S = {self.switch_s:.3f}s after the pinned "
            f"fault moment, the window [S - {EPS}s, S + R {self.budget_s:g}s + {EPS}s] (check interval "
            f"{self.interval_s:g}s)"
        )


def window_reference(expectation: WindowExpectation) -> tuple[int, bool]:
    """(the fault's index, whether the window is measured from its end)."""
    if isinstance(expectation, SwitchBackExpectation):
        return expectation.switch_back.fault, True
    return expectation.switch.fault, expectation.switch.of == "fault_end"


def check_interval(scenario: Scenario) -> float | str:
    """The provider's check interval, or why there is no model of when it checks (its facts' ``decides`` picks
    the model: :data:`MODELS`)."""
    provider = scenario.provider
    result: float | str = MODELS[provider.facts.decides].interval(provider)
    return result


def _setting(provider: AutoProvider | ControlledProvider | NativeProvider) -> float:
    return provider.check_interval.seconds


def _sticky_interval(provider: CustomProvider) -> float | str:
    if provider.factory != STICKY_FACTORY:
        return f"no model of the custom provider {provider.factory} (only {STICKY_FACTORY})"
    return float(str(provider.args.get("interval_s", 1.0)))


def _no_interval(provider: NoProvider) -> str:
    return f"no model of provider kind {provider.kind}: it has no checks to derive a switch from"


def _ticks(grid: TickGrid, after: float) -> Iterator[float]:
    tick = grid.next_tick(after)
    while True:
        yield tick
        tick += grid.interval_s


def _policy_switch(provider: AutoProvider, grid: TickGrid, ref: float, back: bool) -> float:
    """Our AutoClusterFailover's own decision code, ticked on the grid (the primary fails from ``ref``, or is
    healthy again from ``ref`` after a switch)."""
    from pulsar_ha_providers.failover_policy import DEFAULT_TOLERANCE_S, FailoverPolicy

    interval = provider.check_interval.seconds
    policy = FailoverPolicy(
        2,
        provider.failover_delay.seconds,
        provider.switch_back_delay.seconds,
        tolerance=min(DEFAULT_TOLERANCE_S, interval / 4),
    )
    if back:  # on the secondary, the primary failing until ref
        first = grid.next_tick(ref) - interval
        policy.tick(first - provider.failover_delay.seconds - interval, {0: False, 1: True})
        decision = policy.tick(first, {0: False, 1: True})
        if decision is None:
            raise AssertionError("the policy did not switch to the secondary before the switch back")
        policy.commit(decision)
    for count, tick in enumerate(_ticks(grid, ref)):
        if policy.tick(tick, {0: back, 1: True}) is not None:
            return tick
        if count > 10_000:
            raise AssertionError("the policy never switched")
    raise AssertionError("unreachable")


def on_time_switch(scenario: Scenario, expectation: WindowExpectation, ref: float, grid: TickGrid) -> float:
    """When the on-time provider hands clients the new cluster, the fault starting (or ending) at ``ref``.
    Raises ValueError where there is no model."""
    provider = scenario.provider
    switch: float = MODELS[provider.facts.decides].switch(_Moment(scenario, expectation, ref, grid), provider)
    return switch


@dataclass(frozen=True)
class _Moment:
    """What a switch is derived from: the scenario, the expectation's fault and ``ref``, its (pinned) start or end
    on the provider's grid."""

    scenario: Scenario
    expectation: WindowExpectation
    ref: float
    grid: TickGrid

    @property
    def back(self) -> bool:
        return isinstance(self.expectation, SwitchBackExpectation)

    @property
    def first(self) -> float:
        """The first check that sees the fault (or its end)."""
        return self.grid.next_tick(self.ref)


def _poll_switch(at: _Moment, provider: ControlledProvider) -> float:
    index, of_end = window_reference(at.expectation)
    fault = at.scenario.faults[index]
    if fault.kind == "operator_switch":  # the next poll after the operator's switch
        return at.first
    if fault.kind != "url_provider" or of_end or fault.for_ is None:
        raise ValueError(f"no model of a controlled provider's switch on a {fault.kind} fault")
    return at.grid.next_tick(at.ref + fault.for_.seconds)  # the first poll after the bad answers end


def _sticky_switch(at: _Moment, provider: CustomProvider) -> float:
    """StickyFailover: N failed health checks in a row."""
    if at.back:
        raise ValueError("StickyFailover never switches back")
    return at.first + (int(str(provider.args.get("failures", 3))) - 1) * at.grid.interval_s


def _probe_count_switch(at: _Moment, provider: NativeProvider) -> float:
    """Probe counts: threshold = ceil(delay / I) checks in a row."""
    interval = at.grid.interval_s
    delay = provider.switch_back_delay.seconds if at.back else provider.failover_delay.seconds
    return at.first + (max(1, math.ceil(delay / interval)) - 1) * interval


def _auto_switch(at: _Moment, provider: AutoProvider) -> float:
    interval = at.grid.interval_s
    if at.scenario.client.facts.driver:  # Java's: nanoTime readings D apart, the first at a failed check
        delay = provider.switch_back_delay.seconds if at.back else provider.failover_delay.seconds
        ticks = delay / interval
        if abs(ticks - round(ticks)) <= 0.1:
            raise ValueError(
                "Java compares two System.nanoTime() readings; with a delay of a whole number of checks one a hair "
                "short waits a check more (seen 5 of 5 times), so the switch moment is not fixed"
            )
        return at.first + math.ceil(ticks) * interval
    from pulsar_ha_providers.probes import default_probe_timeout

    index, _ = window_reference(at.expectation)
    late = default_probe_timeout(interval) if at.scenario.faults[index].facts.slow_to_fail and not at.back else 0.0
    return _policy_switch(provider, at.grid, at.ref, at.back) + late


def _no_switch(at: _Moment, provider: NoProvider) -> float:
    raise ValueError(f"no model of provider kind {provider.kind}")


@dataclass(frozen=True)
class _Model:
    interval: Callable[..., float | str]
    """The provider's check interval, or why there is no model of when it checks."""
    switch: Callable[..., float]
    """When the on-time provider switches (a ValueError where there is no model)."""


MODELS: dict[Decides, _Model] = {
    "policy": _Model(_setting, _auto_switch),
    "probe_counts": _Model(_setting, _probe_count_switch),
    "url_provider": _Model(_setting, _poll_switch),
    "factory": _Model(_sticky_interval, _sticky_switch),
    "nothing": _Model(_no_interval, _no_switch),
}
"""The window model of each way a provider decides a switch (:data:`~pytest_pulsar_ha.scenario.kind_facts.Decides`)."""


def reconnect_budget(scenario: Scenario, expectation: WindowExpectation | None = None) -> float:
    """R: the switch to the first ack by the new cluster (a Java producer first waits out its backoff; a cluster
    restarted by the fault the window is measured from, its end, gets :data:`RESTARTED_RECONNECT_BUDGET_S`)."""
    budget = RECONNECT_BUDGET_S
    if expectation is not None:
        index, of_end = window_reference(expectation)
        if of_end and index < len(scenario.faults) and scenario.faults[index].facts.restarts:
            budget = RESTARTED_RECONNECT_BUDGET_S
    client = scenario.client
    if client.facts.waits_out_backoff:
        if client.max_backoff is None:
            raise ValueError("a Java client's window needs client.max_backoff (its reconnect backoff's ceiling)")
        return budget + client.max_backoff.seconds
    return budget


COLD = (
    "a cold switch-back: clients meet the cluster as it restarts or thaws, so Pulsar's recovery time is in the "
    "window, which is written, not derived"
)
"""Why a ``cold`` switch-back's window is not derived from the provider's settings."""


def derive_window(scenario: Scenario, expectation: WindowExpectation) -> DerivedWindow | str:
    """The window the scenario's settings give the expectation ([S - EPS, S + R + EPS], S from a fault pinned on
    the provider's grid), or why none can be derived."""
    interval = check_interval(scenario)
    if isinstance(interval, str):
        return interval
    index, _ = window_reference(expectation)
    if index >= len(scenario.faults):
        return f"the scenario has no fault #{index}"
    if isinstance(expectation, SwitchBackExpectation) and expectation.switch_back.cold:
        return COLD
    grid = TickGrid(0.0, interval)
    ref = grid.pin(10.0)
    try:
        switch = on_time_switch(scenario, expectation, ref, grid) - ref
        budget = reconnect_budget(scenario, expectation)
    except ValueError as exc:
        return str(exc)
    if budget == RESTARTED_RECONNECT_BUDGET_S and interval <= budget + 2 * EPS:
        return (
            f"a switch back to a restarted cluster allows R {budget:g}s to reconnect, so a window could not tell "
            f"an on-time provider from one a check late with check interval {interval:g}s: use provider."
            f"check_interval > {budget + 2 * EPS:g}s"
        )
    return DerivedWindow(round(switch - EPS, 3), round(switch + budget + EPS, 3), switch, interval, budget)
