"""Each provider kind and client kind is one class that carries its facts; every way of deciding a switch has its
model wherever one is needed (the window derivation, the Python client's builder, the Java driver), and a kind
that lacks its facts, or a way with no model, fails here."""

from __future__ import annotations

import typing

import pytest

from pytest_pulsar_ha.checks.windows import MODELS
from pytest_pulsar_ha.mutants.providers import PROVIDER_MUTANTS
from pytest_pulsar_ha.run.parts.java_client import JAVA
from pytest_pulsar_ha.run.provider import BUILDERS
from pytest_pulsar_ha.scenario.kind_facts import DECIDES, ClientFacts, Decides, ProviderFacts
from pytest_pulsar_ha.scenario.providers import (
    CLIENT_CLASSES,
    CLIENT_KINDS,
    JAVA_PROVIDER_KINDS,
    PROVIDER_CLASSES,
    PROVIDER_KINDS,
    RELAYED_PROVIDER_KINDS,
)


def test_decides_lists_every_value_of_its_type() -> None:
    assert set(DECIDES) == set(typing.get_args(Decides))


@pytest.mark.parametrize("kind", PROVIDER_KINDS)
def test_every_provider_kind_states_its_own_facts(kind: str) -> None:
    cls = PROVIDER_CLASSES[kind]
    assert "facts" in vars(cls), f"{cls.__name__} inherits its facts: state them in its class"
    assert isinstance(cls.facts, ProviderFacts)
    assert cls.facts.decides in DECIDES


@pytest.mark.parametrize("kind", CLIENT_KINDS)
def test_every_client_kind_states_its_own_facts(kind: str) -> None:
    cls = CLIENT_CLASSES[kind]
    assert "facts" in vars(cls), f"{cls.__name__} inherits its facts: state them in its class"
    assert isinstance(cls.facts, ClientFacts)


def test_every_way_of_deciding_a_switch_has_a_window_model_and_a_builder() -> None:
    decided = {cls.facts.decides for cls in PROVIDER_CLASSES.values()}
    assert decided <= set(MODELS) and set(MODELS) == set(DECIDES)
    assert decided <= set(BUILDERS)


def test_the_java_driver_runs_exactly_the_kinds_whose_facts_name_java_s_class() -> None:
    on_java = {cls.facts.decides for cls in PROVIDER_CLASSES.values() if cls.facts.java is not None}
    assert on_java == set(JAVA)
    assert JAVA_PROVIDER_KINDS == ("auto", "controlled", "none")


def test_the_kind_lists_the_messages_name_are_the_facts() -> None:
    assert RELAYED_PROVIDER_KINDS == ("auto", "controlled", "custom", "none")
    assert [k for k in PROVIDER_KINDS if PROVIDER_CLASSES[k].facts.ours] == ["auto", "controlled"]
    assert [k for k in PROVIDER_KINDS if not PROVIDER_CLASSES[k].facts.fails_over] == ["none"]
    assert [k for k in CLIENT_KINDS if CLIENT_CLASSES[k].facts.driver] == ["java"]


def test_every_provider_mutant_changes_one_of_our_providers() -> None:
    for mutant in PROVIDER_MUTANTS.values():
        assert PROVIDER_CLASSES[mutant.provider_kind].facts.ours, mutant.name
