"""Every hostile URL-provider answer of ``hostile_answers.CASES``: a failed poll, logged once, never a switch;
and the table in docs/reliability/url-provider-answers.md is exactly what these cases produce."""

from __future__ import annotations

import pytest

from .hostile_answers import CASES, DOC, REGENERATE, REQUEST_TIMEOUT, SECRET, HostileAnswer, render_all, run_case

SLACK = 0.3  # scheduling slack on a loaded 2-core machine


@pytest.mark.parametrize("case", CASES, ids=[c.kind for c in CASES])
def test_a_hostile_answer_is_a_failed_poll_logged_once_and_never_a_switch(case: HostileAnswer) -> None:
    outcome = run_case(case, polls=2)
    assert not outcome.switched
    assert len(outcome.polls) == 2 and not any(p.ok for p in outcome.polls)
    error = outcome.polls[-1].error
    assert case.expect in error, error
    assert "\n" not in error and SECRET not in error
    assert len(outcome.warnings) == 1, outcome.warnings  # the same reason twice: logged once
    assert SECRET not in outcome.warnings[0] and "switch" not in outcome.warnings[0]
    assert outcome.took_s < REQUEST_TIMEOUT + SLACK, f"a poll took {outcome.took_s:.2f}s"


def test_the_cases_cover_at_least_25_kinds() -> None:
    assert len({c.kind for c in CASES}) == len(CASES) >= 25


def test_the_table_in_the_docs_is_generated_from_these_cases() -> None:
    expected = render_all()
    actual = DOC.read_text() if DOC.exists() else ""
    assert actual == expected, f"{DOC} is out of date with tests/providers/hostile_answers.py: run {REGENERATE}"
