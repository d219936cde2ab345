"""Bad histories: the case list behind ``docs/reliability/histories.md`` and ``test_bad_histories.py``.

Each case writes one history (or leaves a path that is not one) and says what ``python -m spark_checks`` must do
with it: the exit status and a fragment of the message. The tests run every case through the command line and
check both; the document is the rendering of the outcomes the cases really have (:func:`render`), so it cannot
drift from the code. Regenerate it (needs pyspark) with::

    .venv/bin/python -m tests.spark.bad_histories docs/reliability/histories.md
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_pulsar_ha.history import ACK, EVENT_COLUMNS, FAULT_END, FAULT_START, PROBE, RECEIVE, SEND, SWITCH

from .histories import MS, T0, A, B, Builder, failover_history

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DOC = Path(__file__).resolve().parents[2] / "docs" / "reliability" / "histories.md"
REGENERATE = ".venv/bin/python -m tests.spark.bad_histories docs/reliability/histories.md"


@dataclass(frozen=True)
class Case:
    name: str
    holds: str
    """What the file holds (one line for the table)."""
    make: Callable[[Path], Path]
    """Writes the history under the given folder and returns the path to check."""
    exit_code: int
    fragment: str
    """Part of the message (stderr for exit 2, the JSON report otherwise) the outcome must contain."""


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    message: str


def _clean() -> Builder:
    return failover_history(per_producer=3)


def _lines(builder: Builder) -> list[str]:
    return [event.to_json() for event in builder.events]


def _jsonl(folder: Path, lines: Sequence[str], *, newline_at_end: bool = True) -> Path:
    path = folder / "history.jsonl"
    text = "\n".join(lines)
    path.write_text(text + ("\n" if newline_at_end and lines else ""), encoding="utf-8")
    return path


def _with_line(line: str, at: int = 2) -> Callable[[Path], Path]:
    """A clean history with ``line`` inserted as line ``at + 1``."""

    def make(folder: Path) -> Path:
        lines = _lines(_clean())
        lines.insert(at, line)
        return _jsonl(folder, lines)

    return make


def _event(**fields: object) -> str:
    data: dict[str, object] = {"ts_ns": T0 + 5 * MS, "type": SEND, "process": "producer-0"}
    data.update(fields)
    return json.dumps(data)


def _empty(folder: Path) -> Path:
    return _jsonl(folder, [])


def _blank_lines(folder: Path) -> Path:
    path = folder / "history.jsonl"
    path.write_text("\n   \n\n", encoding="utf-8")
    return path


def _no_sends(folder: Path) -> Path:
    b = Builder()
    b.add(0, FAULT_START, "nemesis", cluster=A, detail="#0 outage cluster-a")
    b.add(10, PROBE, "provider", cluster=A, detail='{"ok": false}')
    b.add(20, SWITCH, "provider", cluster=B)
    b.add(900, FAULT_END, "nemesis", cluster=A, detail="#0 outage cluster-a")
    return b.write(folder / "history.jsonl")


def _truncated_last_line(folder: Path) -> Path:
    lines = _lines(_clean())
    return _jsonl(folder, [*lines, lines[0][:25]], newline_at_end=False)


def _truncated_middle_line(folder: Path) -> Path:
    lines = _lines(_clean())
    lines.insert(3, lines[0][:25])
    return _jsonl(folder, lines)


def _acks_without_sends(folder: Path) -> Path:
    return _clean().without(SEND, producer="producer-1", seq=2).write(folder / "history.jsonl")


def _receives_without_sends(folder: Path) -> Path:
    b = _clean()
    b.receive(300, "sub-1", "producer-9", 1, A)
    return b.write(folder / "history.jsonl")


def _duplicate_send_ids(folder: Path) -> Path:
    b = _clean()
    b.send(60, "producer-0", 1)
    return b.write(folder / "history.jsonl")


def _nothing_acknowledged(folder: Path) -> Path:
    b = Builder()
    for seq in range(1, 6):
        b.send(seq * 10, "producer-0", seq).send_error(seq * 10 + 5, "producer-0", seq)
    return b.write(folder / "history.jsonl")


def _no_consumer(folder: Path) -> Path:
    return failover_history(per_producer=3, subscriptions=()).write(folder / "history.jsonl")


def _parquet_rows(folder: Path, name: str, columns: dict[str, list[object]], types: dict[str, str]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / name
    schema = pa.schema([(column, getattr(pa, types.get(column, "string"))()) for column in columns])
    pq.write_table(pa.table(columns, schema=schema), path)
    return path


def _parquet_wrong_type(folder: Path) -> Path:
    rows = [event.to_dict() for event in _clean().events]
    columns: dict[str, list[object]] = {name: [row[name] for row in rows] for name in EVENT_COLUMNS}
    columns["seq"] = [None if value is None else str(value) for value in columns["seq"]]
    return _parquet_rows(folder, "history.parquet", columns, {"ts_ns": "int64"})


def _parquet_missing_column(folder: Path) -> Path:
    rows = [event.to_dict() for event in _clean().events]
    columns: dict[str, list[object]] = {name: [row[name] for row in rows] for name in EVENT_COLUMNS if name != "seq"}
    return _parquet_rows(folder, "history.parquet", columns, {"ts_ns": "int64"})


def _parquet_empty(folder: Path) -> Path:
    return Builder().write(folder / "history.parquet")


def _parquet_truncated(folder: Path) -> Path:
    path = _clean().write(folder / "whole.parquet")
    cut = folder / "history.parquet"
    data = path.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    path.unlink()
    return cut


def _empty_directory(folder: Path) -> Path:
    path = folder / "history"
    path.mkdir()
    return path


def _missing_file(folder: Path) -> Path:
    return folder / "nothing-here.jsonl"


CASES: tuple[Case, ...] = (
    Case("empty file", "a .jsonl file of 0 bytes (the writer died before its first event)", _empty, 2,
         "holds no events"),
    Case("blank lines only", "a .jsonl file of empty and white-space lines", _blank_lines, 2, "holds no events"),
    Case("no send event", "fault, probe and switch events only", _no_sends, 2, "no send event"),
    Case("truncated last line", "a clean history whose last line was cut mid-write (no newline at the end)",
         _truncated_last_line, 0, "skipped 1 truncated last line"),
    Case("truncated line in the middle", "a cut line followed by more events (not the end of the file)",
         _truncated_middle_line, 2, "history.jsonl:4: not valid JSON"),
    Case("invalid JSON line", "a line that is not JSON", _with_line("this is not json"), 2,
         "history.jsonl:3: not valid JSON"),
    Case("JSON but not an object", "a line holding a JSON array", _with_line("[1, 2, 3]"), 2,
         "history.jsonl:3: not a JSON object"),
    Case("wrong type: seq as text", 'a send whose seq is the string "7"',
         _with_line(_event(producer="producer-0", seq="7")), 2, "history.jsonl:3: seq must be an integer"),
    Case("wrong type: ts_ns as a float", "a send whose ts_ns is 1.7e18",
         _with_line(_event(ts_ns=1.7e18, producer="producer-0", seq=99)), 2,
         "history.jsonl:3: ts_ns must be an integer"),
    Case("a number in a text column", "an ack whose message_id is the number 12345 (read as the text '12345')",
         _with_line(_event(type=ACK, cluster=A, producer="producer-0", seq=1, message_id=12345), at=200), 0,
         '"ok": true'),
    Case("unknown event type", 'an event of type "teleport"', _with_line(_event(type="teleport")), 2,
         "history.jsonl:3: unknown event type 'teleport'"),
    Case("missing required field", "an event without process",
         _with_line(_event(process=None, producer="producer-7", seq=1)), 2,
         "history.jsonl:3: process is missing or null"),
    Case("message event without seq", "a send without seq", _with_line(_event(producer="producer-0")), 2,
         "history.jsonl:3: a send event needs producer and seq"),
    Case("receive without subscription", "a receive without subscription",
         _with_line(_event(type=RECEIVE, cluster=A, producer="producer-0", seq=1)), 2,
         "history.jsonl:3: a receive event needs subscription"),
    Case("unknown extra column", "events with a column the format does not have",
         _with_line(_event(producer="producer-7", seq=1, colour="blue")), 0, '"ok": true'),
    Case("negative timestamp", "a send at ts_ns -5", _with_line(_event(ts_ns=-5, producer="producer-7", seq=1)), 2,
         "history.jsonl:3: ts_ns -5 is not between 2000-01-01 and 2100-01-01"),
    Case("timestamp in milliseconds", "a send stamped 1700000000000 (milliseconds, not nanoseconds)",
         _with_line(_event(ts_ns=1_700_000_000_000, producer="producer-7", seq=1)), 2,
         "is not between 2000-01-01 and 2100-01-01"),
    Case("acks without sends", "an ack whose send event is missing", _acks_without_sends, 2,
         "1 ack/send_error event(s) without a send event"),
    Case("duplicate send ids", "two send events with the same (producer, seq)", _duplicate_send_ids, 2,
         "1 (producer, seq) sent more than once"),
    Case("receives without sends", "a receive of a message never sent nor acknowledged", _receives_without_sends, 1,
         "received_unknown"),
    Case("nothing acknowledged", "sends that all failed (send_error), no ack", _nothing_acknowledged, 1,
         "no send was acknowledged"),
    Case("no consumer", "sends and acks, no receive event", _no_consumer, 1, "no receive event"),
    Case("Parquet with a wrong column type", "seq stored as text", _parquet_wrong_type, 2,
         "column seq has type string, expected int64"),
    Case("Parquet without a column", "no seq column", _parquet_missing_column, 2, "missing column(s) seq"),
    Case("empty Parquet", "the history schema, 0 rows", _parquet_empty, 2, "holds no events"),
    Case("truncated Parquet", "the first half of a Parquet file (no footer)", _parquet_truncated, 2,
         "cannot read as Parquet"),
    Case("empty directory", "a directory with no history file", _empty_directory, 2,
         "holds no .parquet nor .jsonl file"),
    Case("missing file", "a path where nothing is", _missing_file, 2, "no such history file or directory"),
)  # fmt: skip


def run_case(spark: SparkSession, case: Case, folder: Path) -> Outcome:
    """Write the case under ``folder``, run ``python -m spark_checks PATH --json`` in this process, and describe
    the outcome in one deterministic line (the folder replaced by ``DIR``)."""
    from spark_checks.cli import main

    folder.mkdir(parents=True, exist_ok=True)
    path = case.make(folder)
    out, err = io.StringIO(), io.StringIO()
    code = main([str(path), "--json"], spark=spark, stdout=out, stderr=err)
    if out.getvalue().strip():
        report = json.loads(out.getvalue())
        parts = [f'"ok": {json.dumps(report["ok"])}']
        parts += [f"note: {note}" for note in report.get("notes", [])]
        parts += [f"{v['name']} failed: {v['reason'] or v['summary']}" for v in report["verdicts"] if not v["ok"]]
        message = "; ".join(parts)
    else:
        message = err.getvalue().strip().removeprefix("error: ")
    for variant in (folder.resolve().as_uri(), f"file:{folder.resolve()}", str(folder.resolve()), str(folder)):
        message = message.replace(variant, "DIR")
    return Outcome(code, re.sub(r"\s+", " ", message))


def render(outcomes: Sequence[tuple[Case, Outcome]]) -> str:
    rows = []
    for case, outcome in outcomes:
        message = outcome.message.replace("|", "\\|")
        rows.append(f"| {case.name} | {case.holds} | {outcome.exit_code} | {message} |")
    return (
        "# Bad histories: what the checker does with them\n\n"
        "Generated from the case list in `tests/spark/bad_histories.py` by `tests/spark/test_bad_histories.py`\n"
        f"(a test fails when this page differs from the cases' real outcomes). Regenerate: `{REGENERATE}`.\n\n"
        "Every case is run as `python -m spark_checks PATH --json`. Exit status: 0 every check ok, 1 an anomaly\n"
        "(a check failed: the message names it and the missing evidence), 2 bad input (the message says what is\n"
        "missing or wrong; `file:line` for JSON Lines). `DIR` stands for the folder of the case. The rules are\n"
        "in [the history format](../history-format.md#what-a-bad-history-gets).\n\n"
        "| case | the file holds | exit | message |\n| --- | --- | --- | --- |\n" + "\n".join(rows) + "\n"
    )


def main(argv: Sequence[str]) -> int:
    import tempfile

    from spark_checks.spark.session import build_spark_session

    from .conftest import TEST_CONF, TEST_JAVA_OPTIONS

    target = Path(argv[0]) if argv else DOC
    spark = build_spark_session("local[2]", conf=TEST_CONF, java_options=TEST_JAVA_OPTIONS)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            outcomes = [(case, run_case(spark, case, Path(tmp) / f"case-{i}")) for i, case in enumerate(CASES)]
    finally:
        spark.stop()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render(outcomes), encoding="utf-8")
    print(f"wrote {target} ({len(outcomes)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
