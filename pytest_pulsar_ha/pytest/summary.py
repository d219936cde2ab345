"""The plugin's terminal summary of the scenarios that ran: one line each (outcome, case, wall seconds of its test
with set-up and teardown: an environment started for it counts there), the side-by-side tables of scenario
families, and the index page of their evidence."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from pytest_pulsar_ha.report.result import ScenarioResult


def write_scenario_summary(
    terminalreporter: pytest.TerminalReporter,
    results: list[ScenarioResult],
    seconds: Mapping[str, float],
    default_root: Path,
) -> None:
    """``seconds``: wall seconds per test node id (set-up, call and teardown together)."""
    from pytest_pulsar_ha.report.index import write_index

    by_root: dict[Path, list[object]] = {}
    for result in results:
        by_root.setdefault(result.evidence_root or default_root, []).append(result)
    terminalreporter.section("pulsar-ha scenarios")
    for result in results:
        took = seconds.get(result.test)
        terminalreporter.write_line(
            f"{result.outcome:<12} {result.case_id}" + ("" if took is None else f"  ({took:.0f} s)")
        )
    _write_side_by_side(terminalreporter, results)
    for root, grouped in by_root.items():
        terminalreporter.write_line(f"report: {write_index(grouped, root)}")


def _write_side_by_side(terminalreporter: pytest.TerminalReporter, results: list[ScenarioResult]) -> None:
    """A scenario's variants that ran the same fault with different clients or providers, as one table."""
    from pytest_pulsar_ha.checks.side_by_side import family_tables, text_table

    rows = [r.side_by_side for r in results if r.side_by_side is not None]
    for name, members in family_tables(rows).items():
        terminalreporter.write_line(f"side by side: {name}")
        for line in text_table(members):
            terminalreporter.write_line(f"  {line}")
