"""The checker's copy of the history format (spark_checks.history_format) equals the writer's: no Spark needed.

``spark_checks`` imports nothing from ``pytest_pulsar_ha`` (which imports it), so it keeps its own copy of the
format's names; these tests keep the copy and the writer's definitions (``pytest_pulsar_ha.history``) equal.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from spark_checks import history_format

SHARED_NAMES = (
    "SEND",
    "ACK",
    "SEND_ERROR",
    "RECEIVE",
    "PROBE",
    "SWITCH",
    "SWITCH_FAILED",
    "FAULT_START",
    "FAULT_END",
    "EVENT_TYPES",
    "MESSAGE_EVENT_TYPES",
    "EVENT_COLUMNS",
    "COLUMN_TYPES",
    "REQUIRED_COLUMNS",
    "MIN_TS_NS",
    "MAX_TS_NS",
    "TAIL_WINDOW_BYTES",
)


@pytest.mark.parametrize("name", SHARED_NAMES)
def test_the_checker_copy_of_the_format_equals_the_writer(name: str) -> None:
    from pytest_pulsar_ha import history

    assert getattr(history_format, name) == getattr(history, name)


def test_the_event_kinds_the_checker_reads() -> None:
    assert (history_format.SEND, history_format.ACK, history_format.RECEIVE, history_format.SEND_ERROR) == (
        "send",
        "ack",
        "receive",
        "send_error",
    )
    assert list(history_format.COLUMN_TYPES) == list(history_format.EVENT_COLUMNS)


@pytest.mark.parametrize(
    "text",
    [
        "",
        '{"ts_ns": 1}\n',
        '{"ts_ns": 1}\n{"ts_',
        '{"ts_ns": 1}\n{"ts_ns": 2}',
        '{"ts_ns": 1}\nnot json\n',
        '{"ts_ns": 1}\n\n   ',
        "[1, 2",
    ],
)
def test_truncated_tail_agrees_with_the_writer(text: str, tmp_path: Path) -> None:
    from pytest_pulsar_ha import history

    path = tmp_path / "h.jsonl"
    path.write_text(text)
    assert history_format.truncated_tail(path) == history.truncated_tail(path)


def test_spark_checks_imports_nothing_from_the_writer_package() -> None:
    """Only docstrings and comments may name pytest_pulsar_ha in spark_checks (the import cycle stays broken)."""
    package = Path(history_format.__file__).parent
    offenders = []
    for source in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(source.read_text(), str(source))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            offenders += [f"{source.name}: {name}" for name in names if name.split(".")[0] == "pytest_pulsar_ha"]
    assert offenders == []
