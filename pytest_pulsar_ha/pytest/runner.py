"""The runner of collected scenario tests: runs the case on the session's environment, has the outcome decided
(:func:`pytest_pulsar_ha.checks.outcome.decide`, the only place one is), records the result for the summary and
index page, and maps the outcome to pytest's: passed and killed pass, xfailed is XFAIL, xpassed is XPASS (not
strict), not applicable is a skip, and failed, survived and not judged fail with the evidence and a replay
command. Like Hypothesis's pytest plugin, it decides nothing itself."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.checks.outcome import Outcome, decide
from pytest_pulsar_ha.report.evidence import write_verdict
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
    passed to ``record`` (the plugin's state keeps them for its summary and index page) before the outcome is
    handed to pytest."""
    from pytest_pulsar_ha.mutants.survivors import judged_as
    from pytest_pulsar_ha.pytest import mutation

    config = item.config
    seed_option = config.getoption("pulsar_ha_seed", None)
    evidence_root: Path = item.getfixturevalue("pulsar_ha_evidence_dir")
    mutant: str | None = getattr(item, "mutant", None)
    named = item.name if mutant else case.id  # a mutated run's evidence beside the case's own
    evidence_dir = evidence_root / "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in named)
    baseline = mutation.baseline_of(config, case.id) if mutant is not None else None
    seen = judged_as(mutant) if mutant is not None else None
    versions: list[set[str]] = []  # asked once, only where an announced failure makes them matter

    def judge(result: ScenarioResult) -> Outcome:
        if case.scenario.expected_failures and not versions:
            versions.append(set(result.versions) or _running_versions(item))
        return decide(result, case.scenario, versions[0] if versions else set(), mutant=seen, baseline=baseline)

    result = execute(
        case,
        item.pulsar_ha,
        evidence_dir=evidence_dir,
        spark=lambda: item.getfixturevalue("pulsar_ha_spark"),
        seed=int(seed_option) if seed_option is not None else None,
        **({} if mutant is None else {"mutant": mutant}),
        judge=judge,
    )
    result.evidence_root = evidence_root
    result.test, result.mutant = item.nodeid, mutant
    if mutant is not None:
        result.case_id = item.name  # <case>@<mutant> in the summary and on the index page
    outcome = judge(result)  # pure: the conductor's, decided again from the same data
    result.settle(outcome)
    write_verdict(result, evidence_dir)
    for name in ("run_page", "report", "verdict"):  # in the JUnit XML, where CI shows a test's properties
        if name in result.evidence:
            item.user_properties.append((f"pulsar_ha_{name}", str(result.evidence[name])))
    item.user_properties += [(mutation.OUTCOME_PROPERTY, outcome.kind), (mutation.REASON_PROPERTY, outcome.reason)]
    if mutation.is_baseline(item):
        mutation.record_baseline(config, case.id, outcome)
    if record is not None:
        record(result)
    to_pytest(item, outcome, result, f"replay: pytest '{item.nodeid}' --pulsar-ha-seed={result.seed}")


def to_pytest(item: Any, outcome: Outcome, result: ScenarioResult, replay: str) -> None:
    """Hand ``outcome`` to pytest: return (a pass), XFAIL, XPASS, skip, or raise :class:`ScenarioFailed`."""
    import pytest

    from pytest_pulsar_ha.scenario.errors import ScenarioFailed

    what = {"xfailed": "expected failure", "not judged": "not judged", "survived": f"mutant {result.mutant} survived"}
    heading = f"{what.get(outcome.kind, outcome.kind)}: {outcome.reason}"
    if outcome.kind in ("passed", "killed"):
        return
    if outcome.kind == "xpassed":  # a pass, shown as XPASS (pytest reads a mark added during the call)
        item.add_marker(pytest.mark.xfail(reason=outcome.reason, strict=False))
        return
    if outcome.kind == "xfailed":
        pytest.xfail(f"{heading}\n{result.describe()}")
    if outcome.kind == "not applicable":
        pytest.skip(heading)
    raise ScenarioFailed(f"{heading}\n{result.describe()}\n  {replay}")
