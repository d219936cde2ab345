"""Whether a scenario's producers batch when it does not say (``workload.batching: auto``, the default): not up to
the rate two clusters take unbatched, batched above it (as ``pulsar-perf`` and the Java client batch by default),
decided from a stored figure, never by trial in the run.

The figure is one of ``benchmarks/default_workload.py`` (stored in ``docs/results/data/default_workload.txt``; a
docs test holds it to it)."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_pulsar_ha.scenario.model import Scenario
from pytest_pulsar_ha.workload.process_count import offered_msg_s

UNBATCHED_MSG_S = 5_000
"""Messages a second (1 KB) that two geo-replicated clusters of this 2-core machine take unbatched: the default
workload kept 5,000 in every stored run on each version; unbatched 20,000 was kept in 1 of 3 per version, while
``pulsar-perf`` itself, unbatched on the same clusters, got 2,718 to 8,293 msg/s."""


@dataclass(frozen=True)
class BatchingChoice:
    """Whether the producers batch, and why (a fact of the run)."""

    enabled: bool
    why: str


def choose_batching(scenario: Scenario) -> BatchingChoice:
    """``workload.batching`` as written, or, for ``auto``, from the offered rate and the stored figure."""
    written = scenario.workload.batching
    if written != "auto":
        return BatchingChoice(written, "as written")
    if scenario.client.facts.driver:
        return BatchingChoice(False, "auto: the Java driver sends without batching")
    offered = offered_msg_s(scenario)
    if offered <= UNBATCHED_MSG_S:
        return BatchingChoice(
            False, f"auto: {offered:,.0f} msg/s offered, the clusters take {UNBATCHED_MSG_S:,} unbatched"
        )
    return BatchingChoice(
        True,
        f"auto: {offered:,.0f} msg/s offered, over the {UNBATCHED_MSG_S:,} two clusters take unbatched here; "
        "each producer batches (up to 1000 messages or 10 ms), every message still one send, ack and receipt",
    )
