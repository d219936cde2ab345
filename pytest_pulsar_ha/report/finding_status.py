"""The evidence bar: when a finding *reproduces* on a version, and when it is only a *lead*.

A finding is claimed on a version when a stored run there shows it. It reproduces there when at least
:data:`MIN_RUNS` runs of it are stored on that version and its counter-check (a case that must pass beside it:
the reference synchronizer against Pulsar's, the Python client against the Java client) has stored runs on that
version that all passed. Below that bar it is a lead. Intended behaviour is never called a defect: it is *shown*.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_pulsar_ha.report.dossier_model import Kind
from pytest_pulsar_ha.report.finding_dossiers import dossier
from pytest_pulsar_ha.report.findings import CaseRun, Finding, Observation

MIN_RUNS = 5


def plural(count: int, noun: str = "run") -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


@dataclass(frozen=True)
class CounterCheck:
    case: str
    outcomes: tuple[str, ...]
    """how the case's stored runs on the version ended"""

    @property
    def holds(self) -> bool:
        return bool(self.outcomes) and all(o == "passed" for o in self.outcomes)

    def describe(self) -> str:
        if not self.outcomes:
            return f"`{self.case}`: no run stored"
        counts = {o: self.outcomes.count(o) for o in sorted(set(self.outcomes))}
        return f"`{self.case}`: " + ", ".join(f"{n} {o}" for o, n in counts.items())


@dataclass(frozen=True)
class Standing:
    """A finding on one version, from the stored runs."""

    kind: Kind
    version: str
    applicable: bool
    """a scenario shows it (else nothing can be stored of it)"""
    runs: int
    shown: int
    counter: CounterCheck | None

    @property
    def claimed(self) -> bool:
        return self.shown > 0

    @property
    def gaps(self) -> list[str]:
        """what keeps it below the bar (empty when it meets it)"""
        gaps = []
        if self.runs < MIN_RUNS:
            gaps.append(f"needs {MIN_RUNS} runs")
        if self.counter is not None and not self.counter.holds:
            gaps.append("no counter-check run" if not self.counter.outcomes else "counter-check failed")
        return gaps

    @property
    def reproduces(self) -> bool:
        return self.claimed and not self.gaps and self.kind != "intended behaviour"

    def cell(self) -> str:
        if not self.applicable:
            return "not applicable (no scenario)"
        if not self.runs:
            return "no run stored"
        if not self.shown:
            return f"not seen in {plural(self.runs)}"
        count = f"{self.shown} of {plural(self.runs)}"
        if self.kind == "intended behaviour":
            return f"shown ({count})"
        if self.reproduces:
            return f"reproduces ({count})"
        return f"lead ({count}; " + ", ".join(self.gaps) + ")"


def standing(finding: Finding, version: str, observations: Sequence[Observation], runs: Sequence[CaseRun]) -> Standing:
    seen = [o for o in observations if o.finding == finding.key and o.version == version]
    info = dossier(finding.key)
    counter = None
    if info.counter_check:
        outcomes = tuple(r.outcome for r in runs if r.case == info.counter_check and r.version == version)
        counter = CounterCheck(info.counter_check, outcomes)
    return Standing(info.kind, version, bool(finding.cases), len(seen), sum(o.shown for o in seen), counter)


def verdict(standings: Sequence[Standing]) -> str:
    """One word for a finding over every version: reproduces, lead, shown (intended behaviour), not seen, or no
    run (nothing stored, or no scenario)."""
    claimed = [s for s in standings if s.claimed]
    if any(s.reproduces for s in claimed):
        return "reproduces"
    if claimed:
        return "shown" if claimed[0].kind == "intended behaviour" else "lead"
    return "not seen" if any(s.runs for s in standings) else "no run"
