"""History files: JSON Lines and Parquet readers and writers, and the truncated tail a killed run leaves."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from spark_checks.history_format import TAIL_WINDOW_BYTES as TAIL_WINDOW_BYTES
from spark_checks.history_format import truncated_tail as truncated_tail

from .events import COLUMN_TYPES, EVENT_COLUMNS, PARQUET_SUFFIX, Event

# truncated_tail: one rule for a history cut mid-line, defined with the rest of the format in the checker (which
# imports nothing from here).


def arrow_schema() -> Any:
    """The explicit ``pyarrow.Schema`` of a history (imports pyarrow)."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    kinds = {"int64": pa.int64(), "string": pa.string()}
    return pa.schema(
        [pa.field(name, kinds[kind], nullable=nullable) for name, (kind, nullable) in COLUMN_TYPES.items()]
    )


def _arrow_table(events: Iterable[Event]) -> Any:
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    columns: dict[str, list[Any]] = {name: [] for name in EVENT_COLUMNS}
    for event in events:
        for name in EVENT_COLUMNS:
            columns[name].append(getattr(event, name))
    return pa.Table.from_pydict(columns, schema=arrow_schema())


def iter_events_jsonl(path: str | os.PathLike[str]) -> Iterator[Event]:
    """Parse a JSON Lines history lazily; a bad line raises ``ValueError`` naming the file and line number.

    Blank lines are skipped, and so is a truncated last line (see :func:`truncated_tail`: a run killed mid-write
    is readable up to its last whole event).
    """
    cut = truncated_tail(path)
    with open(path, encoding="utf-8") as stream:
        for number, line in enumerate(stream, start=1):
            if not line.strip() or (cut is not None and number == cut[0]):
                continue
            try:
                data = json.loads(line)
                if not isinstance(data, dict):
                    raise ValueError("not a JSON object")
                yield Event.from_dict(data)
            except ValueError as exc:
                raise ValueError(f"{path}:{number}: bad history line: {exc}") from None


def read_events_jsonl(path: str | os.PathLike[str]) -> list[Event]:
    """Every event of a (small) JSON Lines history, in file order."""
    return list(iter_events_jsonl(path))


def write_events_jsonl(events: Iterable[Event], path: str | os.PathLike[str]) -> Path:
    """Write events as a JSON Lines history (replacing the file)."""
    target = Path(path)
    with target.open("w", encoding="utf-8") as stream:
        for event in events:
            stream.write(event.to_json() + "\n")
    return target


def write_events_parquet(
    events: Iterable[Event], path: str | os.PathLike[str], *, row_group_rows: int = 131_072
) -> Path:
    """Write events as a Parquet history with the explicit schema (replacing the file); streams in row groups."""
    import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

    target = Path(path)
    with pq.ParquetWriter(str(target), arrow_schema()) as writer:
        chunk: list[Event] = []
        for event in events:
            chunk.append(event)
            if len(chunk) >= row_group_rows:
                writer.write_table(_arrow_table(chunk))
                chunk = []
        if chunk:
            writer.write_table(_arrow_table(chunk))
    return target


def jsonl_to_parquet(
    source: str | os.PathLike[str], target: str | os.PathLike[str] | None = None, *, row_group_rows: int = 131_072
) -> Path:
    """Convert a JSON Lines history to Parquet (default: same name with ``.parquet``), in bounded memory."""
    src = Path(source)
    dst = Path(target) if target is not None else src.with_suffix(PARQUET_SUFFIX)
    return write_events_parquet(iter_events_jsonl(src), dst, row_group_rows=row_group_rows)
