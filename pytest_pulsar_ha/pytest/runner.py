"""The runner of collected scenario tests: runs the case on the session's environment, records the result for
the summary and index page, and turns a failed (or unexpectedly passing) scenario into a test failure with the
evidence and a replay command."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.checks.expected_failure import mismatches
from pytest_pulsar_ha.report.result import ScenarioResult
from pytest_pulsar_ha.run.conductor import execute
from pytest_pulsar_ha.spec.loader import ScenarioCase

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
    from pytest_pulsar_ha.spec.errors import ExpectedScenarioFailure, ScenarioFailed

    config = item.config
    seed_option = config.getoption("pulsar_ha_seed", None)
    evidence_root: Path = item.getfixturevalue("pulsar_ha_evidence_dir")
    safe_id = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in case.id)
    result = execute(
        case,
        item.pulsar_ha,
        evidence_dir=evidence_root / safe_id,
        spark=lambda: item.getfixturevalue("pulsar_ha_spark"),
        seed=int(seed_option) if seed_option is not None else None,
    )
    result.evidence_root = evidence_root
    if record is not None:
        record(result)
    replay = f"replay: pytest '{item.nodeid}' --pulsar-ha-seed={result.seed}"
    defect = result.known_pulsar_defect
    if defect is not None and result.outcome in ("failed", "deviated"):
        # a known Pulsar deadlock stopped the run: shown as an expected failure with its evidence, never a pass
        import pytest

        result.outcome = "xfailed"
        dumps = ", ".join(str(p) for name, p in result.evidence.items() if name.endswith(" deadlock"))
        pytest.xfail(f"{defect}; the JVM's dump: {dumps}\n{result.describe()}\n  {replay}")
    entries = case.scenario.expected_failures
    applicable = case.scenario.expected_failures_on(_running_versions(item)) if entries else ()
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
            found = mismatches(entry.names, entry.measured, kinds, result.checks)
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
