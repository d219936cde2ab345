"""The controlled mutants on the real ControlledClusterFailover and the real URL provider service (loopback HTTP;
the test drives the polls and stands in for the client's update callback): ``answer_late`` applies a changed
answer one poll later than the shipped provider, ``answer_ignored`` never; each says whether it acted."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pulsar_ha_providers import ClusterEndpoint, ControlledClusterFailover, UrlProviderService
from pytest_pulsar_ha.mutants.catalogue import cannot_apply
from pytest_pulsar_ha.mutants.providers import PROVIDER_MUTANTS
from pytest_pulsar_ha.scenario.loader import load_scenarios

A, B = "pulsar://127.0.0.1:1", "pulsar://127.0.0.1:2"


@pytest.fixture
def service() -> Iterator[UrlProviderService]:
    with UrlProviderService({"a": {"serviceUrl": A}, "b": {"serviceUrl": B}}, "a") as svc:
        yield svc


def _provider(service: UrlProviderService, mutant: str | None) -> tuple[Any, list[str], Callable[[], str | None]]:
    updates: list[str] = []
    p = ControlledClusterFailover(ClusterEndpoint(A, name="a"), service.url, check_interval="1s")
    p._update = lambda info: updates.append(info.service_url)
    never_acted = PROVIDER_MUTANTS[mutant].apply(p) if mutant else (lambda: None)
    return p, updates, never_acted


def _polls(service: UrlProviderService, mutant: str | None) -> tuple[list[list[str]], str | None]:
    """After each of six polls, the switches so far: the answer moves to b before poll 2, back to a before 5."""
    p, updates, never_acted = _provider(service, mutant)
    after = []
    try:
        for n in range(6):
            if n == 1:
                service.switch_to("b")
            if n == 4:
                service.switch_to("a")
            p.poll()
            after.append(list(updates))
    finally:
        p.close()
    return after, never_acted()


def test_the_shipped_provider_switches_on_the_first_poll_that_sees_the_answer(service: UrlProviderService) -> None:
    after, _ = _polls(service, None)
    assert after == [[], [B], [B], [B], [B, A], [B, A]]


def test_answer_late_switches_one_poll_after_the_shipped_provider(service: UrlProviderService) -> None:
    after, never_acted = _polls(service, "answer_late")
    assert after == [[], [], [B], [B], [B], [B, A]]
    assert never_acted is None


def test_answer_ignored_never_switches(service: UrlProviderService) -> None:
    after, never_acted = _polls(service, "answer_ignored")
    assert after == [[]] * 6
    assert never_acted is None


@pytest.mark.parametrize("mutant", ["answer_late", "answer_ignored"])
def test_a_run_whose_answer_never_changed_says_the_mutant_never_acted(service: UrlProviderService, mutant: str) -> None:
    p, updates, never_acted = _provider(service, mutant)
    for _ in range(3):
        p.poll()
    p.close()
    assert updates == []
    assert never_acted() == "the URL provider's answer never changed in this run"


def test_controlled_mutants_apply_only_to_the_controlled_provider_and_auto_ones_only_to_auto() -> None:
    (controlled,) = [c for c in load_scenarios("scenarios/controlled-switch.pulsar-ha.yaml") if "[" not in c.id]
    outage = next(c for c in load_scenarios("scenarios/primary-outage.pulsar-ha.yaml") if c.id == "primary-outage")
    assert cannot_apply(controlled.scenario, "answer_late") is None
    assert cannot_apply(controlled.scenario, "late") == (
        "it changes our AutoClusterFailover (provider kind auto); this provider is controlled"
    )
    assert cannot_apply(outage.scenario, "answer_ignored") == (
        "it changes our ControlledClusterFailover (provider kind controlled); this provider is auto"
    )


def test_on_a_fleet_only_the_provider_mutants_apply_the_client_ones_wrap_the_runners_client() -> None:
    fleet = next(
        c
        for c in load_scenarios("scenarios/primary-outage.pulsar-ha.yaml")
        if c.id == "primary-outage[production-rate]"
    )
    assert cannot_apply(fleet.scenario, "late") is None
    assert cannot_apply(fleet.scenario, "drop_one") == (
        "it wraps the runner's producers and consumers; this workload runs in 3 worker processes of their own"
    )
