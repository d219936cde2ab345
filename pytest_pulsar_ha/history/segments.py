"""A history streamed as a directory of Parquet files, one per ``rows_per_file`` events (a soak's history).

Memory holds at most one file's events; every file is complete once written, so a run killed at any point
keeps its history up to the last file (a single Parquet file is unreadable until its footer is written). The
directory is one history for the checker (``docs/history-format.md``: a directory of ``*.parquet`` files).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from .events import Event
from .files import _arrow_table, arrow_schema

PART_FORMAT = "part-{:06d}.parquet"


class ParquetSegments:
    """Appends events to ``directory/part-NNNNNN.parquet`` files; safe to call from many threads at once."""

    def __init__(self, directory: str | os.PathLike[str], *, rows_per_file: int = 20_000) -> None:
        if rows_per_file < 1:
            raise ValueError("rows_per_file must be positive")
        self.path = Path(directory)
        if self.path.exists() and any(self.path.iterdir()):
            raise ValueError(f"history directory {self.path} is not empty: a history is never appended to another")
        self.path.mkdir(parents=True, exist_ok=True)
        self.rows_per_file = rows_per_file
        self._lock = threading.Lock()
        self._buffer: list[Event] = []
        self._files = 0
        self._count = 0
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def count(self) -> int:
        """Events appended so far."""
        return self._count

    @property
    def files(self) -> int:
        """Parquet files written so far."""
        return self._files

    def append(self, event: Event) -> None:
        with self._lock:
            if self._closed:
                raise ValueError(f"history {self.path} is closed")
            self._count += 1
            self._buffer.append(event)
            if len(self._buffer) >= self.rows_per_file:
                self._write()

    def _write(self) -> None:
        if not self._buffer:
            return
        import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

        target = self.path / PART_FORMAT.format(self._files)
        partial = target.with_name(target.name + ".tmp")  # a reader never sees half a file
        pq.write_table(_arrow_table(self._buffer), str(partial))
        partial.replace(target)
        self._files += 1
        self._buffer = []

    def close(self) -> Path:
        """Write what is buffered and return the directory (an empty history still gets one, empty, file)."""
        with self._lock:
            if not self._closed:
                if self._buffer or self._files == 0:
                    self._write_even_empty()
                self._closed = True
        return self.path

    def _write_even_empty(self) -> None:
        if self._buffer:
            self._write()
            return
        import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

        pq.write_table(arrow_schema().empty_table(), str(self.path / PART_FORMAT.format(0)))
        self._files = 1

    def __enter__(self) -> ParquetSegments:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
