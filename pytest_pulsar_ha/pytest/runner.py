"""The runner of collected scenario tests: runs the case on the session's environment, records the result for
the summary and index page, and turns a failed (or unexpectedly passing) scenario into a test failure with the
evidence and a replay command."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.checks.expected_failure import deadlock_differences, mismatches
from pytest_pulsar_ha.report.result import ScenarioResult
from pytest_pulsar_ha.run.conductor import execute
from pytest_pulsar_ha.scenario.loader import ScenarioCase

__all__ = ["ScenarioResult", "execute", "run_scenario"]


def _running_versions(item: Any) -> set[str]:
    """The Pulsar versions the brokers answer; the session's setting where none could answer (a cluster down)."""
    from pytest_pulsar_ha.pytest.keys import SETTINGS_KEY

    answered = {v for v in item.pulsar_ha.broker_versions().values() if not v.startswith("unknown")}
    return answered or {item.config.stash[SETTINGS_KEY].pulsar_version}


def run_scenario(item: Any, case: ScenarioCase, record: Callable[[ScenarioResult], None] | None = None) -> None:
    """The runner of collected scenario tests (see :mod:`pytest_pulsar_ha.pytest.collect`); each result is
    passed to ``record`` (the plugin's state keeps them for its summary and index page) before a failure is
    raised."""
    from pytest_pulsar_ha.scenario.errors import ExpectedScenarioFailure, ScenarioFailed

    config = item.config
    seed_option = config.getoption("pulsar_ha_seed", None)
    evidence_root: Path = item.getfixturevalue("pulsar_ha_evidence_dir")
    mutant: str | None = getattr(item, "mutant", None)
    named = item.name if mutant else case.id  # a mutated run's evidence beside the case's own
    safe_id = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in named)
    result = execute(
        case,
        item.pulsar_ha,
        evidence_dir=evidence_root / safe_id,
        spark=lambda: item.getfixturevalue("pulsar_ha_spark"),
        seed=int(seed_option) if seed_option is not None else None,
        **({} if mutant is None else {"mutant": mutant}),
    )
    result.evidence_root = evidence_root
    for name in ("run_page", "report", "verdict"):  # in the JUnit XML, where CI shows a test's properties
        if name in result.evidence:
            item.user_properties.append((f"pulsar_ha_{name}", str(result.evidence[name])))
    if mutant is not None:
        result.case_id = item.name  # <case>@<mutant> in the summary and on the index page
    if record is not None:
        record(result)
    replay = f"replay: pytest '{item.nodeid}' --pulsar-ha-seed={result.seed}"
    if mutant is not None:
        _judge_mutant(item, mutant, result, replay)
        return
    if result.deadlocks:
        _judge_deadlocked(item, case, result, replay)
    entries = case.scenario.failures_to_show
    versions = _running_versions(item) if entries else set()
    applicable = tuple(e for e in case.scenario.expected_failures_on(versions) if e in entries)
    if entries and not applicable and result.outcome != "passed":
        seen_on = ", ".join(sorted({version for entry in entries for version in entry.versions or ()}))
        raise ScenarioFailed(
            f"expect_failure applies to Pulsar {seen_on} only; this run is on {result.facts.get('pulsar')}, "
            f"where every expectation must hold:\n{result.describe()}\n  {replay}"
        )
    if applicable and result.outcome == "failed" and not result.problems:
        kinds = [e.kind for e in case.scenario.expect]
        differences: list[str] = []
        for entry in applicable:
            found = mismatches(entry.names, entry.measured, kinds, result.checks, entry.figure)
            if not found:
                result.outcome = "xfailed"
                raise ExpectedScenarioFailure(f"expected failure ({entry.reason}):\n{result.describe()}")
            lines = "\n".join(f"  - {line}" for line in found)
            heading = f"expect_failure names {', '.join(entry.names)}"
            if len(applicable) == 1:
                differences.append(f"not the announced failure ({heading}):\n{lines}")
            else:
                differences.append(f"expect_failure[{entries.index(entry)}] ({heading}):\n{lines}")
        if len(differences) > 1:
            differences.insert(0, "not one of the announced failures:")
        raise ScenarioFailed("\n".join(differences) + f"\n{result.describe()}\n  {replay}")
    if result.outcome != "passed":
        raise ScenarioFailed(f"{result.describe()}\n  {replay}")


