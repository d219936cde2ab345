"""The outcome of a run, decided once from data (:func:`decide`), on a table of runs: every branch, each with the
reason it gives. No pytest session, no cluster: a run is its verdicts, problems, deadlocks and how it ended."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_pulsar_ha.checks.deadlocks import Deadlock
from pytest_pulsar_ha.checks.outcome import (
    ACTS_FACT,
    COMPLETED,
    DEVIATED_BEFORE,
    INTERRUPTED,
    KINDS,
    NEVER_ACTED_FACT,
    REFUSED,
    Mutant,
    Outcome,
    crashed,
    decide,
    not_applicable,
)
from pytest_pulsar_ha.checks.result import CheckResult, no_evidence
from pytest_pulsar_ha.mutants.survivors import judged_as
from pytest_pulsar_ha.scenario.known_deadlocks import KNOWN_DEADLOCKS
from pytest_pulsar_ha.scenario.loader import load_scenarios
from pytest_pulsar_ha.scenario.model import Scenario


@dataclass
class Run:
    checks: list[CheckResult]
    problems: list[str] = field(default_factory=list)
    deadlocks: list[Deadlock] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)
    ended: str = COMPLETED


HEAD = """
scenarios:
  - name: s
    topology: {clusters: [cluster-a, cluster-b]}
    provider: {kind: auto, primary: cluster-a, secondaries: [cluster-b], check_interval: 500ms,
               failover_delay: 2s, switch_back_delay: 4s}
    workload: {topics: [{name: t}], rate: 10/s, duration: 20s}
    faults:
      - {kind: outage, cluster: cluster-a, at: 5s, for: 8s}
    expect:
      - switch: {to: cluster-b, within: [2200ms, 2700ms], of: fault_start}
      - no_loss: true
"""

SEEN_ON_408 = """
    expect_failure:
      expectation: no_loss
      figure: {lost: [40, 120]}
      reason: a defect of one release
      versions: [4.0.8]
"""

INTERMITTENT = """
    expect_failure:
      expectation: no_loss
      figure: {lost: [40, 120]}
      reason: a race
      intermittent: true
"""

DEADLOCK = f"""
    expect_failure:
      expectation: no_loss
      deadlock: {KNOWN_DEADLOCKS[0].name}
      reason: it deadlocks
      versions: [4.0.8]
"""


def scenario(tmp_path: Path, tail: str = "") -> Scenario:
    path = tmp_path / "s.pulsar-ha.yaml"
    path.write_text(HEAD + tail)
    return load_scenarios(path)[0].scenario


def switch(ok: bool = True, seconds: float | None = None) -> CheckResult:
    """A switch window's verdict, [2.2 s, 2.7 s]: held at 2.35 s, failed late at 3.25 s, or at ``seconds``."""
    took = seconds if seconds is not None else 2.35 if ok else 3.25
    figures = {"seconds": took, "fastest_s": took, "target_acks": 40, "producers": 1, "producers_reached": 1}
    return CheckResult("switch", ok, "within [2.2s, 2.7s]", f"{took:.2f}s", figures=figures, window=(2.2, 2.7))


def no_loss(lost: int = 0) -> CheckResult:
    return CheckResult(
        "no_loss", not lost, "every send received", f"lost={lost}", figures={"lost": lost}, window=(0, 0)
    )


UNUSABLE = no_evidence("no_loss", "every send received", "the history is not usable: no file")
DEADLOCKED = Deadlock("cluster-a", ("t(tid=1)",), "block", KNOWN_DEADLOCKS[0])
BEFORE = Deadlock("cluster-a", ("t(tid=1)",), "block", KNOWN_DEADLOCKS[0], before_faults=True)
PASSED = Outcome("passed", "2 expectation(s) held")
LATE = judged_as("late")
EARLY = judged_as("early")
DROP = judged_as("drop_one")

