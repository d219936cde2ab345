"""PIP-7 on real brokers: 4 brokers in 2 failure domains, ModularLoadManagerImpl placing an anti-affinity group.

Placement is read from Pulsar (each broker's owned bundles, each namespace's group, the cluster's domains),
never from what the test asked for.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.pips.failure_domains import (
    GroupPlacement,
    anti_affinity_namespaces,
    anti_affinity_namespaces_listed,
    cluster_group_placement,
    declare_failure_domains,
    lookup_topic,
    owner_id,
    set_anti_affinity_group,
)
from pytest_pulsar_ha.pips.placing import PIP7_BROKER_SETTINGS, place_namespaces
from pytest_pulsar_ha.runtime.cluster import Cluster
from pytest_pulsar_ha.settings.clusters import ClusterSpec

from .conftest import EnvironmentFactory

pytestmark = pytest.mark.real_clusters

DOMAINS = {"rack-1": [0, 1], "rack-2": [2, 3]}


@pytest.fixture(scope="module")
def cluster(start_environment: EnvironmentFactory) -> Iterator[Cluster]:
    settings = dict(PIP7_BROKER_SETTINGS)  # placement from fresh load reports (see pips.placing)
    spec = ClusterSpec("cluster-a", brokers=4, broker_settings=settings)
    with start_environment(spec) as env:
        a = env.cluster("cluster-a")
        declare_failure_domains(a, DOMAINS)
        yield a


def _group(cluster: Cluster, size: int) -> tuple[str, str, list[str]]:
    """A fresh tenant with ``size`` namespaces in one fresh anti-affinity group (nothing looked up yet)."""
    tenant, group = f"t-{uuid.uuid4().hex[:6]}", f"g-{uuid.uuid4().hex[:6]}"
    cluster.admin.put(f"tenants/{tenant}", {"adminRoles": [], "allowedClusters": [cluster.name]})
    namespaces = [f"{tenant}/ns{i}" for i in range(size)]
    for ns in namespaces:
        cluster.admin.put(f"namespaces/{ns}", {})
        set_anti_affinity_group(cluster.admin, ns, group)
    return tenant, group, namespaces


def _assign(cluster: Cluster, namespaces: list[str]) -> None:
    """Have the load manager place one namespace at a time, each visible in its owner's load report before the
    next (as the scenario runner does; README, "Failure domains")."""
    place_namespaces(cluster, namespaces, "t")


def _placement(cluster: Cluster, tenant: str, group: str) -> GroupPlacement:
    placement = cluster_group_placement(cluster, group, tenant)
    print(placement.describe())
    return placement


def test_every_broker_runs_the_modular_load_manager_with_domains_on(cluster: Cluster) -> None:
    assert sorted(cluster.admin.get("brokers/cluster-a")) == sorted(b.id for b in cluster.brokers)
    for broker in cluster.brokers:
        runtime = AdminClient(broker.direct_admin_url).get("brokers/configuration/runtime")
        assert runtime["loadManagerClassName"].endswith(".ModularLoadManagerImpl")
        assert runtime["failureDomainsEnabled"] == "true"


def test_domains_declared_by_broker_index_are_what_pulsar_reports(cluster: Cluster) -> None:
    reported = {d: sorted(v["brokers"]) for d, v in cluster.admin.get("clusters/cluster-a/failureDomains").items()}
    ids = [b.id for b in cluster.brokers]
    assert reported == {d: sorted(ids[i] for i in indexes) for d, indexes in DOMAINS.items()}


def test_group_membership_is_read_back_from_pulsar(cluster: Cluster) -> None:
    tenant, group, namespaces = _group(cluster, 3)
    assert anti_affinity_namespaces(cluster.admin, group, tenant) == namespaces
    assert anti_affinity_namespaces_listed(cluster.admin, "cluster-a", group, tenant) == namespaces


def test_four_namespaces_of_a_group_are_spread_over_both_domains_and_every_broker(cluster: Cluster) -> None:
    tenant, group, namespaces = _group(cluster, 4)
    _assign(cluster, namespaces)
    placement = _placement(cluster, tenant, group)
    assert placement.unowned() == []
    assert {d: len(ns) for d, ns in placement.namespaces_by_domain().items()} == {"rack-1": 2, "rack-2": 2}
    assert sorted(placement.namespaces_by_broker()) == sorted(b.id for b in cluster.brokers)  # one each
    assert placement.spread_problems() == []


def test_a_killed_broker_s_namespace_moves_to_the_other_broker_of_its_domain(cluster: Cluster) -> None:
    """Runs last: it leaves the cluster with 3 brokers."""
    tenant, group, namespaces = _group(cluster, 4)
    _assign(cluster, namespaces)
    before = _placement(cluster, tenant, group)
    assert before.spread_problems() == []
    leader = cluster.admin.get("brokers/leaderBroker")["brokerId"]
    victim_bundle = next(b for b in before.bundles if b.broker != leader)
    victim = cluster.broker(str(victim_bundle.broker))
    partner = next(b for b in before.domains[str(victim_bundle.domain)] if b != victim.id)
    survivor = next(b for b in cluster.brokers if b.id not in (victim.id, leader))
    began = time.monotonic()
    victim.kill()
    while victim.id in cluster.admin.get("brokers/cluster-a"):  # its session expires (about 6 s)
        if time.monotonic() - began > 90:
            raise AssertionError(f"the killed broker {victim.id} is still listed after 90s")
        time.sleep(0.5)
    while True:  # a lookup through a live broker reassigns the bundle once the victim's session expired
        try:
            owner = owner_id(lookup_topic(survivor.direct_admin_url, f"{victim_bundle.namespace}/t", timeout=10))
        except OSError:
            owner = victim.id
        if owner != victim.id:
            break
        if time.monotonic() - began > 90:
            raise AssertionError(f"{victim_bundle.namespace} still on the killed broker {victim.id} after 90s")
        time.sleep(0.5)
    took = time.monotonic() - began
    after = _placement(cluster, tenant, group)
    print(f"{victim_bundle.namespace}: {victim.id} killed, served by {owner} after {took:.1f}s")
    assert owner == partner, f"expected the other broker of {victim_bundle.domain} ({partner}), got {owner}"
    assert after.spread_problems() == []
