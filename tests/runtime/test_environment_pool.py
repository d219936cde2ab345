"""Environments keyed by topology: which scenarios need their own, reuse, one at a time, and test order."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_pulsar_ha.runtime.environment_pool import EnvironmentPool, order_by_key, scenario_specs, topology_key
from pytest_pulsar_ha.scenario.topology import Topology
from pytest_pulsar_ha.settings.clusters import ClusterSpec

SESSION = (ClusterSpec("cluster-a"), ClusterSpec("cluster-b"), ClusterSpec("cluster-c"))


def test_a_scenario_on_a_subset_of_the_session_clusters_fits() -> None:
    assert scenario_specs(Topology(clusters=("cluster-a", "cluster-b")), SESSION) is None
    assert scenario_specs(Topology(), SESSION) is None


def test_a_scenario_asking_for_brokers_or_settings_gets_its_own_clusters() -> None:
    topology = Topology.model_validate(
        {
            "clusters": ["cluster-a"],
            "brokers": {"cluster-a": 4},
            "broker_settings": {"cluster-a": {"failureDomainsEnabled": True}},
        }
    )
    specs = scenario_specs(topology, SESSION)
    assert specs == (ClusterSpec("cluster-a", brokers=4, broker_settings={"failureDomainsEnabled": "true"}),)


def test_a_cluster_the_session_lacks_needs_its_own_environment() -> None:
    specs = scenario_specs(Topology(clusters=("east",)), SESSION)
    assert specs == (ClusterSpec("east"),)


def test_the_key_is_the_clusters_brokers_settings_and_auth() -> None:
    base = topology_key([ClusterSpec("cluster-a", brokers=4, broker_settings={"x": "1"})])
    assert base == topology_key([ClusterSpec("cluster-a", brokers=4, broker_settings={"x": "1"})])
    assert base != topology_key([ClusterSpec("cluster-a", brokers=4, broker_settings={"x": "2"})])
    assert base != topology_key([ClusterSpec("cluster-a", brokers=2, broker_settings={"x": "1"})])
    assert base != topology_key([ClusterSpec("cluster-a", brokers=4, broker_settings={"x": "1"}, auth="token")])


class FakeEnv:
    def __init__(self, specs: tuple[ClusterSpec, ...], log: list[str]) -> None:
        self.specs = specs
        self.log = log

    def close(self) -> None:
        self.log.append(f"stop {self.specs[0].brokers}")


def _pool(log: list[str], max_running: int = 1) -> EnvironmentPool:
    def start(specs: tuple[ClusterSpec, ...]) -> Any:
        log.append(f"start {specs[0].brokers}")
        return FakeEnv(specs, log)

    return EnvironmentPool(start, max_running)


def test_an_environment_is_reused_for_its_key_and_one_runs_at_a_time() -> None:
    log: list[str] = []
    pool = _pool(log)
    one = (ClusterSpec("cluster-a"),)
    four = (ClusterSpec("cluster-a", brokers=4),)
    first = pool.get(one)
    assert pool.get(one) is first
    pool.get(four)
    pool.get(four)
    assert log == ["start 1", "stop 1", "start 4"]
    assert pool.is_stopped(first)
    pool.close()
    assert log[-1] == "stop 4" and pool.running() == []


def test_with_room_for_two_nothing_is_stopped() -> None:
    log: list[str] = []
    pool = _pool(log, max_running=2)
    pool.get((ClusterSpec("cluster-a"),))
    pool.get((ClusterSpec("cluster-a", brokers=4),))
    assert log == ["start 1", "start 4"]


def test_max_running_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        EnvironmentPool(lambda specs: None, 0)  # type: ignore[arg-type,return-value]


def test_items_of_one_key_run_together_after_the_others() -> None:
    items = ["a", "X1", "b", "Y1", "X2", "c"]
    keys = {"X1": "x", "X2": "x", "Y1": "y"}
    assert order_by_key(items, keys.get) == ["a", "b", "c", "X1", "X2", "Y1"]
