"""The nightly runner and the trend report on fabricated rounds (pytest faked: the verdicts, with their outcomes,
are written by the fake, so the runner's bookkeeping is what is tested; the real night is `make nightly`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_pulsar_ha.nightly.records import ROUND_TEST, CaseRecord, RoundRecord, collect_round, load_rounds
from pytest_pulsar_ha.nightly.rounds import NightPlan, run_night
from pytest_pulsar_ha.nightly.trend import build_trend, percentile, write_trend

SCENARIO = "scenarios/primary-outage.pulsar-ha.yaml::primary-outage"
FLAKY = "scenarios/tight.pulsar-ha.yaml::tight-window"

KNOWN = "scenarios/xf.pulsar-ha.yaml::known-bug"


def fake_pytest(failing_seeds: set[int], switch_s: float = 2.4):
    def run(command: Sequence[str], log: Path) -> int:
        seed = int(next(a for a in command if a.startswith("--pulsar-ha-seed=")).split("=")[1])
        round_dir = log.parent
        fails = seed in failing_seeds
        runs = (
            (SCENARIO, "passed", {"switch_s": switch_s, "switch_back_s": 4.4}),
            (FLAKY, "failed" if fails else "passed", {}),
            (KNOWN, "xfailed", {}),
        )
        for test, outcome, figures in runs:
            name = test.split("::")[1]
            evidence = round_dir / "evidence" / name
            evidence.mkdir(parents=True, exist_ok=True)
            verdict = {"id": name, "test": test, "outcome": outcome, "reason": "switch: 3.1s" if fails else "held"}
            verdict |= {"seed": seed, "figures": {"duplicates": 3, "faults": [figures]}}
            (evidence / "verdict.json").write_text(json.dumps(verdict))
            (evidence / "history.jsonl").write_text("{}\n")
        log.write_text("fake pytest\n")
        return 1 if fails else 0

    return run


def test_a_round_is_read_from_the_verdicts_outcomes(tmp_path: Path) -> None:
    fake_pytest({7})(["--pulsar-ha-seed=7"], tmp_path / "pytest.log")
    record = collect_round(tmp_path, "night-1", 1, 7, "t", 1.0, 1)
    assert sorted((t.test, t.outcome, t.message) for t in record.tests) == [
        (SCENARIO, "passed", "switch: 3.1s"),
        (FLAKY, "failed", "switch: 3.1s"),
        (KNOWN, "xfailed", "switch: 3.1s"),
    ]


def test_a_round_that_failed_outside_every_verdict_is_an_error(tmp_path: Path) -> None:
    fake_pytest(set())(["--pulsar-ha-seed=7"], tmp_path / "pytest.log")
    record = collect_round(tmp_path, "night-1", 1, 7, "t", 1.0, 1)  # exit 1, yet every verdict passed
    (error,) = [t for t in record.tests if t.test == ROUND_TEST]
    assert error.outcome == "error" and "pytest exited 1 and no verdict says why" in error.message
    clean = collect_round(tmp_path, "night-1", 1, 7, "t", 1.0, 0)
    assert ROUND_TEST not in {t.test for t in clean.tests}


def test_a_night_of_rounds_records_each_and_prunes_passed_evidence(tmp_path: Path) -> None:
    said: list[str] = []
    plan = NightPlan(tmp_path, ("scenarios/",), rounds=3, seed=100)
    seeds = [100, 100 + 7919, 100 + 2 * 7919]
    code, records = run_night(plan, say=said.append, run=fake_pytest({seeds[1]}))
    assert code == 1 and [r.seed for r in records] == seeds
    assert any(f"replay: pytest '{FLAKY}' --pulsar-ha-seed={seeds[1]}" in line for line in said)
    rounds = load_rounds(tmp_path)
    assert len(rounds) == 3
    failed_round = next(p for p in tmp_path.glob("night-*/round-002"))
    assert (failed_round / "evidence" / "tight-window" / "history.jsonl").exists()  # kept: it failed
    assert not (failed_round / "evidence" / "primary-outage" / "history.jsonl").exists()  # pruned: passed
    assert (failed_round / "evidence" / "primary-outage" / "verdict.json").exists()


def test_a_clean_night_exits_0_and_a_budget_stops_before_a_round_that_would_overrun(tmp_path: Path) -> None:
    now = [0.0]
    inner = fake_pytest(set())

    def slow_round(command: Sequence[str], log: Path) -> int:
        now[0] += 100.0  # each round takes 100 s of the fake clock
        return inner(command, log)

    plan = NightPlan(tmp_path, ("scenarios/",), budget_s=250, seed=1)
    code, records = run_night(plan, say=lambda _: None, run=slow_round, clock=lambda: now[0])
    assert code == 0 and len(records) == 2  # a third would end at 300 s


def test_a_night_without_rounds_or_budget_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="rounds or a time budget"):
        run_night(NightPlan(tmp_path, ("x",)), run=fake_pytest(set()))


def test_the_trend_names_the_flaky_test_with_a_replay_that_reproduces_its_seed(tmp_path: Path) -> None:
    plan = NightPlan(tmp_path, ("scenarios/",), rounds=4, seed=5)
    failing = {5 + 7919}
    run_night(plan, say=lambda _: None, run=fake_pytest(failing))
    trend = build_trend(load_rounds(tmp_path))
    (flaky,) = trend.flaky
    assert flaky["test"] == FLAKY and flaky["failed"] == 1 and flaky["passed"] == 3
    assert flaky["replay"] == [f"pytest '{FLAKY}' --pulsar-ha-seed={5 + 7919}"]
    outage = next(t for t in trend.tests if t.test == SCENARIO)
    assert outage.pass_rate == 1.0
    known = next(t for t in trend.tests if t.test.endswith("known-bug"))
    assert known.expected_failures == 4 and known.failed == 0


def record(night: str, switch_s: float, outcome: str = "passed") -> RoundRecord:
    test = CaseRecord(SCENARIO, outcome, 1, {"switch_s": switch_s})
    return RoundRecord(night, 1, 1, "", 1.0, 0, [test])


def test_a_slower_switch_in_the_latest_night_is_a_regression_and_noise_is_not() -> None:
    nights = [record("night-1", 2.4), record("night-2", 2.5), record("night-3", 3.4)]
    (regression,) = build_trend(nights).regressions
    assert "switch_s median 3.40 in night-3, 2.45 over the nights before" in regression
    assert build_trend([record("night-1", 2.4), record("night-2", 2.6)]).regressions == []


def test_a_lower_pass_rate_in_the_latest_night_is_a_regression() -> None:
    nights = [record("night-1", 2.4), record("night-2", 2.4, "failed")]
    assert any("pass rate 0% in night-2" in r for r in build_trend(nights).regressions)


def test_the_trend_page_has_its_tables_and_plots(tmp_path: Path) -> None:
    run_night(NightPlan(tmp_path, ("s/",), rounds=3, seed=9), say=lambda _: None, run=fake_pytest({9}))
    run_night(NightPlan(tmp_path, ("s/",), rounds=3, seed=9), say=lambda _: None, run=fake_pytest(set(), 3.5))
    page = write_trend(tmp_path)
    text = page.read_text()
    assert "Flaky (1)" in text and FLAKY in text and "Regressions (1)" in text
    assert "<tr class='run failed' data-outcome='failed'>" in text and "aria-label='pass rate " in text
    assert "document.getElementById('text').oninput=f" in text  # the index page's filter
    assert (tmp_path / "pass-rate.png").stat().st_size > 1000 and (tmp_path / "switch_s.png").exists()
    data = json.loads((tmp_path / "trend.json").read_text())
    assert len(data["nights"]) == 2 and data["rounds"] == 6


def test_percentiles() -> None:
    assert percentile([1, 2, 3, 4], 0.5) == 2.5
    assert percentile([5], 0.95) == 5
    with pytest.raises(ValueError):
        percentile([], 0.5)


def test_a_version_list_is_taken_in_turn_one_round_each(tmp_path: Path) -> None:
    commands: list[Sequence[str]] = []
    inner = fake_pytest(set())

    def recording(command: Sequence[str], log: Path) -> int:
        commands.append(command)
        return inner(command, log)

    plan = NightPlan(tmp_path, ("scenarios/",), rounds=3, seed=1, versions=("4.0.8", "4.2.4"))
    code, _ = run_night(plan, say=lambda _: None, run=recording)
    assert code == 0
    versions = [[a for a in c if a.startswith("--pulsar-ha-pulsar-version=")] for c in commands]
    assert versions == [["--pulsar-ha-pulsar-version=4.0.8"], ["--pulsar-ha-pulsar-version=4.2.4"],
                        ["--pulsar-ha-pulsar-version=4.0.8"]]  # fmt: skip
    assert sorted(p.name for p in tmp_path.glob("night-*/round-*")) == [
        "round-001-pulsar-4.0.8",
        "round-002-pulsar-4.2.4",
        "round-003-pulsar-4.0.8",
    ]
    assert len(load_rounds(tmp_path)) == 3
