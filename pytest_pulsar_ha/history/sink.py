"""The one sink of a run's events: every producer of events (workload, nemesis, providers, watchers) adds
through it as events happen; each event is kept in memory and appended at once to the journal file."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

from .events import Event
from .writer import HistoryWriter


@dataclass
class EventLog:
    """A thread-safe list of history events (kept in memory: scenario histories are small), each also appended
    to ``journal`` as it happens when one is given: a run killed at any point leaves its history up to then."""

    events: list[Event] = field(default_factory=list)
    journal: HistoryWriter | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, event: Event) -> Event:
        with self._lock:
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
