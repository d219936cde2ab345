"""``workload.processes: auto`` decides from stored ceilings: the figures in
:mod:`pytest_pulsar_ha.workload.process_count` are what the stored benchmark outputs show, never above."""

from __future__ import annotations

import re
from pathlib import Path

from pytest_pulsar_ha.workload.process_count import SINGLE_PROCESS_MSG_S, WORKER_OPERATIONS_S

DATA = Path(__file__).resolve().parents[2] / "docs" / "results" / "data"


def _summaries(text: str) -> dict[str, dict[str, tuple[int, int, str]]]:
    """Each version's summary table of ``default_workload.txt``: label -> (runs kept, runs, processes)."""
    tables: dict[str, dict[str, tuple[int, int, str]]] = {}
    current: dict[str, tuple[int, int, str]] | None = None
    for line in text.splitlines():
        if match := re.match(r"Pulsar (\S+), 2 clusters, 1 KB, \d+ s, \d+ runs each$", line):
            current = tables.setdefault(match.group(1), {})
        elif current is not None and (row := re.match(r"(\S+/s, [^%]+?)\s+[\d.]+%.*?\s(\d+)/(\d+)\s+(\S+)$", line)):
            current[row.group(1).strip()] = (int(row.group(2)), int(row.group(3)), row.group(4))
    return tables


def test_one_process_kept_the_single_process_ceiling_in_every_stored_run_on_every_version() -> None:
    tables = _summaries((DATA / "default_workload.txt").read_text())
    assert {"4.2.4", "4.0.8"} <= set(tables), tables
    for version, rows in tables.items():
        kept, runs, processes = rows[f"{SINGLE_PROCESS_MSG_S:,}/s, auto"]
        assert processes == "1", (version, processes)
        assert runs >= 3 and kept == runs, (
            f"Pulsar {version}: one process kept {SINGLE_PROCESS_MSG_S:,}/s in {kept} of {runs}"
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
