"""The `url_provider` fault: its answers are the URL-provider service's misbehaviours, controlled provider only."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from pulsar_ha_providers.url_provider_service import MISBEHAVIOURS
from pytest_pulsar_ha.scenario import ScenarioError, UrlProviderFault
from pytest_pulsar_ha.scenario.faults import UrlProviderAnswer
from pytest_pulsar_ha.scenario.loader import parse_scenarios

SCENARIO = """
scenarios:
  - name: bad-answers
    topology: {{clusters: [cluster-a, cluster-b]}}
    provider: {{kind: {provider}, primary: cluster-a, secondaries: [cluster-b]{delays}}}
    workload: {{topics: [{{name: t}}], duration: 20s}}
    faults:
      - {{kind: url_provider, answer: {answer}, at: 4s, for: 6s}}
    expect:
      - no_loss: true
"""


def test_every_answer_the_service_can_give_is_a_valid_answer_and_no_other() -> None:
    assert set(typing.get_args(UrlProviderAnswer)) == set(MISBEHAVIOURS)


def test_a_url_provider_fault_loads_with_its_window() -> None:
    (case,) = parse_scenarios(
        SCENARIO.format(provider="controlled", answer="trickle", delays=""), Path("s.pulsar-ha.yaml")
    )
    fault = case.scenario.faults[0]
    assert isinstance(fault, UrlProviderFault)
    assert (fault.answer, fault.start, fault.end) == ("trickle", 4.0, 10.0)


def test_a_url_provider_fault_needs_the_controlled_provider() -> None:
    with pytest.raises(ScenarioError, match=r"s.pulsar-ha.yaml:8: .*url_provider needs provider kind controlled"):
        parse_scenarios(
            SCENARIO.format(provider="auto", answer="trickle", delays=", failover_delay: 2s, switch_back_delay: 4s"),
            Path("s.pulsar-ha.yaml"),
        )


def test_an_unknown_answer_lists_the_valid_ones() -> None:
    with pytest.raises(ScenarioError, match=r"s.pulsar-ha.yaml:8: .*answer.*trickle-headers"):
        parse_scenarios(SCENARIO.format(provider="controlled", answer="slow", delays=""), Path("s.pulsar-ha.yaml"))
