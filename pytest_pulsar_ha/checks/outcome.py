"""The outcome of a scenario run, decided once, from data: the verdicts (their figures and whether they rest on
evidence), the problems and deadlocks the run recorded, the scenario's announced failures, the versions the
brokers answered and, for a mutated run, the mutant and the outcome of the unmutated case in the same session.

:func:`decide` is the only place an outcome is decided. The conductor records what happened
(:attr:`~pytest_pulsar_ha.report.result.ScenarioResult.ended`); the pytest layer maps the outcome to pytest's
(pass, fail, xfail, XPASS, skip) and decides nothing; ``verdict.json`` stores it with its reason, and every reader
(``pulsar-ha mutate``, ``nightly``, ``findings``) reads it there.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from pytest_pulsar_ha.checks.expected_failure import deadlock_differences, mismatches
from pytest_pulsar_ha.checks.result import CheckResult, Side, missed_sides

if TYPE_CHECKING:
    from pytest_pulsar_ha.checks.deadlocks import Deadlock
    from pytest_pulsar_ha.scenario.model import Scenario

Kind = Literal["passed", "failed", "xfailed", "xpassed", "killed", "survived", "not applicable", "not judged"]
KINDS: tuple[Kind, ...] = (
    "passed",
    "failed",
    "xfailed",
    "xpassed",
    "killed",
    "survived",
    "not applicable",
    "not judged",
)

COMPLETED = "completed"
REFUSED = "refused"
DEVIATED_BEFORE = "deviated before the faults"
INTERRUPTED = "interrupted"
ENDINGS = (COMPLETED, REFUSED, DEVIATED_BEFORE, INTERRUPTED)
"""How a run ended, as the conductor records it: it ran its faults and checks (completed, whatever they said);
the environment could not run it (refused); the environment was not steady before the faults; ^C."""


NEVER_ACTED_FACT = "mutant_never_acted"
"""A run's fact saying why its mutant never acted (the run was the shipped code's): set by the run's mutation
part, read where the run is judged."""

ACTS_FACT = "mutant_acts"
"""A run's fact: how many times a client mutant acted (each wrapped consumer or producer acts once), set by the
run's mutation part; what its figure may grow by."""


@dataclass(frozen=True)
class Mutant:
    """What :func:`decide` needs to know of a mutant (the catalogue, :mod:`pytest_pulsar_ha.mutants.catalogue`,
    builds it): its name, the expectation kinds able to see it, and what to say when it survives."""

    name: str
    seen_by: tuple[str, ...]
    explain: Callable[[Scenario, Sequence[CheckResult]], list[str]] | None = None
    """the lines that say why it survived (which expectations should have caught it, with their figures)"""
    side: Side | None = None
    """The side of a window it moves a switch to (``late``, ``early``), where it is a timing mutant: a window
    missed on the other side only (a switch that came early, when the mutant makes switches late) is not its
    doing, so it kills nothing."""
    figure: str | None = None
    """The figure each of its acts adds one to at most (a client mutant's: ``lost``, ``duplicates``,
    ``reorders``): a failure that would remain without its acts (more lost than it dropped) is not its doing."""

    def sees(self, check: CheckResult, acts: int | None = None) -> bool:
        """Whether ``check``'s failure can be this mutant's doing: an expectation kind able to see it, failed on
        evidence; for a timing mutant, its window missed on the mutant's side; for a client mutant that acted
        ``acts`` times, a figure that would have held without those acts."""
        if check.ok or not check.evidence or check.name not in self.seen_by:
            return False
        if self.side is not None and self.side not in missed_sides(check):
            return False
        if self.figure is None:
            return True
        value = check.figures.get(self.figure)
        return acts is not None and value is not None and check.window is not None and value - acts <= check.window[1]


@dataclass(frozen=True)
class Outcome:
    kind: Kind
    reason: str
    """why, in words: what failed, which expected failure showed, which expectation killed the mutant"""

    @property
    def judged(self) -> bool:
        """Whether the run said something about the scenario (or the mutant): not "not judged"."""
        return self.kind != "not judged"


