"""``--pulsar-ha-mutants``: every selected scenario case once unmutated (its baseline, first) and once per mutant
(:mod:`pytest_pulsar_ha.mutants`), on the session's environment, each mutated test named ``<case>@<mutant>``. The
outcome of a mutated run is decided with the baseline's (:func:`pytest_pulsar_ha.checks.outcome.decide`): a kill
passes (the test records which expectation, with its figure), a survivor fails, a run that proves nothing (the
baseline failed or did not run, the run had problems, only an expectation blind to the mutant failed) fails as
not judged, and a mutant that cannot apply or never acted is skipped with the reason. The terminal summary is the
kill matrix, from those outcomes; ``pulsar-ha mutate`` runs pytest this way and reads the verdicts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_pulsar_ha.checks.outcome import Outcome

MUTANTS_KEY = pytest.StashKey[list[str]]()
BASELINES_KEY = pytest.StashKey[dict[str, "Outcome"]]()
MUTANT_PROPERTY = "mutant"
OUTCOME_PROPERTY = "pulsar_ha_outcome"
"""The user property a scenario test carries with its decided outcome (and REASON_PROPERTY with its reason)."""
REASON_PROPERTY = "pulsar_ha_reason"


def add_option(group: Any) -> None:
    group.addoption(
        "--pulsar-ha-mutants",
        dest="pulsar_ha_mutants",
        default=None,
        help="run every selected scenario once per mutant: a comma list, or all (pulsar-ha mutate --list names them)",
    )


def configure(config: pytest.Config) -> None:
    """Validate ``--pulsar-ha-mutants`` (a usage error names the valid mutants) and register the kill matrix."""
    text = config.getoption("pulsar_ha_mutants", None)
    if not text:
        return
    from pytest_pulsar_ha.mutants.catalogue import parse_mutants

    try:
        config.stash[MUTANTS_KEY] = parse_mutants(text)
    except ValueError as exc:
        raise pytest.UsageError(f"--pulsar-ha-mutants: {exc}") from None
    if not config.pluginmanager.has_plugin("pulsar_ha_kill_matrix"):
        config.pluginmanager.register(KillMatrix(config), "pulsar_ha_kill_matrix")


def mutants_of(config: pytest.Config) -> list[str]:
    return config.stash.get(MUTANTS_KEY, [])


def is_baseline(item: Any) -> bool:
    """Whether ``item`` is the unmutated run of a case in a mutation session (its mutants' baseline)."""
    return getattr(item, "mutant", None) is None and bool(mutants_of(item.config))


def record_baseline(config: pytest.Config, case_id: str, outcome: Outcome) -> None:
    """Keep the outcome of the unmutated run of ``case_id`` for its mutants (once: the first run counts)."""
    config.stash.setdefault(BASELINES_KEY, {}).setdefault(case_id, outcome)


def baseline_of(config: pytest.Config, case_id: str) -> Outcome | None:
    """The outcome of the unmutated run of ``case_id`` in this session, or None when it did not run (yet)."""
    return config.stash.get(BASELINES_KEY, {}).get(case_id)


def _property(report: pytest.TestReport, name: str) -> str | None:
    return next((str(value) for key, value in report.user_properties if key == name), None)


def _evidence_root(config: pytest.Config) -> Path:
    path = Path(str(config.getoption("pulsar_ha_evidence_dir") or config.getini("pulsar_ha_evidence_dir")))
    return path if path.is_absolute() else config.rootpath / path


def _store(config: pytest.Config, report: pytest.TestReport, case: str, mutant: str, outcome: Outcome) -> None:
    """Write the verdict of a mutated test that never reached the runner's (it could not apply, or crashed), so
    that ``pulsar-ha mutate`` finds every row in the verdicts."""
    from pytest_pulsar_ha.report.evidence import write_verdict
    from pytest_pulsar_ha.report.result import ScenarioResult

    name = report.nodeid.rsplit("::", 1)[-1]
    result = ScenarioResult(name, outcome.kind, 0, reason=outcome.reason, test=report.nodeid, mutant=mutant)
    result.facts["scenario"] = case
    write_verdict(result, _evidence_root(config) / "".join(c if c.isalnum() or c in "-_." else "_" for c in name))


class KillMatrix:
    """Each mutated case's outcome, printed as the kill matrix at the end of the session. A run that was not
    judged, never acted or crashed is never printed as survived."""

    def __init__(self, config: pytest.Config | None = None) -> None:
        self.config = config
        self.rows: list[tuple[str, str, str, str]] = []
        """(case, mutant, outcome, why)"""

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        from pytest_pulsar_ha.checks.outcome import crashed, not_applicable

        mutant = _property(report, MUTANT_PROPERTY)
        if mutant is None:
            return
        case = report.nodeid.rsplit("::", 1)[-1].rsplit("@", 1)[0]
        decided = _property(report, OUTCOME_PROPERTY)
        if report.when == "call" and decided is not None:
            self.rows.append((case, mutant, decided, _property(report, REASON_PROPERTY) or ""))
            return
        if report.when in ("setup", "call") and report.skipped:  # cannot apply: said before it ran
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            outcome = not_applicable(reason.removeprefix("Skipped: "))
        elif report.when in ("setup", "call") and report.failed:
            outcome = crashed(f"{report.when} failed: {str(report.longrepr).strip().splitlines()[-1:]}")
        else:
            return
        self.rows.append((case, mutant, outcome.kind, outcome.reason))
        if self.config is not None:
            _store(self.config, report, case, mutant, outcome)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.rows:
            return
        terminalreporter.section("pulsar-ha kill matrix")
        width = max(len(r[0]) for r in self.rows)
        for case, mutant, verdict, why in self.rows:
            terminalreporter.write_line(f"{case:<{width}}  {mutant:<14}  {verdict:<14}  {why}")
        killed = sum(1 for r in self.rows if r[2] == "killed")
        judged = sum(1 for r in self.rows if r[2] in ("killed", "survived"))
        score = f"{killed / judged:.0%}" if judged else "-"
        unjudged = sum(1 for r in self.rows if r[2] == "not judged")
        terminalreporter.write_line(
            f"mutation score: {killed} of {judged} applicable mutants killed ({score}); {unjudged} not judged"
        )
