"""Every kind of malformed file of ``malformed_cases.CASES`` is reported at the right line, and documented."""

from __future__ import annotations

from pathlib import Path

import pytest

from .malformed_cases import CASES, DOC, FILE, Case, render


def test_there_are_at_least_sixty_kinds() -> None:
    assert len(CASES) >= 60
    assert len({case.id for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_each_malformed_file_is_reported_at_its_line(case: Case, tmp_path: Path) -> None:
    messages = case.messages(tmp_path)
    assert messages, "the file was accepted"
    first = messages[0]
    assert first.startswith(f"{FILE}:{case.line}:"), messages
    assert any(case.fragment in message for message in messages), messages


def test_the_doc_is_the_rendering_of_the_cases(tmp_path: Path) -> None:
    assert DOC.read_text(encoding="utf-8") == render(tmp_path), (
        "docs/reliability/scenario-files.md is out of date; run: python -m tests.scenario_model.malformed_cases"
    )


CONFTEST = """
import pytest

from pytest_pulsar_ha.pytest.collect import collect_scenario_file


def pytest_collect_file(parent, file_path):
    return collect_scenario_file(parent, file_path)


@pytest.fixture(scope="session")
def pulsar_ha():
    (pytest.__file__ and open("cluster-started.txt", "w")).write("started")
    return "environment"
"""


def test_no_malformed_file_starts_a_cluster(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_plain="def test_plain(pulsar_ha):\n    pass\n")
    for case in CASES:
        (pytester.path / f"{case.id}.pulsar-ha.yaml").write_bytes(case.content)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=len(CASES))
    assert "Interrupted" in result.stdout.str()
    assert not (pytester.path / "cluster-started.txt").exists()
    for case in CASES:
        result.stdout.fnmatch_lines([f"*ERROR collecting {case.id}.pulsar-ha.yaml*"])
