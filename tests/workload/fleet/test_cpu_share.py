"""The throughput benchmark's CPU accounting: it attributes the time of processes under the benchmark to their role."""

from __future__ import annotations

import subprocess
import sys

from tests.benchmark_scripts import load_benchmark

BENCH = load_benchmark("throughput")


def test_a_busy_child_is_counted_and_an_idle_one_is_not() -> None:
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    idle = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        share = BENCH.CpuShare(0.3, 1.5, lambda: {busy.pid: "producer-0", idle.pid: "consumer-0"})
        cores = share.result()
    finally:
        for process in (busy, idle):
            process.kill()
            process.wait()
    assert cores["worker (producer-0)"] > 0.2  # a spinning process: most of a core, even on a loaded machine
    assert cores.get("worker (consumer-0)", 0.0) < 0.05


def test_roles_come_from_the_command_line() -> None:
    role = BENCH._role
    assert role(1, "java ... org.apache.pulsar.PulsarStandaloneStarter --config x", {}) == "broker (standalone)"
    assert role(2, "java -cp x org.apache.pulsar.testclient.PulsarPerfTestTool produce -u u t", {}) == (
        "pulsar-perf produce"
    )
    assert role(3, "java -cp x org.apache.pulsar.testclient.PulsarPerfTestTool consume -u u t", {}) == (
        "pulsar-perf consume"
    )
    assert role(4, "python -m pytest_pulsar_ha.workload.fleet.worker_process /s", {4: "consumer-0"}) == (
        "worker (consumer-0)"
    )
