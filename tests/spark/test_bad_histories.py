"""Every kind of bad history has a defined outcome (exit status and message), and the table documents it."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .bad_histories import CASES, DOC, REGENERATE, Case, Outcome, render, run_case

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@pytest.fixture(scope="module")
def outcomes(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Outcome]]:
    """Each case run once through the command line (the tests below read the outcomes)."""
    folder = tmp_path_factory.mktemp("bad-histories")
    yield {case.name: run_case(spark, case, folder / f"case-{index}") for index, case in enumerate(CASES)}


def test_the_case_list_is_long_enough_and_named_uniquely() -> None:
    assert len(CASES) >= 15
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_each_bad_history_has_its_outcome(case: Case, outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes[case.name]
    assert (outcome.exit_code, case.fragment in outcome.message) == (case.exit_code, True), outcome.message


def test_no_bad_history_is_a_pass_without_evidence(outcomes: dict[str, Outcome]) -> None:
    """Exit 0 only for the cases that hold a whole, clean history (extra columns, a cut last line skipped)."""
    passing = sorted(name for name, outcome in outcomes.items() if outcome.exit_code == 0)
    assert passing == ["a number in a text column", "truncated last line", "unknown extra column"]


def test_the_table_is_the_rendering_of_the_cases(outcomes: dict[str, Outcome]) -> None:
    expected = render([(case, outcomes[case.name]) for case in CASES])
    actual = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    if actual != expected:
        diff = "\n".join(difflib.unified_diff(actual.splitlines(), expected.splitlines(), "on disk", "rendered"))
        pytest.fail(f"{DOC} is out of date; regenerate it with: {REGENERATE}\n{diff}")


def test_the_table_names_the_regeneration_command() -> None:
    assert REGENERATE in render([])
    assert Path(REGENERATE.split()[-1]) == DOC.relative_to(DOC.parents[2])
