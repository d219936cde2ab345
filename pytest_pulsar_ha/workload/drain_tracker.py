"""What the workload still waits for at the end: acknowledged sends not yet received, in memory bounded by what
is in flight (not by the length of the run), so a soak of hours can drain like a scenario of seconds.

Each producer's sends are numbered 1, 2, 3, ... and each one resolves exactly once (acknowledged or failed).
The tracker keeps per producer a watermark below which every send resolved, the resolved sends above it, the
acknowledged sends not yet received and the receipts that came before their acknowledgement. A receipt of a
resolved send that is not outstanding (a duplicate, or a failed send the broker stored anyway) is forgotten.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
