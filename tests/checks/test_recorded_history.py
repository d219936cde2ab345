"""A history recorded on real clusters, judged again with no environment: the same timing verdicts as the run.

``tests/data/primary-outage-paused-primary.history.jsonl`` is the ``history.jsonl`` of one real run of the shipped
``primary-outage[paused-primary]`` with its fault pinned to the provider's checks (its verdict.json said: switch
2.76s, switch_back 4.37s, both passed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_pulsar_ha.checks import evaluate
from pytest_pulsar_ha.checks.figures import run_figures
from pytest_pulsar_ha.history import read_events_jsonl
from pytest_pulsar_ha.scenario.loader import load_scenarios

ROOT = Path(__file__).resolve().parents[2]
HISTORY = ROOT / "tests" / "data" / "primary-outage-paused-primary.history.jsonl"


def _no_spark() -> Any:
    raise AssertionError("the timing expectations need no Spark")


def test_the_timing_verdicts_come_back_the_same_from_the_stored_history() -> None:
    (case,) = [
        c
        for c in load_scenarios(ROOT / "scenarios" / "primary-outage.pulsar-ha.yaml")
        if c.id == "primary-outage[paused-primary]"
    ]
    timing = [e for e in case.scenario.expect if e.kind in ("switch", "switch_back")]
    scenario = case.scenario.model_copy(update={"expect": timing})
    results = evaluate(scenario, read_events_jsonl(HISTORY), HISTORY, _no_spark, primary="cluster-a")
    assert [(r.name, r.ok, r.measured) for r in results] == [("switch", True, "2.76s"), ("switch_back", True, "4.37s")]


def test_the_figures_of_the_stored_history() -> None:
    figures = run_figures(read_events_jsonl(HISTORY))
    (fault,) = figures.faults
    assert fault.label == "#0 pause cluster-a"
    assert fault.switch_s is not None and 2.6 <= fault.switch_s <= 3.1  # the provider's switch, before the first ack
    assert fault.rto_s is not None and fault.rto_s >= fault.switch_s
    assert figures.receipts == sum(figures.receipts_by_cluster.values()) > 0
