"""What the workload still waits for at the end: acknowledged sends not yet received, in memory bounded by what
is in flight (not by the length of the run), so a soak of hours can drain like a scenario of seconds.

Each producer's sends are numbered 1, 2, 3, ... and each one resolves exactly once (acknowledged or failed).
The tracker keeps per producer a watermark below which every send resolved, the resolved sends above it, the
acknowledged sends not yet received and the receipts that came before their acknowledgement. A receipt of a
resolved send that is not outstanding (a duplicate, or a failed send the broker stored anyway) is forgotten.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class _Producer:
    watermark: int = 0
    """every send with a number <= watermark resolved"""
    resolved_above: set[int] = field(default_factory=set)
    outstanding: set[int] = field(default_factory=set)
    """acknowledged, not yet received"""
    early: set[int] = field(default_factory=set)
    """received before its acknowledgement came"""

    def is_resolved(self, seq: int) -> bool:
        return seq <= self.watermark or seq in self.resolved_above

    def resolve(self, seq: int) -> None:
        self.resolved_above.add(seq)
        while self.watermark + 1 in self.resolved_above:
            self.watermark += 1
            self.resolved_above.discard(self.watermark)


class DrainTracker:
    """Not thread-safe: the workload calls it under its own lock."""

    def __init__(self) -> None:
        self._producers: dict[str, _Producer] = {}

    def _of(self, producer: str) -> _Producer:
        state = self._producers.get(producer)
        if state is None:
            state = self._producers[producer] = _Producer()
        return state

    def acknowledged(self, producer: str, seq: int) -> None:
        state = self._of(producer)
        state.resolve(seq)
        if seq in state.early:
            state.early.discard(seq)
        else:
            state.outstanding.add(seq)

    def failed(self, producer: str, seq: int) -> None:
        state = self._of(producer)
        state.resolve(seq)
        state.early.discard(seq)

    def received(self, producer: str, seq: int) -> None:
        state = self._of(producer)
        if seq in state.outstanding:
            state.outstanding.discard(seq)
        elif not state.is_resolved(seq):
            state.early.add(seq)

    def all_received(self) -> bool:
        """Every acknowledged send was received at least once."""
        return not any(state.outstanding for state in self._producers.values())

    def held(self) -> int:
        """How many numbers the tracker holds (what bounds its memory)."""
        return sum(len(s.resolved_above) + len(s.outstanding) + len(s.early) + 1 for s in self._producers.values())


def wait_drained(lock: Any, tracker: DrainTracker | BulkDrainTracker, timeout_s: float) -> bool:
    """Wait (checking every 0.2 s under ``lock``) until ``tracker`` has every acknowledged send received, or
    ``timeout_s`` has passed; whether it has."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with lock:
            if tracker.all_received():
                return True
        time.sleep(0.2)
    return False


class BulkDrainTracker:
    """:class:`DrainTracker`'s rules applied to whole arrays of sequence numbers at once (NumPy), for a fleet whose
    workers report what resolved and arrived since their last report: the same answers as feeding the numbers
    one by one (a report holds one kind of outcome; within it the order does not matter), in memory bounded by
    what is in flight. Not thread-safe: the fleet calls it under its own lock."""

    def __init__(self) -> None:
        self._producers: dict[str, _Arrays] = {}

    def _of(self, producer: str) -> _Arrays:
        state = self._producers.get(producer)
        if state is None:
            state = self._producers[producer] = _Arrays()
        return state

    def acknowledged(self, producer: str, seqs: Any) -> None:
        import numpy as np

        state = self._of(producer)
        acked = np.unique(np.asarray(seqs, dtype=np.int64))
        state.resolve(acked)
        came_early = np.intersect1d(acked, state.early, assume_unique=True)
        state.early = np.setdiff1d(state.early, came_early, assume_unique=True)
        state.outstanding = np.union1d(state.outstanding, np.setdiff1d(acked, came_early, assume_unique=True))

    def failed(self, producer: str, seqs: Any) -> None:
        import numpy as np

        state = self._of(producer)
        failed = np.unique(np.asarray(seqs, dtype=np.int64))
        state.resolve(failed)
        state.early = np.setdiff1d(state.early, failed, assume_unique=True)

    def received(self, producer: str, seqs: Any) -> None:
        import numpy as np

        state = self._of(producer)
        received = np.unique(np.asarray(seqs, dtype=np.int64))
        awaited = np.intersect1d(received, state.outstanding, assume_unique=True)
        state.outstanding = np.setdiff1d(state.outstanding, awaited, assume_unique=True)
        rest = np.setdiff1d(received, awaited, assume_unique=True)
        unresolved = rest[(rest > state.watermark) & ~np.isin(rest, state.resolved_above)]
        state.early = np.union1d(state.early, unresolved)

    def all_received(self) -> bool:
        return not any(len(state.outstanding) for state in self._producers.values())

    def held(self) -> int:
        return sum(len(s.resolved_above) + len(s.outstanding) + len(s.early) + 1 for s in self._producers.values())


class _Arrays:
    """One producer's state in :class:`BulkDrainTracker`: sorted unique arrays."""

    def __init__(self) -> None:
        import numpy as np

        self.watermark = 0
        self.resolved_above = np.empty(0, dtype=np.int64)
        self.outstanding = np.empty(0, dtype=np.int64)
        self.early = np.empty(0, dtype=np.int64)

    def resolve(self, seqs: Any) -> None:
        import numpy as np

        above = np.union1d(self.resolved_above, seqs[seqs > self.watermark])
        gaps = np.flatnonzero(above != self.watermark + 1 + np.arange(len(above)))
        advance = int(gaps[0]) if len(gaps) else len(above)
        self.watermark += advance
        self.resolved_above = above[advance:]
