"""The PIP-7 vocabulary of scenario files: topology per cluster, a workload over the namespaces of an anti-affinity
group, broker and domain faults, the placement and reassigned expectations, and expect_failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pulsar_ha.scenario import load_scenarios
from pytest_pulsar_ha.scenario.faults import BrokerKillFault, DomainOutageFault

from .helpers import REPO, dedent, load_errors, load_text

PIP7 = dedent(
    """
    scenarios:
      - name: spread
        topology:
          clusters: [cluster-a]
          brokers: {cluster-a: 4}
          broker_settings: {cluster-a: {failureDomainsEnabled: true, loadBalancerReportUpdateThresholdPercentage: 0}}
          failure_domains: {cluster-a: {rack-1: [0, 1], rack-2: [2, 3]}}
        workload: {namespaces: 4, anti_affinity_group: payments, duration: 40s}
        faults:
          - {kind: broker_kill, cluster: cluster-a, broker: 0, at: 10s, for: 20s}
          - {kind: domain_outage, cluster: cluster-a, domain: rack-2, at: 12s, for: 20s}
        expect:
          - placement: {group: payments, spread: domain}
          - reassigned: {within: 30s, fault: 1}
          - no_loss: true
    """
)


def test_the_pip7_vocabulary_loads(tmp_path: Path) -> None:
    (scenario,) = load_text(tmp_path, PIP7)
    topology = scenario.topology
    assert topology.brokers_of("cluster-a") == 4
    assert topology.settings_of("cluster-a") == {
        "failureDomainsEnabled": "true",
        "loadBalancerReportUpdateThresholdPercentage": "0",
    }
    assert topology.domain_brokers("cluster-a", "rack-2") == (2, 3)
    assert scenario.workload.namespaces == 4 and scenario.workload.anti_affinity_group == "payments"
    kill, outage = scenario.faults
    assert isinstance(kill, BrokerKillFault) and kill.broker == 0
    assert isinstance(outage, DomainOutageFault) and outage.domain == "rack-2"
    assert [e.kind for e in scenario.expect] == ["placement", "reassigned", "no_loss"]
    assert scenario.placement_cluster(scenario.expect[0].placement) == "cluster-a"  # type: ignore[union-attr]


def test_brokers_as_one_number_applies_to_every_cluster(tmp_path: Path) -> None:
    text = PIP7.replace("brokers: {cluster-a: 4}", "brokers: 4")
    (scenario,) = load_text(tmp_path, text)
    assert scenario.topology.brokers_of("cluster-a") == 4


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "rack-2: [2, 3]",
            "rack-2: [1, 3]",
            "t.pulsar-ha.yaml:7: scenarios[0].topology.failure_domains.cluster-a.rack-2[0]: broker 1 is already in "
            "domain 'rack-1'; domains are disjoint",
        ),
        (
            "rack-2: [2, 3]",
            "rack-2: [2, 4]",
            "t.pulsar-ha.yaml:7: scenarios[0].topology.failure_domains.cluster-a.rack-2[1]: broker index 4 is out of "
            "range: cluster-a has 4 brokers (indexes 0 to 3)",
        ),
        (
            "rack-2: [2, 3]",
            "rack-2: []",
            "scenarios[0].topology.failure_domains.cluster-a.rack-2: expected at least one broker index",
        ),
        (
            "brokers: {cluster-a: 4}",
            "brokers: {cluster-a: 4, cluster-b: 2}",
            "t.pulsar-ha.yaml:5: scenarios[0].topology.brokers.cluster-b: unknown cluster 'cluster-b'; expected one "
            "of topology.clusters: cluster-a",
        ),
        (
            "brokers: {cluster-a: 4}",
            "brokers: {cluster-a: 1}",
            "scenarios[0].topology.failure_domains.cluster-a: failure domains need a cluster of several brokers",
        ),
        (
            "broker: 0,",
            "broker: 6,",
            "t.pulsar-ha.yaml:10: scenarios[0].faults[0].broker: broker index 6 is out of range: cluster-a has 4 "
            "brokers (indexes 0 to 3)",
        ),
        (
            "domain: rack-2",
            "domain: rack-9",
            "t.pulsar-ha.yaml:11: scenarios[0].faults[1].domain: unknown failure domain 'rack-9' of cluster-a; "
            "declared: rack-1, rack-2",
        ),
        (
            "group: payments, spread",
            "group: orders, spread",
            "t.pulsar-ha.yaml:13: scenarios[0].expect[0].placement.group: expected the workload's anti-affinity "
            "group 'payments', found 'orders'",
        ),
        (
            "spread: domain",
            "spread: rack",
            "t.pulsar-ha.yaml:13: scenarios[0].expect[0].placement.spread: expected one of: domain; found 'rack'",
        ),
        (
            "fault: 1}",
            "fault: 5}",
            "t.pulsar-ha.yaml:14: scenarios[0].expect[1].reassigned.fault: expected the index of a fault (0 to 1), "
            "found 5",
        ),
        (
            "namespaces: 4,",
            "namespaces: 0,",
            "scenarios[0].workload.namespaces",
        ),
    ],
)
def test_each_pip7_mistake_has_a_precise_message(tmp_path: Path, old: str, new: str, expected: str) -> None:
    assert PIP7.count(old) == 1
    assert expected in load_errors(tmp_path, PIP7.replace(old, new))


def test_reassigned_needs_a_broker_fault(tmp_path: Path) -> None:
    text = PIP7.replace(
        "{kind: domain_outage, cluster: cluster-a, domain: rack-2, at: 12s, for: 20s}",
        "{kind: outage, cluster: cluster-a, at: 12s, for: 20s}",
    )
    assert (
        "scenarios[0].expect[1].reassigned.fault: reassigned is measured from a fault on brokers "
        "(broker_kill, broker_pause, domain_outage); fault 1 is a outage fault" in load_errors(tmp_path, text)
    )


def test_placement_needs_a_group_and_domains(tmp_path: Path) -> None:
    text = PIP7.replace(", anti_affinity_group: payments", "").replace(
        "failure_domains: {cluster-a: {rack-1: [0, 1], rack-2: [2, 3]}}", "failure_domains: {}"
    )
    errors = load_errors(
        tmp_path,
        text.replace("domain_outage, cluster: cluster-a, domain: rack-2", "broker_kill, cluster: cluster-a, broker: 1"),
    )
    assert "placement needs the workload in a group; set workload.anti_affinity_group: payments" in errors
    assert "spread: domain needs failure domains declared for cluster-a in topology.failure_domains" in errors


def test_broker_faults_need_a_multi_broker_cluster(tmp_path: Path) -> None:
    text = dedent(
        """
        scenarios:
          - name: s
            topology: {clusters: [cluster-a]}
            workload: {duration: 20s}
            faults: [{kind: broker_pause, cluster: cluster-a, broker: 0, at: 1s, for: 2s}]
            expect: [{no_loss: true}]
        """
    )
    assert (
        "t.pulsar-ha.yaml:5: scenarios[0].faults[0].cluster: broker_pause needs a cluster of several brokers; set "
        "topology.brokers for cluster-a (found the session default)" in load_errors(tmp_path, text)
    )


def test_per_cluster_keys_need_the_cluster_names(tmp_path: Path) -> None:
    text = dedent(
        """
        scenarios:
          - name: s
            topology: {brokers: {cluster-a: 2}}
            workload: {duration: 20s}
            expect: [{no_loss: true}]
        """
    )
    assert "scenarios[0].topology.brokers: brokers per cluster needs topology.clusters" in load_errors(tmp_path, text)


def test_expect_failure_needs_a_reason(tmp_path: Path) -> None:
    text = PIP7 + "    expect_failure: {expectation: placement, issue: '10'}\n"
    assert "scenarios[0].expect_failure: missing required key 'reason'" in load_errors(tmp_path, text)


def test_the_shipped_pip7_scenarios_load() -> None:
    cases = load_scenarios(REPO / "scenarios" / "multi-broker" / "failure-domains.pulsar-ha.yaml")
    assert [c.id for c in cases] == [
        "anti-affinity-spread",
        "anti-affinity-spread[domain-outage]",
        "anti-affinity-spread[broker-kill]",
        "failure-domains-disabled",
    ]
    assert cases[0].scenario.topology == cases[1].scenario.topology == cases[2].scenario.topology  # one environment
    failing = cases[3].scenario
    assert failing.expect_failure is not None
    assert failing.topology.settings_of("cluster-a")["failureDomainsEnabled"] == "false"
