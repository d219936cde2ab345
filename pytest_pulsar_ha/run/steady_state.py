"""Steady state: every cluster of the run answers its health check, before the faults and after them.

A cluster whose health check says its JVM has deadlocked threads is not waited for (a deadlock never resolves):
its deadlock is read from its broker's log (:mod:`pytest_pulsar_ha.checks.deadlocks`) and handed back with the
problems, for the evidence and the verdict.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pytest_pulsar_ha.checks.deadlocks import Deadlock, is_deadlock_answer, read_deadlock
from pytest_pulsar_ha.report.result import ScenarioResult
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment

STEADY_STATE_SECONDS = 120.0
DEADLOCK_LOG_LINES = 8000
"""how much of the broker's log is searched for the JVM's deadlock block (it logs a full thread dump first)"""
DEADLOCK_LOG_TRIES = 5
"""the broker logs the dump beside its answer: how many times (a second apart) its log is read for the block"""


@dataclass
class Health:
    """What the steady-state check found: one problem per unhealthy cluster, and the deadlocks among them."""

    problems: list[str] = field(default_factory=list)
    deadlocks: list[Deadlock] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.problems)


def steady_state(
    env: PulsarHaEnvironment,
    clusters: list[str],
    timeout: float,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    since: float | None = None,
    before_faults: bool = False,
) -> Health:
    """Poll every cluster's health check until all pass or ``timeout`` seconds passed; a deadlocked cluster is
    read once and not polled again: its JVM block from the part of its log written since ``since`` (the run's
    start, seconds since the epoch), ``before_faults`` saying which check found it."""
    deadline = clock() + timeout
    deadlocked: dict[str, Deadlock] = {}
    while True:
        problems = []
        for name in clusters:
            if name in deadlocked:
                continue
            try:
                env.cluster(name).admin.get("brokers/health")
            except Exception as exc:
                answer = str(exc)
                if is_deadlock_answer(answer):
                    deadlocked[name] = _read(env, name, answer, sleep, since, before_faults)
                else:
                    problems.append(f"{name} is not healthy: {exc}")
        if not problems or clock() > deadline:
            found = list(deadlocked.values())
            return Health([d.describe() for d in found] + problems, found)
        sleep(1.0)


def _read(
    env: PulsarHaEnvironment,
    name: str,
    answer: str,
    sleep: Callable[[float], None],
    since: float | None,
    before_faults: bool,
) -> Deadlock:
    cluster = env.cluster(name)
    deadlock = read_deadlock(name, answer, "", before_faults=before_faults)
    for attempt in range(DEADLOCK_LOG_TRIES):
        try:
            log = cluster.log_tail(DEADLOCK_LOG_LINES)
        except Exception:  # a backend without logs, or one gone: the answer alone says enough
            return deadlock
        deadlock = read_deadlock(name, answer, log, since=since, before_faults=before_faults)
        if deadlock.block or not log:
            return deadlock
        if attempt + 1 < DEADLOCK_LOG_TRIES:
            sleep(1.0)
    return deadlock


def keep_deadlocks(deadlocks: list[Deadlock], evidence_dir: Path, result: ScenarioResult) -> None:
    """Write each deadlock's JVM block to ``<cluster>-deadlock.txt`` in the evidence; list them in ``result``."""
    for deadlock in deadlocks:
        path = evidence_dir / f"{deadlock.cluster}-deadlock.txt"
        path.write_text(
            f"{deadlock.describe()}\n\nthreads named by the health check: {', '.join(deadlock.threads)}\n\n"
            + (deadlock.block or "(no deadlock block found in the broker's log)")
            + "\n"
        )
        result.evidence[f"{deadlock.cluster} deadlock"] = path
        result.deadlocks.append(deadlock)


def restart_deadlocked(env: PulsarHaEnvironment, deadlocks: list[Deadlock], result: ScenarioResult) -> None:
    """Restart (SIGKILL, start on the same data) every deadlocked cluster, so the next test on this environment
    gets a healthy one; a backend that does not run the processes says so in the result's facts."""
    for deadlock in deadlocks:
        began = time.monotonic()
        cluster = env.cluster(deadlock.cluster)
        try:
            cluster.kill()
            cluster.start()
        except Exception as exc:  # the external backend runs no processes; a failed start is the next test's problem
            result.facts[f"{deadlock.cluster} restart"] = f"not restarted after its deadlock: {exc}"
            continue
        result.facts[f"{deadlock.cluster} restart"] = f"restarted after its deadlock in {time.monotonic() - began:.0f}s"
