"""A run's journal written off the hot path: :meth:`BackgroundJournal.append` only queues the event; a thread of
its own writes the queued events as JSON Lines every ``interval_s`` and flushes them, so that the client's
callbacks, which append an event per send, ack and receipt, never encode or write.

A run killed at any point leaves its history up to at most ``interval_s`` before (the JSON Lines reader skips a
truncated last line); :meth:`close` writes the rest."""

from __future__ import annotations

import threading
from pathlib import Path

from .events import JSONL_SUFFIX, Event


class BackgroundJournal:
    """A JSON Lines journal (the :class:`~.sink.Journal` protocol) written by a thread of its own."""

    def __init__(self, path: Path, interval_s: float = 0.25) -> None:
        if path.suffix != JSONL_SUFFIX:
            raise ValueError(f"a journal is JSON Lines: its name must end with {JSONL_SUFFIX}: {path}")
        if interval_s <= 0:
            raise ValueError(f"interval_s must be positive, got {interval_s}")
        self.path = path
        self.interval_s = interval_s
        path.parent.mkdir(parents=True, exist_ok=True)
        self._stream = path.open("w", encoding="utf-8")
        self._pending: list[Event] = []
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._closed = False
        self._stop = threading.Event()
        self.count = 0
        """events appended so far"""
        self._thread = threading.Thread(target=self._run, name=f"journal {path.name}", daemon=True)
        self._thread.start()

    @property
    def closed(self) -> bool:
        return self._closed

    def append(self, event: Event) -> None:
        """Queue one event (thread-safe, constant time); it is written within ``interval_s``."""
        with self._lock:
            if self._closed:
                raise ValueError(f"journal {self.path} is closed")
            self._pending.append(event)
            self.count += 1

    def flush(self) -> None:
        """Write and flush every event queued so far."""
        with self._lock:
            batch, self._pending = self._pending, []
        if not batch:
            return
        text = "".join([event.to_json() + "\n" for event in batch])
        with self._write_lock:
            if not self._stream.closed:
                self._stream.write(text)
                self._stream.flush()

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.flush()

    def close(self) -> Path:
        """Stop the thread, write what is queued and close the file (idempotent)."""
        with self._lock:
            if self._closed:
                return self.path
            self._closed = True
        self._stop.set()
        self._thread.join()
        self.flush()
        with self._write_lock:
            self._stream.close()
        return self.path
