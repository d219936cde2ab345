"""``workload.processes: auto`` decides from stored ceilings: the figures in
:mod:`pytest_pulsar_ha.workload.process_count` are what the stored benchmark outputs show, never above."""

from __future__ import annotations

import re
from pathlib import Path

from pytest_pulsar_ha.workload.batching_choice import UNBATCHED_MSG_S
from pytest_pulsar_ha.workload.process_count import SINGLE_PROCESS_MSG_S, WORKER_OPERATIONS_S

DATA = Path(__file__).resolve().parents[2] / "docs" / "results" / "data"


Row = tuple[float, int, int, str, str]
"""(the lowest share acked within 1 s over the runs, in %, runs kept, runs, processes, batching)"""


def _summaries(text: str) -> dict[str, dict[str, Row]]:
    """Each version's summary table of ``default_workload.txt``: label -> :data:`Row`."""
    tables: dict[str, dict[str, Row]] = {}
    current: dict[str, Row] | None = None
    row_pattern = r"(\S+/s, [^%]+?)\s+([\d.]+)%.*?\s(\d+)/(\d+)\s+(\S+)\s+(\S+)$"
    for line in text.splitlines():
        if match := re.match(r"Pulsar (\S+), 2 clusters, 1 KB, \d+ s, \d+ runs each$", line):
            current = tables.setdefault(match.group(1), {})
        elif current is not None and (row := re.match(row_pattern, line)):
            groups = row.groups()
            current[groups[0].strip()] = (float(groups[1]), int(groups[2]), int(groups[3]), groups[4], groups[5])
    return tables


def test_one_process_kept_the_single_process_ceiling_in_every_stored_run_on_every_version() -> None:
    """At least 99% of the sends acknowledged within 1 s in every run (the ceiling's definition); the run's own
    rate check may still have flagged a run (its column ``kept`` counts those out)."""
    tables = _summaries((DATA / "default_workload.txt").read_text())
    assert {"4.2.4", "4.0.8"} <= set(tables), tables
    for version, rows in tables.items():
        lowest, _, runs, processes, batching = rows[f"{SINGLE_PROCESS_MSG_S:,}/s, auto"]
        assert processes == "1" and batching == "off", (version, processes, batching)
        assert runs >= 3 and lowest >= 99.0, (
            f"Pulsar {version}: one process acked {lowest}% of {SINGLE_PROCESS_MSG_S:,}/s within 1 s in a run"
        )


def test_a_fleet_worker_kept_its_ceiling_in_the_stored_throughput_run() -> None:
    text = (DATA / "throughput.txt").read_text()
    producers = int(re.search(r"workload: (\d+) producers and 1 consumer, each in a worker process", text).group(1))  # type: ignore[union-attr]
    kept = [
        int(rate.replace(",", ""))
        for rate, verdict in re.findall(r"^workload unbatched, ([\d,]+)/s offered .*?  (yes|no)", text, re.M)
        if verdict == "yes"
    ]
    assert kept and max(kept) / producers >= WORKER_OPERATIONS_S  # each producer's worker; the consumer took them all


def test_two_clusters_took_the_unbatched_figure_in_every_stored_run_and_auto_batches_above_it() -> None:
    """``workload.batching: auto`` decides from ``UNBATCHED_MSG_S``: unbatched, the default workload had at least
    99% acked within 1 s at that rate in every run on every version, and the offered rates above it ran batched."""
    tables = _summaries((DATA / "default_workload.txt").read_text())
    for version, rows in tables.items():
        lowest, _, runs, _, batching = rows[f"{UNBATCHED_MSG_S:,}/s, auto"]
        assert batching == "off" and runs >= 3 and lowest >= 99.0, (version, lowest, runs, batching)
        above = [
            label
            for label in rows
            if label.endswith(", auto") and int(label.split("/")[0].replace(",", "")) > UNBATCHED_MSG_S
        ]
        assert above and all(rows[label][4] == "on" for label in above), (version, above)