# (id, scenario tail, run, versions, mutant, baseline, expected kind, a part of the reason)
TABLE: list[tuple[str, str, Run, set[str], Mutant | None, Outcome | None, str, str]] = [
    ("every expectation held", "", Run([switch(), no_loss()]), set(), None, None, "passed", "2 expectation(s) held"),
    (
        "an expectation failed",
        "",
        Run([switch(False), no_loss()]),
        set(),
        None,
        None,
        "failed",
        "switch: measured 3.25s",
    ),
    (
        "a problem fails a run whose checks held",
        "",
        Run([switch(), no_loss()], ["client stuck"]),
        set(),
        None,
        None,
        "failed",
        "client stuck",
    ),
    (
        "refused by the environment",
        "",
        Run([], ["needs cluster-c"], ended=REFUSED),
        set(),
        None,
        None,
        "failed",
        "cannot run the scenario: needs cluster-c",
    ),
    (
        "not steady before the faults",
        "",
        Run([], ["cluster-a down"], ended=DEVIATED_BEFORE),
        set(),
        None,
        None,
        "failed",
        "not in its steady state before the faults",
    ),
    ("interrupted", "", Run([], ended=INTERRUPTED), set(), None, None, "not judged", "interrupted"),
    (
        "the announced failure on its version",
        SEEN_ON_408,
        Run([switch(), no_loss(75)]),
        {"4.0.8"},
        None,
        None,
        "xfailed",
        "a defect of one release",
    ),
    (
        "the announced failure with another figure",
        SEEN_ON_408,
        Run([switch(), no_loss(3)]),
        {"4.0.8"},
        None,
        None,
        "failed",
        "lost=3, outside the expected range [40, 120]",
    ),
    (
        "another expectation failing too",
        SEEN_ON_408,
        Run([switch(False), no_loss(75)]),
        {"4.0.8"},
        None,
        None,
        "failed",
        "switch (expect item 0) failed, and only no_loss may fail",
    ),
    (
        "no evidence never shows an expected failure",
        SEEN_ON_408,
        Run([switch(), UNUSABLE]),
        {"4.0.8"},
        None,
        None,
        "failed",
        "no_loss failed on no evidence",
    ),
    (
        "problems never show an expected failure",
        SEEN_ON_408,
        Run([switch(), no_loss(75)], ["stuck"]),
        {"4.0.8"},
        None,
        None,
        "failed",
        "the run had problems",
    ),
    (
        "a pass where the failure applies (XPASS strict, any backend)",
        SEEN_ON_408,
        Run([switch(), no_loss()]),
        {"4.0.8"},
        None,
        None,
        "failed",
        "the expected failure did not show",
    ),
    (
        "a pass of an intermittent entry",
        INTERMITTENT,
        Run([switch(), no_loss()]),
        set(),
        None,
        None,
        "xpassed",
        "did not show",
    ),
    (
        "the intermittent failure showing",
        INTERMITTENT,
        Run([switch(), no_loss(60)]),
        set(),
        None,
        None,
        "xfailed",
        "a race",
    ),
    (
        "a pass on a version the failure does not apply to",
        SEEN_ON_408,
        Run([switch(), no_loss()]),
        {"4.2.4"},
        None,
        None,
        "passed",
        "held",
    ),
    (
        "the failure on a version it does not apply to",
        SEEN_ON_408,
        Run([switch(), no_loss(75)]),
        {"4.2.4"},
        None,
        None,
        "failed",
        "applies to Pulsar 4.0.8 only; this run is on 4.2.4",
    ),
    (
        "the declared deadlock explaining the failure",
        DEADLOCK,
        Run([switch(), no_loss(9)], deadlocks=[DEADLOCKED]),
        {"4.0.8"},
        None,
        None,
        "xfailed",
        "it deadlocks",
    ),
    (
        "the declared deadlock not explaining the failure",
        DEADLOCK,
        Run([switch(False), no_loss(9)], deadlocks=[DEADLOCKED]),
        {"4.0.8"},
        None,
        None,
        "failed",
        "which the deadlock does not explain",
    ),
    (
        "an undeclared deadlock",
        "",
        Run([switch(), no_loss()], deadlocks=[DEADLOCKED]),
        set(),
        None,
        None,
        "failed",
        "no expected failure of this scenario declares a deadlock",
    ),
    (
        "a deadlock before the faults",
        DEADLOCK,
        Run([], deadlocks=[BEFORE], ended=DEVIATED_BEFORE),
        {"4.0.8"},
        None,
        None,
        "failed",
        "an error of the environment",
    ),
    (
        "a mutant seen by its expectation",
        "",
        Run([switch(False), no_loss()]),
        set(),
        LATE,
        PASSED,
        "killed",
        "switch: measured 3.25s",
    ),
    (
        "a mutant every expectation let through",
        "",
        Run([switch(), no_loss()]),
        set(),
        LATE,
        PASSED,
        "survived",
        "switch: held, measured 2.35s",
    ),
    (
        "a window missed on the mutant's side",
        "",
        Run([switch(False, seconds=1.9), no_loss()]),
        set(),
        EARLY,
        PASSED,
        "killed",
        "switch: measured 1.90s",
    ),
    (
        "a loss of the client mutant's own acts",
        "",
        Run([switch(), no_loss(1)], facts={ACTS_FACT: "1"}),
        set(),
        DROP,
        PASSED,
        "killed",
        "no_loss: measured lost=1",
    ),
    (
        "a flaky loss beyond the client mutant's acts kills it not",
        "",
        Run([switch(), no_loss(3)], facts={ACTS_FACT: "1"}),
        set(),
        DROP,
        PASSED,
        "not judged",
        "lost grown by no more than its 1 act(s)) failed",
    ),
    (
        "a client mutant whose acts were not counted",
        "",
        Run([switch(), no_loss(1)]),
        set(),
        DROP,
        PASSED,
        "not judged",
        "lost grown by its acts, which the run did not count",
    ),
    (
        "a flaky early switch kills no late mutant",
        "",
        Run([switch(False, seconds=1.9), no_loss()]),
        set(),
        LATE,
        PASSED,
        "not judged",
        "its window missed late) failed",
    ),
    (
        "a seeded flaky case kills no mutant",
        "",
        Run([switch(False), no_loss()]),
        set(),
        LATE,
        Outcome("failed", "switch: measured 3.30s"),
        "not judged",
        "the unmutated case failed in this session",
    ),
    (
        "no baseline in the session",
        "",
        Run([switch(False), no_loss()]),
        set(),
        LATE,
        None,
        "not judged",
        "the unmutated case did not run in this session",
    ),
    (
        "only an expectation blind to the mutant failed",
        "",
        Run([switch(False), no_loss()]),
        set(),
        DROP,
        PASSED,
        "not judged",
        "only expectations that cannot see this mutant",
    ),
    (
        "the mutant's expectation failing on no evidence",
        "",
        Run([switch(), UNUSABLE]),
        set(),
        DROP,
        PASSED,
        "not judged",
        "no_loss: measured the history is not usable",
    ),
    (
        "a mutated run with problems",
        "",
        Run([switch(False), no_loss()], ["stuck"]),
        set(),
        LATE,
        PASSED,
        "not judged",
        "the run had problems",
    ),
    (
        "a mutated run that deadlocked",
        "",
        Run([switch(False), no_loss()], deadlocks=[DEADLOCKED]),
        set(),
        LATE,
        PASSED,
        "not judged",
        "Pulsar deadlocked",
    ),
    (
        "a mutant that never acted and a pass",
        "",
        Run([switch(), no_loss()], facts={NEVER_ACTED_FACT: "no switch"}),
        set(),
        LATE,
        PASSED,
        "not applicable",
        "never acted: no switch",
    ),
    (
        "a mutant that never acted and a failure",
        "",
        Run([switch(False), no_loss()], facts={NEVER_ACTED_FACT: "no switch"}),
        set(),
        LATE,
        PASSED,
        "not judged",
        "never acted (no switch), so this run was the shipped code's, and it failed",
    ),
    ("an interrupted mutated run", "", Run([], ended=INTERRUPTED), set(), LATE, PASSED, "not judged", "interrupted"),
]


