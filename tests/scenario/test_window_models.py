"""The window derivation's model of each provider that runs in Python, against that provider's real decision code:
our ControlledClusterFailover's ``poll()`` and the example StickyFailover's watch loop, driven tick by tick on a
simulated clock through every shipped window they have. (AutoClusterFailover's model *is* its real decision code,
``FailoverPolicy``; the Java and C++ providers do not run in Python.)

Only the network is simulated: the URL provider's answer (a configuration, or a rejected one while a url_provider
fault holds) and the primary's health check (failing while an outage holds); the code that decides is the
shipped one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

import examples.sticky_failover as sticky
from pulsar_ha_providers.controlled_config import ConfigurationRejected, ControlledConfiguration
from pulsar_ha_providers.controlled_failover import ControlledClusterFailover
from pulsar_ha_providers.endpoints import ClusterEndpoint
from pytest_pulsar_ha.checks.windows import STICKY_FACTORY, check_interval, on_time_switch
from pytest_pulsar_ha.scenario.expectations import SwitchBackExpectation, SwitchExpectation
from pytest_pulsar_ha.scenario.factories import ClusterInfo
from pytest_pulsar_ha.scenario.loader import ScenarioCase
from pytest_pulsar_ha.scenario.providers import ControlledProvider, CustomProvider
from pytest_pulsar_ha.scenario.tick_grid import TickGrid
from tests.scenario.simulated_windows import shipped_windows, timeline

URLS = {"cluster-a": "pulsar://127.0.0.1:16650", "cluster-b": "pulsar://127.0.0.1:26650"}
CONTROLLED = shipped_windows(lambda s: isinstance(s.provider, ControlledProvider))
STICKY = shipped_windows(lambda s: isinstance(s.provider, CustomProvider) and s.provider.factory == STICKY_FACTORY)


class SimulatedControlled(ControlledClusterFailover):
    """The shipped provider; only its HTTP fetch answers from the simulated URL provider."""

    def __init__(self, primary: str, interval: float, answer: Callable[[float], str | None]) -> None:
        super().__init__(ClusterEndpoint(URLS[primary], name=primary), "http://127.0.0.1:9/", check_interval=interval)
        self.answer = answer
        self.now = 0.0
        self.switches: list[tuple[float, str]] = []

    def fetch(self) -> ControlledConfiguration:
        cluster = self.answer(self.now)
        if cluster is None:
            raise ConfigurationRejected("a bad answer (simulated url_provider fault)")
        return ControlledConfiguration(URLS[cluster])

    def switch(self, service_info: Any) -> None:
        chosen = self.answer(self.now)  # what fetch answered at this poll, which poll() hands the client
        assert chosen is not None
        self.switches.append((self.now, chosen))


@pytest.mark.parametrize(("case", "index"), CONTROLLED)
def test_the_controlled_model_is_the_real_polls_first_switch(case: ScenarioCase, index: int) -> None:
    scenario = case.scenario
    expectation = scenario.expect[index]
    assert isinstance(expectation, SwitchExpectation | SwitchBackExpectation)
    interval = check_interval(scenario)
    assert isinstance(interval, float)
    grid = TickGrid(0.0, interval)
    ref, faults = timeline(case, index, grid)
    primary = scenario.provider.primary or "cluster-a"

    def answer(now: float) -> str | None:
        if any(f.kind == "url_provider" and start <= now < end for f, start, end in faults):
            return None
        chosen = primary
        for fault, start, _ in sorted(faults, key=lambda item: item[1]):
            if fault.kind == "operator_switch" and start <= now:
                chosen = fault.to
        return chosen

    provider = SimulatedControlled(primary, interval, answer)
    tick = grid.next_tick(50.0)
    while tick < ref + 60:
        provider.now = tick
        provider.poll()
        tick += interval
    spec = expectation.switch_back if isinstance(expectation, SwitchBackExpectation) else expectation.switch
    real = next(at for at, cluster in provider.switches if at > ref and cluster == spec.to)
    assert real == pytest.approx(on_time_switch(scenario, expectation, ref, grid), abs=1e-6), provider.switches


class _Clock:
    def __init__(self, now: float) -> None:
        self.now = now


class _SimulatedStop:
    """The watch loop's stop event: waiting advances the simulated clock instead of sleeping."""

    def __init__(self, clock: _Clock, until: float) -> None:
        self.clock, self.until = clock, until

    def wait(self, timeout: float) -> bool:
        self.clock.now += timeout
        return self.clock.now > self.until

    def set(self) -> None:
        self.until = self.clock.now


@pytest.mark.parametrize(("case", "index"), STICKY)
def test_the_sticky_model_is_the_real_watch_loops_switch(
    case: ScenarioCase, index: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenario = case.scenario
    expectation = scenario.expect[index]
    assert isinstance(expectation, SwitchExpectation)
    interval = check_interval(scenario)
    assert isinstance(interval, float)
    grid = TickGrid(0.0, interval)  # the example checks on the multiples of its interval of time.monotonic()
    ref, faults = timeline(case, index, grid)
    clock = _Clock(ref - 20 * interval)
    outages = [(start, end) for fault, start, end in faults if fault.kind in ("outage", "kill", "pause", "timeout")]
    assert outages, case.id

    class FakeTime:
        @staticmethod
        def monotonic() -> float:
            return clock.now

    def health(cluster: ClusterInfo, timeout_s: float = 2.0) -> bool:
        return not any(start <= clock.now < end for start, end in outages)

    class InlineThread:  # the watch loop runs in the test's thread, on the simulated clock
        def __init__(self, target: Callable[[], None], name: str, daemon: bool) -> None:
            self.target = target

        def start(self) -> None:
            self.target()

    monkeypatch.setattr(sticky, "time", FakeTime)
    monkeypatch.setattr(sticky, "healthy", health)
    monkeypatch.setattr(sticky, "threading", _Threading(InlineThread))
    switched: list[float] = []
    info = {n: ClusterInfo(n, URLS[n], "http://127.0.0.1:9") for n in URLS}
    args = dict(scenario.provider.args) if isinstance(scenario.provider, CustomProvider) else {}
    provider = sticky.StickyFailover(
        info[scenario.provider.primary or "cluster-a"],
        info[str(args.get("secondary", "cluster-b"))],
        failures=int(str(args.get("failures", 3))),
        interval_s=interval,
        on_switch=lambda name, reason: switched.append(clock.now),
    )
    provider._stop = _SimulatedStop(clock, ref + 60)  # type: ignore[assignment]
    provider.initialize(lambda service_info: None)
    assert switched, f"{case.id}: the real loop never switched"
    assert switched[0] == pytest.approx(on_time_switch(scenario, expectation, ref, grid), abs=1e-6)


class _Threading:
    """``threading`` as the example module uses it: only ``Thread`` (run inline) and ``Event``."""

    def __init__(self, thread: type) -> None:
        self.Thread = thread
        self.Event = threading.Event


def test_there_are_windows_of_each_python_provider() -> None:
    assert len(CONTROLLED) >= 3 and len(STICKY) >= 1
