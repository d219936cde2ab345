"""The steady-state check on fake clusters (the network faked: pure logic): a deadlocked cluster is read once and
not waited for, its JVM block kept as evidence, and it is restarted; other clusters are polled until healthy."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any, cast

from pytest_pulsar_ha.report.result import ScenarioResult
from pytest_pulsar_ha.run.steady_state import keep_deadlocks, restart_deadlocked, steady_state
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment

BLOCK = (Path(__file__).parents[1] / "checks" / "data" / "deadlock-topic-migrated.txt").read_text()
DEADLOCK_ANSWER = (
    "HTTP 500: Deadlocked threads detected. pulsar-io-18-3(tid=133), broker-topic-workers-OrderedExecutor-0-0(tid=73)"
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class FakeCluster:
    def __init__(self, answers: list[Exception | None], logs: list[str] | None = None) -> None:
        self.answers = answers
        self.asked = 0
        self.logs = logs or [""]
        self.log_reads = 0
        self.calls: list[str] = []
        self.admin = self

    def get(self, path: str) -> Any:
        assert path == "brokers/health"
        answer = self.answers[min(self.asked, len(self.answers) - 1)]
        self.asked += 1
        if answer is not None:
            raise answer
        return "ok"

    def log_tail(self, lines: int) -> str:
        log = self.logs[min(self.log_reads, len(self.logs) - 1)]
        self.log_reads += 1
        return log

    def kill(self) -> None:
        self.calls.append("kill")

    def start(self) -> None:
        self.calls.append("start")


class FakeEnv:
    def __init__(self, **clusters: FakeCluster) -> None:
        self.clusters = clusters

    def cluster(self, name: str) -> FakeCluster:
        return self.clusters[name]


def _env(**clusters: FakeCluster) -> PulsarHaEnvironment:
    return cast(PulsarHaEnvironment, FakeEnv(**clusters))


def test_healthy_clusters_give_no_problem() -> None:
    clock = FakeClock()
    health = steady_state(
        _env(a=FakeCluster([None]), b=FakeCluster([None])), ["a", "b"], 120, clock=clock, sleep=clock.sleep
    )
    assert not health and health.problems == [] and health.deadlocks == []
    assert clock.now == 0.0


def test_an_unhealthy_cluster_is_polled_until_it_answers() -> None:
    clock = FakeClock()
    slow = FakeCluster([RuntimeError("HTTP 503"), RuntimeError("HTTP 503"), None])
    health = steady_state(_env(a=slow), ["a"], 120, clock=clock, sleep=clock.sleep)
    assert not health and slow.asked == 3 and clock.now == 2.0


def test_an_unhealthy_cluster_is_a_problem_at_the_deadline() -> None:
    clock = FakeClock()
    health = steady_state(_env(a=FakeCluster([RuntimeError("HTTP 503")])), ["a"], 10, clock=clock, sleep=clock.sleep)
    assert health.problems == ["a is not healthy: HTTP 503"] and health.deadlocks == []
    assert 10 <= clock.now <= 12


def test_a_deadlocked_cluster_is_asked_once_and_not_waited_for() -> None:
    clock = FakeClock()
    blue = FakeCluster([RuntimeError(DEADLOCK_ANSWER)], logs=["INFO started\n" + BLOCK])
    green = FakeCluster([None])
    health = steady_state(_env(blue=blue, green=green), ["blue", "green"], 120, clock=clock, sleep=clock.sleep)
    assert blue.asked == 1 and clock.now == 0.0
    assert len(health.deadlocks) == 1
    deadlock = health.deadlocks[0]
    assert deadlock.cluster == "blue" and deadlock.threads == (
        "pulsar-io-18-3(tid=133)",
        "broker-topic-workers-OrderedExecutor-0-0(tid=73)",
    )
    assert deadlock.known is not None and deadlock.block.startswith("Found one Java-level deadlock:")
    assert health.problems == [deadlock.describe()]


def test_the_log_is_read_again_until_the_broker_has_written_its_block() -> None:
    clock = FakeClock()
    blue = FakeCluster([RuntimeError(DEADLOCK_ANSWER)], logs=["INFO a\n", "INFO a\nFull thread dump\n", BLOCK])
    health = steady_state(_env(blue=blue), ["blue"], 120, clock=clock, sleep=clock.sleep)
    assert blue.log_reads == 3 and health.deadlocks[0].known is not None


def test_a_backend_without_logs_keeps_the_answer_alone() -> None:
    clock = FakeClock()
    blue = FakeCluster([RuntimeError(DEADLOCK_ANSWER)], logs=[""])
    health = steady_state(_env(blue=blue), ["blue"], 120, clock=clock, sleep=clock.sleep)
    assert blue.log_reads == 1 and health.deadlocks[0].block == "" and health.deadlocks[0].known is None


def test_the_deadlock_is_kept_as_evidence_and_the_cluster_restarted(tmp_path: Path) -> None:
    clock = FakeClock()
    blue = FakeCluster([RuntimeError(DEADLOCK_ANSWER)], logs=[BLOCK])
    env = _env(blue=blue)
    health = steady_state(env, ["blue"], 120, clock=clock, sleep=clock.sleep)
    result = ScenarioResult("blue-green-migration", "deviated", 1)
    keep_deadlocks(health.deadlocks, tmp_path, result)
    dump = result.evidence["blue deadlock"]
    assert dump == tmp_path / "blue-deadlock.txt"
    text = dump.read_text()
    assert text.startswith("Pulsar deadlocked on blue") and "Consumer.topicMigrated" in text
    assert result.deadlocks == health.deadlocks
    assert result.deadlocks[0].known is not None and "apache/pulsar/pull/26111" in result.deadlocks[0].describe()
    restart_deadlocked(env, health.deadlocks, result)
    assert blue.calls == ["kill", "start"]
    assert result.facts["blue restart"].startswith("restarted after its deadlock in")


def test_an_unknown_deadlock_is_no_known_defect(tmp_path: Path) -> None:
    clock = FakeClock()
    blue = FakeCluster([RuntimeError(DEADLOCK_ANSWER)], logs=[BLOCK.replace("topicMigrated", "flowPermits")])
    health = steady_state(_env(blue=blue), ["blue"], 120, clock=clock, sleep=clock.sleep)
    result = ScenarioResult("x", "deviated", 1)
    keep_deadlocks(health.deadlocks, tmp_path, result)
    assert result.deadlocks and result.deadlocks[0].known is None


def test_a_block_of_other_threads_than_the_health_check_names_is_not_read() -> None:
    clock = FakeClock()
    answer = "HTTP 500: Deadlocked threads detected. pulsar-io-18-7(tid=140), worker-2(tid=75)"
    blue = FakeCluster([RuntimeError(answer)], logs=[BLOCK] * 5)
    health = steady_state(_env(blue=blue), ["blue"], 120, clock=clock, sleep=clock.sleep)
    assert health.deadlocks[0].block == "" and health.deadlocks[0].known is None


def test_a_block_logged_before_the_run_started_is_not_read() -> None:
    clock = FakeClock()
    logged = "2026-11-27T13:36:52,016+0000 [pulsar-web-49-7] ERROR BrokersBase - Deadlocked threads detected.\n"
    blue = FakeCluster([RuntimeError(DEADLOCK_ANSWER)], logs=[logged + BLOCK] * 5)
    stamp = datetime(2026, 11, 27, 13, 36, 52, 16000, tzinfo=timezone.utc).timestamp()
    stale = steady_state(_env(blue=blue), ["blue"], 120, clock=clock, sleep=clock.sleep, since=stamp + 1)
    assert stale.deadlocks[0].block == "" and stale.deadlocks[0].known is None
    blue = FakeCluster([RuntimeError(DEADLOCK_ANSWER)], logs=[logged + BLOCK])
    fresh = steady_state(_env(blue=blue), ["blue"], 120, clock=clock, sleep=clock.sleep, since=stamp)
    assert fresh.deadlocks[0].known is not None and not fresh.deadlocks[0].before_faults


def test_a_deadlock_before_the_faults_says_the_environment_was_broken() -> None:
    clock = FakeClock()
    blue = FakeCluster([RuntimeError(DEADLOCK_ANSWER)], logs=[BLOCK])
    health = steady_state(_env(blue=blue), ["blue"], 30, clock=clock, sleep=clock.sleep, before_faults=True)
    assert health.deadlocks[0].before_faults
    assert "before the faults started" in health.deadlocks[0].describe()


def test_a_cluster_that_cannot_be_restarted_says_so() -> None:
    class External(FakeCluster):
        def kill(self) -> None:
            raise RuntimeError("the external backend runs no processes")

    clock = FakeClock()
    blue = External([RuntimeError(DEADLOCK_ANSWER)], logs=[BLOCK])
    env = _env(blue=blue)
    health = steady_state(env, ["blue"], 120, clock=clock, sleep=clock.sleep)
    result = ScenarioResult("x", "deviated", 1)
    restart_deadlocked(env, health.deadlocks, result)
    assert result.facts["blue restart"] == "not restarted after its deadlock: the external backend runs no processes"
