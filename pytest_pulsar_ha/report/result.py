"""The result of one scenario run: its outcome, one verdict per expectation, problems, figures and evidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pytest_pulsar_ha.checks.deadlocks import Deadlock
from pytest_pulsar_ha.checks.figures import RunFigures
from pytest_pulsar_ha.checks.outcome import COMPLETED, Outcome
from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.checks.side_by_side import SideBySide
from pytest_pulsar_ha.report.sparkline import Activity


@dataclass
class ScenarioResult:
    case_id: str
    outcome: str
    """The decided outcome (:func:`pytest_pulsar_ha.checks.outcome.decide`): passed, failed, xfailed, xpassed,
    killed, survived, not applicable or not judged; ``not decided`` until it is."""
    seed: int
    checks: list[CheckResult] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    evidence: dict[str, Path] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)
    evidence_root: Path | None = None
    """The ``pulsar_ha_evidence_dir`` this result was written under (its index page goes there)."""
    figures: RunFigures | None = None
    """RTO, switch times, stranded messages and duplicates, read from the history (checks.figures)."""
    side_by_side: SideBySide | None = None
    """The run's row in its scenario family's side-by-side table (checks.side_by_side)."""
    deadlocks: list[Deadlock] = field(default_factory=list)
    """Clusters whose JVM deadlocked during the run (checks.deadlocks): a Pulsar defect, not the scenario's"""
    proposal: str = ""
    """The proposal the scenario exercises (report.proposals), for grouping on the index page"""
    marks: tuple[str, ...] = ()
    """The scenario's pytest marks (``marks:``), for the index page's grouping by marker"""
    activity: Activity | None = None
    """Acks and errors per second and the faults, read from the history, for the index page's sparkline"""
    ended: str = COMPLETED
    """How the run ended, as the conductor records it (checks.outcome.ENDINGS): data for the outcome, not one"""
    reason: str = ""
    """Why the outcome is what it is (set with it)"""
    test: str = ""
    """The pytest node id that ran it (a replay names it); empty outside pytest"""
    mutant: str | None = None
    """The mutant the run was made with, or None"""
    versions: list[str] = field(default_factory=list)
    """The Pulsar versions the brokers answered (none answered: empty)"""
    phases: dict[str, float] = field(default_factory=dict)
    """Wall seconds per phase of the run, in order (run.phases): where its time went"""

    def settle(self, outcome: Outcome) -> None:
        """Take the decided outcome and its reason."""
        self.outcome, self.reason = outcome.kind, outcome.reason

    @property
    def failed_checks(self) -> list[CheckResult]:
        return [c for c in self.checks if not c.ok]

    def describe(self) -> str:
        lines = [f"scenario {self.case_id}: {self.outcome.upper()} (seed {self.seed})"]
        if self.reason:
            lines.append(f"  why: {self.reason}")
        lines += [f"  - {p}" for p in self.problems]
        for check in self.checks:
            mark = "ok  " if check.ok else "FAIL"
            lines.append(f"  [{mark}] {check.name}: expected {check.expected}; measured {check.measured}")
            if check.details and not check.ok:
                lines += [f"         {line}" for line in check.details.splitlines()]
        if self.figures is not None:
            lines += [f"  figures: {line}" for line in self.figures.summary().splitlines()]
        for name, path in self.evidence.items():
            lines.append(f"  {name}: {path}")
        return "\n".join(lines)
