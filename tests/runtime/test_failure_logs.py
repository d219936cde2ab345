"""Broker log excerpts attached to failed real-cluster tests: the pure part, and the plugin's wiring."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pytest_pulsar_ha.runtime.failure_logs import excerpt, excerpts


def _line(seconds: float, level: str, message: str) -> str:
    stamp = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S,123+0000")
    return f"{stamp} [pulsar-io-1-2] {level:<5} org.apache.pulsar.X - {message}"


def _write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def test_only_lines_stamped_inside_the_window_count(tmp_path: Path) -> None:
    t = 1_800_000_000.0
    log = _write(
        tmp_path / "stdout.log",
        [
            _line(t - 60, "ERROR", "before the test"),
            _line(t + 1, "INFO", "ignored level"),
            _line(t + 2, "WARN", "slow topic load"),
            _line(t + 3, "ERROR", "ledger recovery failed"),
            "\tat org.apache.Foo(Foo.java:1)",
            _line(t + 4, "ERROR", "ledger recovery failed"),
            _line(t + 5, "ERROR", "metadata timeout"),
            _line(t + 120, "ERROR", "after the test"),
        ],
    )
    found = excerpt(log, t, t + 10, keep=2, label="cluster-a")
    assert found is not None
    assert (found.errors, found.warnings) == (3, 1)
    assert found.last == (
        "ERROR org.apache.pulsar.X - ledger recovery failed",
        "ERROR org.apache.pulsar.X - metadata timeout",
    )
    assert found.lines()[0] == "cluster-a: 3 ERROR, 1 WARN lines during the test"


def test_warnings_are_shown_when_there_is_no_error_and_nothing_means_none(tmp_path: Path) -> None:
    t = 1_800_000_000.0
    log = _write(tmp_path / "stdout.log", [_line(t, "WARN", "a warning"), "garbage \xff line"])
    found = excerpt(log, t, t + 1)
    assert found is not None and found.last == ("WARN org.apache.pulsar.X - a warning",)
    assert excerpt(log, t + 100, t + 200) is None
    assert excerpt(tmp_path / "missing.log", t, t + 1) is None


def test_excerpts_walks_every_process_log_under_the_roots(tmp_path: Path) -> None:
    now = time.time()
    env = tmp_path / "pulsar-ha0"
    _write(env / "cluster-a" / "logs" / "stdout.log", [_line(now, "ERROR", "a broke")])
    _write(env / "cluster-b" / "broker-1" / "logs" / "stdout.log", [_line(now, "ERROR", "b broke")])
    _write(env / "cluster-c" / "logs" / "stdout.log", [_line(now - 3600, "ERROR", "long ago")])
    labels = [e.path for e in excerpts([env], now - 5, now + 5)]
    assert labels == ["pulsar-ha0/cluster-a/logs/stdout.log", "pulsar-ha0/cluster-b/broker-1/logs/stdout.log"]


def test_the_client_log_is_read_in_local_time_beside_the_brokers_logs(tmp_path: Path) -> None:
    now = time.time()
    env = tmp_path / "pulsar-ha0"

    def client_line(seconds: float, level: str, message: str) -> str:
        stamp = datetime.fromtimestamp(seconds).strftime("%Y-%m-%d %H:%M:%S.123")
        return f"{stamp} {level:<5} [140366443873984] ProducerImpl:885 | {message}"

    _write(env / "cluster-a" / "logs" / "stdout.log", [_line(now, "WARN", "a slow")])
    _write(
        env / "clients.log",
        [
            client_line(now - 3600, "ERROR", "long ago"),
            client_line(now, "INFO", "Created producer"),
            client_line(now, "WARN", "Received error for producer: ServiceNotReady"),
        ],
    )
    found = excerpts([env], now - 5, now + 5)
    assert [e.path for e in found] == ["pulsar-ha0/cluster-a/logs/stdout.log", "pulsar-ha0/clients.log"]
    assert found[1].last == ("WARN ProducerImpl:885 | Received error for producer: ServiceNotReady",)
    assert (found[1].errors, found[1].warnings) == (0, 1)


FAILING_REAL_TEST = """
import time
from datetime import UTC, datetime

import pytest

@pytest.mark.real_clusters
def test_times_out(tmp_path_factory):
    env = tmp_path_factory.mktemp("pulsar-ha")
    (env / "toxiproxy.log").write_text("")
    logs = env / "cluster-a" / "logs"
    logs.mkdir(parents=True)
    stamp = datetime.fromtimestamp(time.time(), UTC).strftime("%Y-%m-%dT%H:%M:%S,000+0000")
    (logs / "stdout.log").write_text(f"{stamp} [main] ERROR org.apache.pulsar.Broker - topic load timed out\\n")
    ended = datetime.fromtimestamp(time.time(), UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "+0000"
    (logs / "jvm-pauses-4242.log").write_text(
        f'[{ended}] Safepoint "G1CollectForAllocation", Time since last: 1 ns, Reaching safepoint: 1 ns, '
        'At safepoint: 520000000 ns, Total: 520000000 ns\\n'
    )
    raise TimeoutError("Pulsar error: TimeOut")

def test_unit_failure_has_no_log_section():
    assert 1 == 2
"""


def test_a_failed_real_cluster_test_reports_what_the_brokers_logged(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(FAILING_REAL_TEST)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*pulsar-ha: broker logs of the failed tests*",
            "*::test_times_out",
            "*pulsar-ha*/cluster-a/logs/stdout.log: 1 ERROR, 0 WARN lines during the test",
            "*ERROR org.apache.pulsar.Broker - topic load timed out",
            "*pulsar-ha*/cluster-a/logs: the JVM stopped 1 time(s) for 0.1s or more during the test",
            "*0.52s (G1CollectForAllocation), ended * UTC",
        ]
    )
    section = result.stdout.str().split("broker logs of the failed tests")[1].split("short test summary")[0]
    assert "test_times_out" in section
    assert "test_unit_failure_has_no_log_section" not in section
