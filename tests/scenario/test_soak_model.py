"""A soak judges its history on Spark only: window expectations (they read the history in memory) are refused
with file:line before any cluster starts."""

from __future__ import annotations

from pytest_pulsar_ha.scenario import parse_scenarios

from .test_loader import edited, errors_of


def test_a_soak_refuses_window_expectations_where_they_are_written() -> None:
    text = edited(("    workload:", "    soak: {row_group_rows: 5000}\n    workload:"))
    errors = errors_of(text)
    assert any(
        line.startswith("t.pulsar-ha.yaml:16: scenarios[0].expect[0].switch: a soak judges its history on Spark only")
        for line in errors
    ), errors


def test_a_soak_with_spark_checks_only_loads() -> None:
    text = edited(
        ("    workload:", "    soak: {}\n    workload:"),
        ("      - {switch: {to: cluster-b, within: [2s, 8s]}}\n", "      - max_duplicates: 10\n"),
    )
    (case,) = parse_scenarios(text, "t.pulsar-ha.yaml")
    assert case.scenario.soak is not None and case.scenario.soak.row_group_rows == 20_000


def test_row_group_rows_is_bounded() -> None:
    text = edited(("    workload:", "    soak: {row_group_rows: 10}\n    workload:"))
    assert errors_of(text) == [
        "t.pulsar-ha.yaml:10: scenarios[0].soak.row_group_rows: expected a whole number from 1000 to 1000000, "
        "found the number 10"
    ]
