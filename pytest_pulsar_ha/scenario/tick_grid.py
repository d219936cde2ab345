"""The moments a provider checks its clusters, and the fault times pinned between them.

A provider checks on a grid: ``origin + k * interval`` on ``time.monotonic()``. When a fault starts at a random
moment of that grid, the first check that sees it comes anywhere from 0 to one interval later, so a switch
window measured from the fault has to be one interval wide, and a provider one interval late can land inside it.
The nemesis therefore starts (or ends) the fault a switch window is measured from half an interval before a
check: the provider's switch time is then fixed, the window is as narrow as the client's reconnect time, and a
provider one interval late (or early) falls outside it whatever the schedule said.

The grid is known by construction, not reported by the provider: our providers check on multiples of their
interval (``origin`` 0); the native one and Java's start their first check one interval after the client is
built, which the runner (or the Java driver) notes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

PIN_PHASE = 0.5
"""Where in an interval a pinned fault starts or ends: half an interval before the next check."""


@dataclass(frozen=True)
class TickGrid:
    origin_s: float  # a check moment, on time.monotonic()
    interval_s: float

    def __post_init__(self) -> None:
        if not self.interval_s > 0:
            raise ValueError(f"a tick grid needs a positive interval, not {self.interval_s!r}")

    def pin(self, t: float) -> float:
        """The first moment at or after ``t`` that lies half an interval before a check."""
        k = math.ceil((t - self.origin_s) / self.interval_s - PIN_PHASE - 1e-9)
        return self.origin_s + (k + PIN_PHASE) * self.interval_s

    def next_tick(self, t: float) -> float:
        """The first check strictly after ``t``."""
        return self.origin_s + (math.floor((t - self.origin_s) / self.interval_s + 1e-9) + 1) * self.interval_s
