"""The preflight, prepare and ClusterMigration logic that needs no cluster."""

from __future__ import annotations

import socket

import pytest

from pytest_pulsar_ha.pips.migration import (
    ClusterEndpoint,
    ClusterMigration,
    MigrationError,
    MigrationNotDone,
    PreflightFailed,
    PreflightProblem,
    TopicStatus,
    preflight,
    subscription_position,
)
from pytest_pulsar_ha.pips.migration import migration as migration_module
from pytest_pulsar_ha.pips.migration.inventory import (
    check_namespace_names,
    durable_subscriptions,
    select_scope,
    split_partitions,
)
from pytest_pulsar_ha.pips.migration.preflight import (
    green_replication_clusters,
    migration_check_seconds,
    split_subscription_where,
    subscription_where,
)
from pytest_pulsar_ha.pips.migration.status import is_system_topic


def closed_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def test_the_whole_cluster_scope_leaves_pulsars_own_namespaces_out() -> None:
    listing = {
        "public": ["public/default", "public/functions"],
        "pulsar": ["pulsar/system"],
        "orders": ["orders/eu", "orders/us"],
    }
    assert select_scope(listing) == ["orders/eu", "orders/us", "public/default"]


def test_named_namespaces_are_checked_and_deduplicated() -> None:
    assert check_namespace_names(["a/b", "c/d", "a/b"]) == ["a/b", "c/d"]
    for bad in ("a", "a/b/c", "a/ b", "/b"):
        with pytest.raises(ValueError, match="tenant/namespace"):
            check_namespace_names([bad])


def test_green_replicates_to_itself_and_the_clusters_it_knows_never_to_blue() -> None:
    assert green_replication_clusters(["blue", "dc3"], "blue", "green", ["blue", "green", "dc3"]) == ["green", "dc3"]
    assert green_replication_clusters(["blue", "dc3", "dc4"], "blue", "green", ["green", "dc3"]) == ["green", "dc3"]
    assert green_replication_clusters(["blue", "green"], "blue", "green", ["blue", "green"]) == ["green"]


@pytest.mark.parametrize(
    ("configuration", "seconds"),
    [({"clusterMigrationCheckDurationSeconds": "1"}, 1.0), ({"clusterMigrationCheckDurationSeconds": "0"}, 0.0)],
)
def test_the_migration_check_setting_is_read_from_the_runtime_configuration(
    configuration: dict[str, str], seconds: float
) -> None:
    assert migration_check_seconds(configuration) == seconds


@pytest.mark.parametrize("configuration", [{}, {"clusterMigrationCheckDurationSeconds": "x"}, None, []])
def test_an_absent_or_unreadable_migration_check_setting_is_none(configuration: object) -> None:
    assert migration_check_seconds(configuration) is None


def test_subscription_position_rule() -> None:
    assert subscription_position(green_messages=0, blue_migrated=False) == "earliest"
    assert subscription_position(green_messages=0, blue_migrated=True) == "earliest"
    assert subscription_position(green_messages=5, blue_migrated=False) == "latest"  # green's older messages
    assert subscription_position(green_messages=5, blue_migrated=True) == "earliest"  # may be redirected ones


def test_readers_are_not_subscriptions_to_move() -> None:
    stats = {"subscriptions": {"b": {"isDurable": True}, "reader-1": {"isDurable": False}, "a": {}}}
    assert durable_subscriptions(stats) == ("a", "b")
    assert durable_subscriptions({}) == ()


def test_partitions_are_folded_into_their_partitioned_topic() -> None:
    listed = ["persistent://t/n/p-partition-0", "persistent://t/n/p-partition-1", "persistent://t/n/x-partition-0"]
    assert split_partitions(listed, ["persistent://t/n/p"]) == ["persistent://t/n/x-partition-0"]


def test_system_topics_are_recognised() -> None:
    assert is_system_topic("persistent://t/n/__change_events")
    assert not is_system_topic("persistent://t/n/orders__x")


def test_a_subscription_where_round_trips() -> None:
    where = subscription_where("persistent://t/n/orders", "audit")
    assert where == "persistent://t/n/orders/subscription/audit"
    assert split_subscription_where(where) == ("persistent://t/n/orders", "audit")


def test_an_unreachable_blue_is_the_only_problem_reported() -> None:
    blue = ClusterEndpoint("blue", closed_url(), timeout=2)
    green = ClusterEndpoint("green", closed_url(), broker_service_url="pulsar://127.0.0.1:1", timeout=2)
    problems = preflight(blue, green, ["t/n"])
    assert [p.code for p in problems] == ["blue-unreachable"]
    assert "does not answer" in problems[0].what


def test_blue_and_green_must_differ() -> None:
    with pytest.raises(MigrationError, match="both named"):
        ClusterMigration(ClusterEndpoint("x", "http://a:1"), ClusterEndpoint("x", "http://b:1"))


def _migration() -> ClusterMigration:
    green = ClusterEndpoint("green", "http://g:8080", broker_service_url="pulsar://g:6650")
    return ClusterMigration(ClusterEndpoint("blue", "http://b:8080"), green, ["t/n"])


def test_start_refuses_while_preflight_finds_problems(monkeypatch: pytest.MonkeyPatch) -> None:
    problem = PreflightProblem("namespace-missing", "t/n", "missing.", "create it")
    migration = _migration()
    monkeypatch.setattr(migration, "preflight", lambda: [problem])
    started = []
    monkeypatch.setattr(migration_module, "start_migration", lambda *a: started.append(a))
    with pytest.raises(PreflightFailed) as refused:
        migration.start()
    assert refused.value.problems == [problem] and not started
    assert migration.start(force=True) == [problem] and len(started) == 1


def test_the_start_calls_are_the_namespace_switch_after_the_url() -> None:
    calls = _migration().start_calls()
    assert [(c.method, c.path, c.body) for c in calls] == [
        (
            "POST",
            "clusters/blue/migrate?migrated=false",
            {"serviceUrl": "http://g:8080", "brokerServiceUrl": "pulsar://g:6650"},
        ),
        ("POST", "namespaces/t/n/migration", True),
    ]


def test_wait_reports_the_topics_left_with_their_status(monkeypatch: pytest.MonkeyPatch) -> None:
    migration = _migration()
    stuck = TopicStatus("persistent://t/n/a", True, subscription_backlogs={"audit": 7})
    done = TopicStatus("persistent://t/n/b", True)
    monkeypatch.setattr(migration, "status", lambda: [stuck, done])
    seen: list[int] = []
    with pytest.raises(MigrationNotDone) as not_done:
        migration.wait(timeout=0.05, poll=0.01, progress=lambda s: seen.append(len(s)))
    assert not_done.value.left == [stuck]
    assert "subscription audit backlog 7" in str(not_done.value)
    assert seen and all(n == 2 for n in seen)


def test_wait_returns_once_every_topic_is_done(monkeypatch: pytest.MonkeyPatch) -> None:
    migration = _migration()
    readings = iter([[TopicStatus("persistent://t/n/a", False)], [TopicStatus("persistent://t/n/a", True)]])
    monkeypatch.setattr(migration, "status", lambda: next(readings))
    assert [s.done for s in migration.wait(timeout=5, poll=0.01)] == [True]