def _judge_mutant(item: Any, mutant: str, result: ScenarioResult, replay: str) -> None:
    """A mutated run: killed (returns, noting the expectations that failed with their figures) when an
    expectation failed; survived (raises) when every one held; neither (raises) when the run had problems or a
    deadlock, which could fail it whatever the mutant did."""
    from pytest_pulsar_ha.mutants.catalogue import MUTANTS, NEVER_ACTED_FACT
    from pytest_pulsar_ha.pytest.mutation import KILLED_BY_PROPERTY
    from pytest_pulsar_ha.scenario.errors import ScenarioFailed

    if result.problems or result.deadlocks or result.outcome not in ("passed", "failed"):
        raise ScenarioFailed(
            f"mutant {mutant}: the run had problems, so a failed expectation would not prove a kill; not judged:\n"
            f"{result.describe()}\n  {replay}"
        )
    failed = [c for c in result.checks if not c.ok]
    never_acted = result.facts.get(NEVER_ACTED_FACT)
    if never_acted is not None:
        if failed:
            raise ScenarioFailed(
                f"mutant {mutant} never acted ({never_acted}), so this run was the shipped code's, and it failed:\n"
                f"{result.describe()}\n  {replay}"
            )
        import pytest

        result.outcome = "n/a"  # neither killed nor survived: the summary and the index page say so
        pytest.skip(f"mutant {mutant} never acted: {never_acted}; the run was the shipped code's, nothing to kill")
    if failed:
        killed_by = "; ".join(f"{c.name}: measured {c.measured}, expected {c.expected}" for c in failed)
        item.user_properties.append((KILLED_BY_PROPERTY, killed_by))
        result.outcome = "killed"
        return
    from pytest_pulsar_ha.mutants.survivors import explain_survivor
    from pytest_pulsar_ha.pytest.mutation import SURVIVED_PROPERTY

    result.outcome = "survived"
    lines = explain_survivor(item.case.scenario, mutant, result.checks)
    item.user_properties.append((SURVIVED_PROPERTY, "; ".join(lines)))
    why = "\n".join(f"  - {line}" for line in lines)
    raise ScenarioFailed(
        f"mutant {mutant} ({MUTANTS[mutant]}) survived: every expectation held; what should have caught it:\n"
        f"{why}\n{result.describe()}\n  {replay}"
    )


def _judge_deadlocked(item: Any, case: ScenarioCase, result: ScenarioResult, replay: str) -> None:
    """A run in which Pulsar deadlocked: XFAIL only where the scenario declares that known deadlock for this
    Pulsar version and nothing failed that the deadlock does not explain; else a failure that names the deadlock
    as a finding. A deadlock found before the faults started is an error of the environment. Always raises."""
    import pytest

    from pytest_pulsar_ha.scenario.errors import ScenarioFailed

    dumps = {name.removesuffix(" deadlock"): p for name, p in result.evidence.items() if name.endswith(" deadlock")}
    pulsar = result.facts.get("pulsar", "version unknown")
    found = "\n".join(
        f"  - {d.describe()}; the JVM's dump: {dumps.get(d.cluster, 'not kept')}; Pulsar {pulsar}"
        for d in result.deadlocks
    )
    if any(d.before_faults for d in result.deadlocks):
        raise ScenarioFailed(
            "Pulsar was deadlocked before the faults started: an error of the environment, not an expected failure"
            f" of the scenario:\n{found}\n{result.describe()}\n  {replay}"
        )
    declared = [e for e in case.scenario.expected_failures_on(_running_versions(item)) if e.deadlock is not None]
    kinds = [e.kind for e in case.scenario.expect]
    differences: list[str] = []
    for entry in declared:
        unexplained = deadlock_differences(entry, result.deadlocks, result.problems, result.checks, kinds)
        if not unexplained:
            result.outcome = "xfailed"
            pytest.xfail(f"{entry.reason} ({entry.issue or 'no upstream issue'}):\n{found}\n{result.describe()}")
        differences.append(
            f"expect_failure names the deadlock {entry.deadlock}, but:\n" + "\n".join(f"  - {u}" for u in unexplained)
        )
    if not declared:
        differences.append(
            "no expected failure of this scenario declares a deadlock on this Pulsar version: a finding, report it "
            "upstream with the dump (or, for a known one, declare it with expect_failure.deadlock and its versions)"
        )
    raise ScenarioFailed(
        f"Pulsar deadlocked during the run:\n{found}\n" + "\n".join(differences) + f"\n{result.describe()}\n  {replay}"
    )
