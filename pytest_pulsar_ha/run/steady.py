"""Steady state: every cluster of the run answers its health check, before the faults and after them."""

from __future__ import annotations

import time

from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment

STEADY_STATE_SECONDS = 120.0


def steady_state(env: PulsarHaEnvironment, clusters: list[str], timeout: float) -> list[str]:
    """Problems with the environment's health (empty when every cluster answers its health check)."""
    deadline = time.monotonic() + timeout
    while True:
        problems = []
        for name in clusters:
            try:
                env.cluster(name).admin.get("brokers/health")
            except Exception as exc:
                problems.append(f"{name} is not healthy: {exc}")
        if not problems or time.monotonic() > deadline:
            return problems
        time.sleep(1.0)