@pytest.mark.parametrize(
    ("tail", "run", "versions", "mutant", "baseline", "kind", "why"),
    [row[1:] for row in TABLE],
    ids=[r[0] for r in TABLE],
)
def test_the_outcome_of_each_run(
    tmp_path: Path,
    tail: str,
    run: Run,
    versions: set[str],
    mutant: Mutant | None,
    baseline: Outcome | None,
    kind: str,
    why: str,
) -> None:
    outcome = decide(run, scenario(tmp_path, tail), versions, mutant=mutant, baseline=baseline)
    assert (outcome.kind, why in outcome.reason) == (kind, True), outcome.reason


def test_the_table_reaches_every_outcome() -> None:
    assert {row[6] for row in TABLE} == set(KINDS)


def test_the_same_data_give_the_same_outcome(tmp_path: Path) -> None:
    run, shape = Run([switch(False), no_loss()]), scenario(tmp_path)
    assert decide(run, shape, mutant=LATE, baseline=PASSED) == decide(run, shape, mutant=LATE, baseline=PASSED)


def test_what_never_reached_the_runner_is_never_a_pass_or_a_survivor() -> None:
    assert crashed("boom").kind == "not judged" and "boom" in crashed("boom").reason
    assert not_applicable("native provider") == Outcome("not applicable", "native provider")
    assert not crashed("boom").judged and not_applicable("x").judged
