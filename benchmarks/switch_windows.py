"""Run shipped scenarios N rounds on one real environment and print their switch figures against their windows.

This is how the shipped timing windows are derived and re-checked: each scenario's `switch` / `switch_back`
windows come from its provider settings plus the client's reconnect time (the time from the provider's switch to
the first send acknowledged by the new cluster, read from the brokers' storage), and must hold in every clean
round. For every case it prints, per timing expectation, min / median / max of the measured figure next to the
window, the rounds that passed, and the reconnect time (min / median / max) over all switches seen.

    .venv/bin/python benchmarks/switch_windows.py --rounds 10              # every case with a timing expectation
    .venv/bin/python benchmarks/switch_windows.py --rounds 3 -k hung-primary

Needs `make setup`. Evidence of each round goes to reports/switch-windows/<case>/<round>/.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from pytest_pulsar_ha import HaSettings, build_environment, parse_clusters
from pytest_pulsar_ha.checks.windows import (
    RECONNECT_BUDGET_S,
    DerivedWindow,
    WindowExpectation,
    derive_window,
    reconnect_budget,
)
from pytest_pulsar_ha.history import ACK, SWITCH, Event
from pytest_pulsar_ha.run.conductor import execute
from pytest_pulsar_ha.scenario import ScenarioError
from pytest_pulsar_ha.scenario.expectations import EXPECTATION_CLASSES
from pytest_pulsar_ha.scenario.loader import ScenarioCase, load_scenarios

TIMING_KINDS = tuple(kind for kind, cls in EXPECTATION_CLASSES.items() if cls.facts.window)
ROOT = Path(__file__).resolve().parent.parent


def _safe(case_id: str) -> str:
    """The case id as a folder name: Spark reads paths as globs, so no brackets (as the runner's evidence)."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in case_id)


def timing_cases(pattern: str | None) -> list[ScenarioCase]:
    if str(ROOT) not in sys.path:  # a scenario's provider factory is importable from the rootdir, as under pytest
        sys.path.insert(0, str(ROOT))
    cases = []
    for path in sorted((ROOT / "scenarios").rglob("*.pulsar-ha.yaml")):
        try:
            loaded = load_scenarios(path)
        except ScenarioError as exc:
            print(f"skipping {path.name}: {exc}")
            continue
        for case in loaded:
            kinds = {e.kind for e in case.scenario.expect}
            if not kinds & set(TIMING_KINDS):
                continue
            if pattern and not re.search(pattern, case.id):
                continue
            if "nightly_demo" in case.scenario.marks:  # flaky by design (scenarios/nightly): not a window to back
                continue
            cases.append(case)
    return cases


def timing_only(case: ScenarioCase) -> ScenarioCase:
    expect = [e for e in case.scenario.expect if e.kind in TIMING_KINDS]
    return dataclasses.replace(case, scenario=case.scenario.model_copy(update={"expect": expect}))


def reconnect_times(events: list[Event]) -> list[float]:
    """Seconds from each provider switch to the first send acknowledged by the cluster it switched to."""
    out = []
    for switch in (e for e in events if e.type == SWITCH and e.cluster):
        first = next(
            (e for e in events if e.type == ACK and e.cluster == switch.cluster and e.ts_ns >= switch.ts_ns), None
        )
        if first is not None:
            out.append((first.ts_ns - switch.ts_ns) / 1e9)
    return out


def _seconds(measured: str) -> float | None:
    match = re.fullmatch(r"(-?[0-9.]+)s", measured.strip())
    return float(match.group(1)) if match else None


def _stats(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("-k", dest="pattern", default=None, help="regular expression over case ids")
    parser.add_argument("--clusters", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "switch-windows")
    parser.add_argument(
        "--timing-only",
        action="store_true",
        help="check only the switch / switch_back expectations (skips the Spark checks: faster rounds)",
    )
    args = parser.parse_args()

    cases = timing_cases(args.pattern)
    if args.timing_only:
        cases = [timing_only(c) for c in cases]
    if not cases:
        parser.error("no shipped case with a switch or switch_back expectation matches")
    from pytest_pulsar_ha.history import read_events_jsonl
    from spark_checks.spark.session import build_spark_session

    spark = build_spark_session(None, conf={"spark.driver.memory": "1g", "spark.sql.shuffle.partitions": 4})
    figures: dict[str, dict[str, list[float]]] = {c.id: {} for c in cases}
    windows: dict[str, dict[str, str]] = {c.id: {} for c in cases}
    passed = dict.fromkeys(figures, 0)
    reconnects: dict[str, list[float]] = {c.id: [] for c in cases}
    outcomes: dict[str, list[str]] = {c.id: [] for c in cases}
    env = build_environment(HaSettings(clusters=parse_clusters(str(args.clusters))), progress=print)
    started = time.monotonic()
    with env:
        for round_ in range(args.rounds):
            for case in cases:
                t0 = time.monotonic()
                result = execute(
                    case,
                    env,
                    evidence_dir=args.out / _safe(case.id) / str(round_),
                    spark=lambda: spark,
                    seed=case.seed + round_,
                )
                env.heal()
                outcomes[case.id].append(result.outcome)
                passed[case.id] += result.outcome == "passed"
                for i, check in enumerate(result.checks):
                    if check.name in TIMING_KINDS:
                        key = f"{check.name}#{i}"
                        value = _seconds(check.measured)
                        if value is not None:
                            figures[case.id].setdefault(key, []).append(value)
                        windows[case.id][key] = check.expected
                if "history" in result.evidence:
                    reconnects[case.id] += reconnect_times(read_events_jsonl(result.evidence["history"]))
                print(
                    f"round {round_ + 1}/{args.rounds} {case.id}: {result.outcome} in {time.monotonic() - t0:.0f}s "
                    + " ".join(f"{c.name}={c.measured}" for c in result.checks if c.name in TIMING_KINDS),
                    flush=True,
                )
                if result.outcome != "passed":
                    print(result.describe(), flush=True)
    spark.stop()
    print(f"\n{args.rounds} round(s) in {time.monotonic() - started:.0f}s; min / median / max in seconds")
    summary: dict[str, Any] = {}
    for case in cases:
        print(f"\n{case.id}: passed {passed[case.id]}/{args.rounds}; reconnect {_stats(reconnects[case.id])}")
        for key, values in figures[case.id].items():
            print(f"  {key:<14} {_stats(values):<22} {windows[case.id][key]}")
            expectation = case.scenario.expect[int(key.split("#")[1])]
            window = derive_window(case.scenario, expectation) if isinstance(expectation, WindowExpectation) else ""
            print(f"  {'':<14} derived {window.describe() if isinstance(window, DerivedWindow) else window}")
        if reconnects[case.id]:
            worst = max(reconnects[case.id])
            budgets = [
                reconnect_budget(case.scenario, e) for e in case.scenario.expect if isinstance(e, WindowExpectation)
            ]
            budget = max(budgets, default=RECONNECT_BUDGET_S)  # reconnects of all its windows: the widest budget
            count, ratio = len(reconnects[case.id]), worst / budget
            print(f"  reconnect: worst {worst:.2f}s of {count}, {ratio:.2f} of the budget R ({budget:g}s)")
        summary[case.id] = {
            "passed": passed[case.id],
            "rounds": args.rounds,
            "outcomes": outcomes[case.id],
            "figures": figures[case.id],
            "windows": windows[case.id],
            "reconnect_s": reconnects[case.id],
        }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(f"\nsummary: {args.out / 'summary.json'}")
    return 0 if all(passed[c.id] == args.rounds for c in cases) else 1


if __name__ == "__main__":
    raise SystemExit(main())
