"""The one sink of a run's events: every producer of events (workload, nemesis, providers, watchers) adds
through it as events happen; each event is kept in memory and appended at once to the journal file."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from .events import Event


class Journal(Protocol):
    """Where a log appends every event as it happens (a :class:`~.writer.HistoryWriter`, or
    :class:`~.segments.ParquetSegments` for a soak)."""

    @property
    def closed(self) -> bool: ...

    def append(self, event: Event) -> None: ...


@dataclass
class EventLog:
    """A thread-safe list of history events (kept in memory: scenario histories are small), each also appended
    to ``journal`` as it happens when one is given: a run killed at any point leaves its history up to then."""

    events: list[Event] = field(default_factory=list)
    journal: Journal | None = None
    retain: Callable[[Event], bool] | None = None
    """Which events stay in memory (default: all). A soak keeps only the few a run steers by (faults,
    switches) and streams the rest to the journal: memory is bounded by the journal's buffer, not the run."""
    count: int = 0
    """Every event added, kept in memory or not."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.retain is not None and self.journal is None:
            raise ValueError("an EventLog that keeps only some events needs a journal for the others")

    def add(self, event: Event) -> Event:
        with self._lock:
            self.count += 1
            if self.retain is None or self.retain(event):
                self.events.append(event)
            if self.journal is not None and not self.journal.closed:
                self.journal.append(event)
        return event

    def snapshot(self) -> list[Event]:
        with self._lock:
            return list(self.events)

    def replace_all(self, pairs: Iterable[tuple[Event, Event]]) -> None:
        """Replace each ``old`` (this very object, not an equal one) by its ``new``, in one pass."""
        with self._lock:
            where = {id(event): i for i, event in enumerate(self.events)}
            for old, new in pairs:
                self.events[where[id(old)]] = new