class Run(Protocol):
    """What :func:`decide` reads of a run (a :class:`~pytest_pulsar_ha.report.result.ScenarioResult`)."""

    @property
    def ended(self) -> str: ...
    @property
    def checks(self) -> Sequence[CheckResult]: ...
    @property
    def problems(self) -> Sequence[str]: ...
    @property
    def deadlocks(self) -> Sequence[Deadlock]: ...
    @property
    def facts(self) -> Mapping[str, str]: ...


def not_applicable(reason: str) -> Outcome:
    """A mutated case whose mutant cannot apply to the scenario (said before it runs)."""
    return Outcome("not applicable", reason)


def crashed(error: str) -> Outcome:
    """A run that raised before an outcome was decided: never a kill, a pass or a survivor."""
    return Outcome("not judged", f"the run crashed before its verdicts: {error}")


def _failed_lines(checks: Sequence[CheckResult]) -> str:
    return "; ".join(f"{c.name}: measured {c.measured}, expected {c.expected}" for c in checks if not c.ok)


def _plain(run: Run) -> Outcome:
    """Every expectation must hold and nothing may go wrong."""
    failed = [c for c in run.checks if not c.ok]
    if run.problems or failed:
        what = [*run.problems, *([_failed_lines(failed)] if failed else [])]
        return Outcome("failed", "; ".join(what))
    return Outcome("passed", f"{len(run.checks)} expectation(s) held")


def _deadlocked(run: Run, scenario: Scenario, versions: Collection[str]) -> Outcome:
    """Pulsar deadlocked after the faults started: xfailed only where an entry declares that deadlock for these
    versions and the deadlock explains the whole failure."""
    found = "; ".join(d.describe() for d in run.deadlocks)
    declared = [e for e in scenario.expected_failures_on(set(versions)) if e.deadlock is not None]
    kinds = [e.kind for e in scenario.expect]
    differences: list[str] = []
    for entry in declared:
        unexplained = deadlock_differences(entry, run.deadlocks, run.problems, run.checks, kinds)
        if not unexplained:
            return Outcome("xfailed", f"{entry.reason} ({entry.issue or 'no upstream issue'}): {found}")
        differences.append(f"expect_failure names the deadlock {entry.deadlock}, but: " + "; ".join(unexplained))
    if not declared:
        differences.append(
            "no expected failure of this scenario declares a deadlock on this Pulsar version: a finding, report it "
            "upstream with the dump (or, for a known one, declare it with expect_failure.deadlock and its versions)"
        )
    return Outcome("failed", f"Pulsar deadlocked during the run: {found}; " + "; ".join(differences))


def _expected(run: Run, scenario: Scenario, versions: Collection[str]) -> Outcome:
    """A scenario that announces failures (``expect_failure``, no deadlock): on a version where none applies,
    every expectation must hold; where some apply, exactly one of them must show, on evidence; a pass is a
    failure unless an applicable entry is intermittent (then xpassed)."""
    entries = scenario.failures_to_show
    applicable = [e for e in scenario.expected_failures_on(set(versions)) if e in entries]
    plain = _plain(run)
    if not applicable:
        if plain.kind == "passed":
            return plain
        seen_on = ", ".join(sorted({v for e in entries for v in e.versions or ()})) or "no version"
        answered = ", ".join(sorted(versions)) or "an unknown version"
        return Outcome(
            "failed",
            f"expect_failure applies to Pulsar {seen_on} only; this run is on {answered}, where every expectation "
            f"must hold: {plain.reason}",
        )
    if plain.kind == "passed":
        if any(e.intermittent for e in applicable):
            return Outcome("xpassed", "the intermittent expected failure did not show: every expectation held")
        shown = "; ".join(f"{', '.join(e.names)} ({e.reason})" for e in applicable)
        return Outcome("failed", f"the expected failure did not show, every expectation held: {shown}")
    if run.problems:
        return Outcome("failed", "the run had problems, so it shows no expected failure: " + "; ".join(run.problems))
    kinds = [e.kind for e in scenario.expect]
    differences: list[str] = []
    for entry in applicable:
        found = mismatches(entry.names, entry.measured, kinds, run.checks, entry.figure)
        if not found:
            return Outcome("xfailed", f"{entry.reason}: {_failed_lines(run.checks)}")
        heading = f"expect_failure[{entries.index(entry)}] names {', '.join(entry.names)}"
        differences.append(f"{heading}: " + "; ".join(found))
    return Outcome("failed", "not the announced failure: " + " | ".join(differences))


