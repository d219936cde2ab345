"""Where a run's time went: wall seconds per phase (the steady-state checks, each part's steps, the workload's
own duration, sealing the history, the checks), kept in the result and written to ``verdict.json`` as
``phases``, for the benchmark that asks why one Pulsar release's cases take longer than another's."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class PhaseClock:
    """Adds each timed block's wall seconds to ``into`` under its name (a name timed twice adds up), in the order
    the names were first timed; a block under a millisecond is left out (most parts do nothing at most steps)."""

    def __init__(self, into: dict[str, float]) -> None:
        self.into = into

    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        began = time.monotonic()
        try:
            yield
        finally:
            took = round(self.into.get(name, 0.0) + time.monotonic() - began, 3)
            if took >= 0.001:
                self.into[name] = took


def part_name(part: object) -> str:
    """A part's name in the phases: its class name, e.g. ``NemesisPart``."""
    return type(part).__name__
