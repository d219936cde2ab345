"""docs/reference/reliability.md's tables are the generated pages' tables (each page is checked against its tests)."""

from __future__ import annotations

from tests.docs import readme_reliability


def test_the_readme_tables_are_current() -> None:
    text = readme_reliability.README.read_text()
    assert readme_reliability.current_block(text) == readme_reliability.render(), (
        "README.md's reliability tables differ from docs/reliability/*.md; regenerate with "
        "`.venv/bin/python -m tests.docs.readme_reliability`"
    )


def test_every_class_has_the_kinds_the_issue_asks_for() -> None:
    counts = {
        name: len(readme_reliability.table_of(readme_reliability.ROOT / "docs" / "reliability" / name)) - 2
        for name, _, _ in readme_reliability.PAGES
    }
    assert counts["url-provider-answers.md"] >= 25
    assert counts["scenario-files.md"] >= 60
    assert counts["histories.md"] >= 15