def _mutated(run: Run, scenario: Scenario, mutant: Mutant, baseline: Outcome | None) -> Outcome:
    """A mutated run: killed only when an expectation able to see this mutant failed on evidence, in a clean run,
    and the unmutated case passed in the same session; survived when every expectation held (and the mutant
    acted); not applicable when the mutant never acted and every expectation held; else not judged."""
    if run.ended != COMPLETED or run.problems or run.deadlocks:
        what = "; ".join([*run.problems, *(d.describe() for d in run.deadlocks)]) or f"the run {run.ended}"
        return Outcome("not judged", f"the run had problems, so a failed expectation would not prove a kill: {what}")
    if baseline is None:
        return Outcome(
            "not judged", "the unmutated case did not run in this session: no run to tell the mutant's effect from"
        )
    if baseline.kind != "passed":
        return Outcome(
            "not judged",
            f"the unmutated case {baseline.kind} in this session ({baseline.reason}): a failure of the mutated run "
            "would not prove a kill",
        )
    failed = [c for c in run.checks if not c.ok]
    never_acted = run.facts.get(NEVER_ACTED_FACT)
    if never_acted is not None:
        if failed:
            return Outcome(
                "not judged",
                f"the mutant never acted ({never_acted}), so this run was the shipped code's, and it failed: "
                + _failed_lines(failed),
            )
        return Outcome("not applicable", f"the mutant never acted: {never_acted}; the run was the shipped code's")
    seeing = mutant.seen_by
    acts = _count(run.facts.get(ACTS_FACT))
    killers = [c for c in failed if mutant.sees(c, acts)]
    if killers:
        return Outcome("killed", _failed_lines(killers))
    if failed:
        side = f", its window missed {mutant.side}" if mutant.side else ""
        grew = ""
        if mutant.figure is not None:
            counted = f"no more than its {acts} act(s)" if acts is not None else "its acts, which the run did not count"
            grew = f", {mutant.figure} grown by {counted}"
        return Outcome(
            "not judged",
            f"only expectations that cannot see this mutant (it is seen by {', '.join(seeing)}{side}{grew}) "
            "failed, or failed on no evidence: " + _failed_lines(failed),
        )
    if mutant.explain is not None:
        return Outcome("survived", "; ".join(mutant.explain(scenario, run.checks)))
    return Outcome("survived", f"every expectation held, {', '.join(seeing)} included")


def _count(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def decide(
    run: Run,
    scenario: Scenario,
    versions: Collection[str] = (),
    *,
    mutant: Mutant | None = None,
    baseline: Outcome | None = None,
) -> Outcome:
    """The outcome of ``run`` of ``scenario`` on brokers that answered ``versions`` (empty: not known), with
    ``mutant`` applied (``baseline``: the outcome of the unmutated case in this session, None when it did not
    run). Pure: the same data give the same outcome."""
    if run.ended == INTERRUPTED:
        return Outcome("not judged", "the run was interrupted")
    if mutant is not None:
        return _mutated(run, scenario, mutant, baseline)
    if run.ended == REFUSED:
        return Outcome("failed", "the environment cannot run the scenario: " + "; ".join(run.problems))
    if any(d.before_faults for d in run.deadlocks):
        found = "; ".join(d.describe() for d in run.deadlocks)
        return Outcome(
            "failed",
            "Pulsar was deadlocked before the faults started: an error of the environment, not an expected failure "
            f"of the scenario: {found}",
        )
    if run.ended == DEVIATED_BEFORE:
        return Outcome(
            "failed", "the environment was not in its steady state before the faults: " + "; ".join(run.problems)
        )
    if run.deadlocks:
        return _deadlocked(run, scenario, versions)
    if scenario.failures_to_show:
        return _expected(run, scenario, versions)
    return _plain(run)
