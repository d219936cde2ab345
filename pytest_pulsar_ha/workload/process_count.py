"""How many processes a scenario's workload runs in when it does not say (``workload.processes: auto``, the
default): one where one process keeps the offered rate, else as many worker processes (the fleet) as the offered
sends and receipts need, decided from stored per-process ceilings, never by trial in the run.

The ceilings are figures of ``benchmarks/default_workload.py`` (stored in
``docs/results/data/default_workload.txt``; a docs test holds them to it) and of the fleet's throughput benchmark
(``docs/results/data/throughput.txt``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from pytest_pulsar_ha.scenario.model import Scenario

SINGLE_PROCESS_MSG_S = 5_000
"""Messages a second (1 KB, every send with its ack and its receipt in the history) that the single-process workload
keeps on two clusters of this 2-core machine: at least 99% of its sends acknowledged within 1 s."""
WORKER_OPERATIONS_S = 15_000
"""Sends or receipts a second that one worker process of the fleet takes on: a producer kept 15,000 msg/s
unbatched in a worker of its own, a consumer 30,000 (the throughput benchmark's 30,000/s run)."""
MAX_PROCESSES = 16


@dataclass(frozen=True)
class ProcessChoice:
    """The processes a workload runs in, and why (a fact of the run)."""

    count: int
    why: str


def offered_msg_s(scenario: Scenario) -> float:
    """Every producer's sends a second together (per producer rate x producers x topics x namespaces)."""
    w = scenario.workload
    return w.rate.per_second * w.producers * len(w.topics) * w.namespaces


def choose_processes(scenario: Scenario) -> ProcessChoice:
    """``workload.processes`` as written, or, for ``auto``, from the offered rate and the stored ceilings."""
    w = scenario.workload
    if w.processes != "auto":
        return ProcessChoice(w.processes, f"{w.processes} as written")
    offered = offered_msg_s(scenario)
    if offered <= SINGLE_PROCESS_MSG_S:
        return ProcessChoice(1, f"auto: {offered:,.0f} msg/s offered, one process keeps {SINGLE_PROCESS_MSG_S:,}")
    single = w.single_process_options()
    if single:
        return ProcessChoice(1, f"auto: workload.{single[0][0]} runs in the single-process workload")
    if scenario.client.facts.driver:
        return ProcessChoice(1, "auto: the Java driver is one process of its own")
    if not scenario.provider.facts.relayed:
        return ProcessChoice(
            1,
            f"auto: provider kind {scenario.provider.kind} runs inside one client, so one process, which keeps "
            f"about {SINGLE_PROCESS_MSG_S:,} msg/s of the {offered:,.0f} offered",
        )
    slots = w.producers * len(w.topics) * w.namespaces + w.consumers * len(w.topics) * w.namespaces
    operations = offered * (2 if w.consumers else 1)  # each send is received once, on one subscription
    count = max(1, min(MAX_PROCESSES, slots, max(2, math.ceil(operations / WORKER_OPERATIONS_S))))
    return ProcessChoice(
        count,
        f"auto: {offered:,.0f} msg/s offered, over the {SINGLE_PROCESS_MSG_S:,} one process keeps; "
        f"{count} worker processes for {operations:,.0f} sends and receipts a second "
        f"(about {WORKER_OPERATIONS_S:,} each)",
    )
