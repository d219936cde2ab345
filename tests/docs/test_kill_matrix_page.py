"""The kill-matrix page is its stored files (``python -m tests.docs.kill_matrix_page`` writes it)."""

from __future__ import annotations

from tests.docs.kill_matrix_page import DATA, PAGE, render


def test_the_page_is_the_stored_matrices() -> None:
    assert PAGE.read_text() == render(), "out of date; run python -m tests.docs.kill_matrix_page"


def test_every_stored_matrix_names_its_command_and_its_score() -> None:
    for path in sorted(DATA.glob("*.txt")):
        lines = path.read_text().splitlines()
        assert lines[0].startswith("$ pulsar-ha mutate ") and lines[1].startswith("# ran "), path
        assert lines[-1].startswith("mutation score: "), path
