"""The terminal summary's line per scenario: outcome, case, and the wall seconds of its test (set-up, call and
teardown, so an environment started for it counts there); a result with no timed test gets no figure."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pulsar_ha.pytest.summary import write_scenario_summary
from pytest_pulsar_ha.report.result import ScenarioResult


class Terminal:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def section(self, title: str) -> None:
        self.lines.append(f"== {title}")

    def write_line(self, line: str) -> None:
        self.lines.append(line)


def test_each_scenario_line_ends_with_its_tests_wall_seconds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pytest_pulsar_ha.report.index.write_index", lambda results, root: root / "index.html")
    timed = ScenarioResult("primary-outage", "passed", 1, test="s/p.yaml::primary-outage")
    untimed = ScenarioResult("hung-primary", "failed", 1, test="s/h.yaml::hung-primary")
    terminal = Terminal()
    write_scenario_summary(terminal, [timed, untimed], {"s/p.yaml::primary-outage": 79.6}, tmp_path)  # type: ignore[arg-type]
    assert terminal.lines == [
        "== pulsar-ha scenarios",
        "passed       primary-outage  (80 s)",
        "failed       hung-primary",
        f"report: {tmp_path / 'index.html'}",
    ]
