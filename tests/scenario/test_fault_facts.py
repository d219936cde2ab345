"""Each fault kind is one class that carries its facts; every consumer reads them, and a kind that lacks one, or
a backend with no answer for what a kind acts on, fails here."""

from __future__ import annotations

import typing

import pytest

from pytest_pulsar_ha.nemesis.primitives import PRIMITIVES
from pytest_pulsar_ha.runtime.capabilities import ANSWERS, Capabilities
from pytest_pulsar_ha.scenario.expectations import EXPECTATION_CLASSES, EXPECTATION_KINDS, _Expectation
from pytest_pulsar_ha.scenario.facts import ACTS_ON, ActsOn, ExpectationFacts, FaultFacts
from pytest_pulsar_ha.scenario.faults import FAULT_CLASSES, FAULT_KINDS, _Fault

KINDS = sorted(FAULT_CLASSES)


def test_acts_on_lists_every_value_of_its_type() -> None:
    assert set(ACTS_ON) == set(typing.get_args(ActsOn))


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_states_its_own_facts_target_and_label(kind: str) -> None:
    cls = FAULT_CLASSES[kind]
    assert "facts" in vars(cls), f"{cls.__name__} inherits its facts: state them in its class"
    assert isinstance(cls.facts, FaultFacts)
    assert cls.facts.acts_on in ACTS_ON
    assert cls.target is not _Fault.target, f"{cls.__name__} does not say which cluster it hits (target)"


@pytest.mark.parametrize("kind", EXPECTATION_KINDS)
def test_every_expectation_kind_states_its_own_facts(kind: str) -> None:
    cls = EXPECTATION_CLASSES[kind]
    assert cls is not _Expectation and cls.kind == kind
    assert "facts" in vars(cls), f"{cls.__name__} inherits its facts: state them in its class"
    assert isinstance(cls.facts, ExpectationFacts)


def test_every_kind_has_a_primitive_in_the_nemesis() -> None:
    assert set(PRIMITIVES) == set(FAULT_KINDS)


def test_every_backend_answer_exists_for_what_a_kind_acts_on() -> None:
    assert set(ANSWERS) == set(ACTS_ON)


@pytest.mark.parametrize("kind", KINDS)
def test_a_backend_that_can_do_nothing_refuses_all_but_the_harness_s_own_faults(kind: str) -> None:
    nothing = Capabilities(backend="bare", clusters=("cluster-a", "cluster-b"))
    everything = Capabilities(
        backend="full",
        clusters=("cluster-a", "cluster-b"),
        processes=True,
        proxied_clients=frozenset({"cluster-a", "cluster-b"}),
        links_proxied=True,
        configurable=True,
    )
    refused = nothing._fault_reasons(kind, "cluster-a", replication=True)
    assert bool(refused) == (FAULT_CLASSES[kind].facts.acts_on != "harness"), refused
    assert all(kind in reason for reason in refused)
    assert everything._fault_reasons(kind, "cluster-a", replication=True) == []


def test_an_outage_of_clients_alone_needs_no_link_proxies() -> None:
    clients_only = Capabilities(backend="x", clusters=("cluster-a",), proxied_clients=frozenset({"cluster-a"}))
    assert clients_only._fault_reasons("outage", "cluster-a", replication=False) == []
    (why,) = clients_only._fault_reasons("outage", "cluster-a", replication=True)
    assert "cuts replication links too" in why and "replication: false" in why


def test_labels_name_each_fault_as_histories_do() -> None:
    from pydantic import TypeAdapter

    from pytest_pulsar_ha.scenario.faults import Fault

    adapter: TypeAdapter[typing.Any] = TypeAdapter(Fault)
    cases = {
        "#0 outage cluster-a": {"kind": "outage", "cluster": "cluster-a", "at": "1s", "for": "1s"},
        "#1 replication_cut cluster-a->cluster-b": {
            "kind": "replication_cut",
            "from": "cluster-a",
            "to": "cluster-b",
            "at": "1s",
            "for": "1s",
        },
        "#2 operator_switch ->cluster-b": {"kind": "operator_switch", "to": "cluster-b", "at": "1s"},
        "#3 url_provider hang": {"kind": "url_provider", "answer": "hang", "at": "1s", "for": "1s"},
        "#4 broker_kill cluster-a/1": {
            "kind": "broker_kill",
            "cluster": "cluster-a",
            "broker": 1,
            "at": "1s",
            "for": "1s",
        },
        "#5 domain_outage cluster-a/d1": {
            "kind": "domain_outage",
            "cluster": "cluster-a",
            "domain": "d1",
            "at": "1s",
            "for": "1s",
        },
        "#6 migrate cluster-a->cluster-b": {"kind": "migrate", "from": "cluster-a", "to": "cluster-b", "at": "1s"},
    }
    for index, (label, fields) in enumerate(cases.items()):
        assert adapter.validate_python(fields).label(index) == label


def test_the_package_exports_every_fault_and_expectation_kind() -> None:
    import pytest_pulsar_ha.scenario as scenario

    for cls in [*FAULT_CLASSES.values(), *EXPECTATION_CLASSES.values()]:
        assert cls.__name__ in scenario.__all__, f"{cls.__name__} is missing from pytest_pulsar_ha.scenario.__all__"
        assert getattr(scenario, cls.__name__) is cls
