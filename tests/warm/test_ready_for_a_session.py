"""What an attached session does before its first test, on stand-in clusters (the decisions only; the real path
runs in test_warm_life_real.py): undo what earlier runs left, restart a cluster that stays unhealthy, refuse one
that is unhealthy even restarted, and refuse a migrated one, each with the reason and the fix."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_pulsar_ha.warm import attach
from pytest_pulsar_ha.warm.attach import EnvironmentUnhealthy, ready_for_a_session


class Admin:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster

    def get(self, path: str) -> Any:
        assert path == "brokers/health"
        if self.cluster.unhealthy_answers:
            self.cluster.unhealthy_answers -= 1
            raise OSError("HTTP 500: Deadlocked threads detected")
        return "ok"

    def get_raw(self, path: str) -> tuple[int, dict[str, str], bytes]:
        return 200, {}, json.dumps({"migrated": self.cluster.migrated}).encode()


class Node:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster

    def kill(self) -> None:
        self.cluster.calls.append("kill")

    def start(self) -> None:
        self.cluster.calls.append("start")
        self.cluster.unhealthy_answers = self.cluster.after_restart


class Cluster:
    def __init__(self, unhealthy_answers: int = 0, after_restart: int = 0, migrated: bool = False) -> None:
        self.unhealthy_answers = unhealthy_answers
        self.after_restart = after_restart
        self.migrated = migrated
        self.calls: list[str] = []
        self.admin = Admin(self)
        self.node = Node(self)


class Env:
    def __init__(self, **clusters: Cluster) -> None:
        self.clusters = {name.replace("_", "-"): c for name, c in clusters.items()}
        self.healed = False

    def heal(self) -> None:
        self.healed = True

    def cluster(self, name: str) -> Cluster:
        return self.clusters[name]


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(attach, "HEALTH_TIMEOUT_S", 0.0)  # one look per check: the stand-ins answer at once


def test_a_healthy_environment_is_healed_and_nothing_is_restarted() -> None:
    env = Env(cluster_a=Cluster(), cluster_b=Cluster())
    ready_for_a_session(env, "d", lambda m: None)  # type: ignore[arg-type]
    assert env.healed and all(c.calls == [] for c in env.clusters.values())


def test_a_cluster_unhealthy_after_the_heal_is_restarted_and_said_so() -> None:
    said: list[str] = []
    env = Env(cluster_a=Cluster(unhealthy_answers=5), cluster_b=Cluster())
    ready_for_a_session(env, "d", said.append)  # type: ignore[arg-type]
    assert env.clusters["cluster-a"].calls == ["kill", "start"] and env.clusters["cluster-b"].calls == []
    assert said == [
        "[pulsar-ha] cluster-a of the warm environment is not healthy (HTTP 500: Deadlocked threads detected); "
        "restarting it"
    ]


def test_a_cluster_unhealthy_even_restarted_is_refused_with_the_fix() -> None:
    env = Env(cluster_a=Cluster(unhealthy_answers=5, after_restart=5))
    with pytest.raises(EnvironmentUnhealthy) as refused:
        ready_for_a_session(env, "0123456789abcdef", lambda m: None)  # type: ignore[arg-type]
    assert str(refused.value) == (
        "cluster cluster-a of the warm environment 0123456789abcdef is not healthy, even restarted: HTTP 500: "
        "Deadlocked threads detected; pulsar-ha down 0123456789abcdef and start again"
    )


def test_a_migrated_cluster_is_refused() -> None:
    env = Env(cluster_a=Cluster(), cluster_b=Cluster(migrated=True))
    with pytest.raises(EnvironmentUnhealthy, match="cluster cluster-b of the warm environment d was migrated"):
        ready_for_a_session(env, "d", lambda m: None)  # type: ignore[arg-type]
