"""History files: JSON Lines and Parquet readers and writers, and the truncated tail a killed run leaves."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Final

from .events import COLUMN_TYPES, EVENT_COLUMNS, PARQUET_SUFFIX, Event


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


TAIL_WINDOW_BYTES: Final = 1 << 20
"""How far back from the end of a file :func:`truncated_tail` looks for the start of the last line."""


def truncated_tail(path: str | os.PathLike[str]) -> tuple[int, str] | None:
    """(line number, text) of the last line of a JSON Lines file when a run was killed while writing it, else None.

    A truncated line is the file's last line, without the newline that ends every whole line, and not a valid
    JSON object. A bad line that ends with a newline is not truncated: it is bad input.
    """
    with open(path, "rb") as stream:
        size = stream.seek(0, os.SEEK_END)
        if size == 0:
            return None
        stream.seek(max(0, size - TAIL_WINDOW_BYTES))
        tail = stream.read()
        if tail.endswith(b"\n"):
            return None
        start = tail.rfind(b"\n") + 1
        if start == 0 and size > len(tail):
            return None  # a last line longer than the window: no event is that long, let the reader judge it
        text = tail[start:].decode("utf-8", errors="replace")
        if not text.strip():
            return None
        try:
            if isinstance(json.loads(text), dict):
                return None
        except ValueError:
            pass
        stream.seek(0)
        newlines = sum(chunk.count(b"\n") for chunk in iter(lambda: stream.read(1 << 16), b""))
    return newlines + 1, text


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
