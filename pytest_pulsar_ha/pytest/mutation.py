"""``--pulsar-ha-mutants``: every selected scenario case once per mutant (:mod:`pytest_pulsar_ha.mutants`), on the
session's environment, each test named ``<case>@<mutant>``. A mutated case passes when the scenario kills the
mutant (an expectation fails; the test records which, with its measured figure), fails when the mutant survives
(every expectation held), and is skipped with the reason when the mutant cannot apply. The terminal summary is
the kill matrix; ``pulsar-ha mutate`` runs pytest this way."""

from __future__ import annotations

from typing import Any

import pytest

MUTANTS_KEY = pytest.StashKey[list[str]]()
MUTANT_PROPERTY = "mutant"
KILLED_BY_PROPERTY = "killed_by"
SURVIVED_PROPERTY = "survived_because"


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
        config.pluginmanager.register(KillMatrix(), "pulsar_ha_kill_matrix")


def mutants_of(config: pytest.Config) -> list[str]:
    return config.stash.get(MUTANTS_KEY, [])


def _property(report: pytest.TestReport, name: str) -> str | None:
    return next((str(value) for key, value in report.user_properties if key == name), None)


class KillMatrix:
    """Each mutated case's verdict, printed as the kill matrix at the end of the session."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str]] = []
        """(case, mutant, verdict, why)"""

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        mutant = _property(report, MUTANT_PROPERTY)
        if mutant is None:
            return
        case = report.nodeid.rsplit("::", 1)[-1].rsplit("@", 1)[0]
        if report.when in ("setup", "call") and report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            self.rows.append((case, mutant, "n/a", reason.removeprefix("Skipped: ")))
        elif report.when == "call":
            if report.passed:
                self.rows.append((case, mutant, "killed", _property(report, KILLED_BY_PROPERTY) or ""))
            elif report.failed:
                why = _property(report, SURVIVED_PROPERTY) or "every expectation held"
                self.rows.append((case, mutant, "survived", why))
        elif report.when == "setup" and report.failed:
            self.rows.append((case, mutant, "error", "set-up failed"))

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.rows:
            return
        terminalreporter.section("pulsar-ha kill matrix")
        width = max(len(r[0]) for r in self.rows)
        for case, mutant, verdict, why in self.rows:
            terminalreporter.write_line(f"{case:<{width}}  {mutant:<14}  {verdict:<8}  {why}")
        killed = sum(1 for r in self.rows if r[2] == "killed")
        judged = sum(1 for r in self.rows if r[2] in ("killed", "survived"))
        score = f"{killed / judged:.0%}" if judged else "-"
        terminalreporter.write_line(f"mutation score: {killed} of {judged} applicable mutants killed ({score})")
