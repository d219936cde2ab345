"""The decision logic of AutoClusterFailover, free of threads, clocks and sockets (so it is unit-tested).

Each tick gets the health of every endpoint (index 0 is the primary, then the secondaries in order) at time
``now`` (seconds) and answers with the index to switch to, or None.

* On the primary: once it has failed continuously for ``failover_delay`` (from its first failed probe), switch
  to the first healthy secondary in order; if none is healthy, stay and try again next tick.
* On a secondary: once the primary has been healthy continuously for ``switch_back_delay``, switch back; a
  failed primary probe restarts that clock (a flapping primary never switches back early).
* On a secondary that has itself failed continuously for ``failover_delay`` while the primary is still down,
  move to the next healthy secondary (in order, after the current one, wrapping around).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Decision:
    target: int
    reason: str


class FailoverPolicy:
    def __init__(self, endpoints: int, failover_delay: float, switch_back_delay: float) -> None:
        if endpoints < 2:
            raise ValueError("failover needs a primary and at least one secondary")
        self.endpoints = endpoints
        self.failover_delay = failover_delay
        self.switch_back_delay = switch_back_delay
        self.current = 0
        self._primary_down_since: float | None = None
        self._primary_up_since: float | None = None
        self._current_down_since: float | None = None

    def tick(self, now: float, healthy: Mapping[int, bool]) -> Decision | None:
        primary_ok = healthy.get(0, False)
        if primary_ok:
            self._primary_down_since = None
            if self._primary_up_since is None:
                self._primary_up_since = now
        else:
            self._primary_up_since = None
            if self._primary_down_since is None:
                self._primary_down_since = now

        if self.current == 0:
            if self._primary_down_since is None or now - self._primary_down_since < self.failover_delay:
                return None
            down_for = now - self._primary_down_since
            return self._first_healthy(range(1, self.endpoints), healthy, f"primary down for {down_for:.1f}s")

        if self._primary_up_since is not None and now - self._primary_up_since >= self.switch_back_delay:
            up_for = now - self._primary_up_since
            return self._switch(0, f"primary healthy for {up_for:.1f}s")

        if healthy.get(self.current, False):
            self._current_down_since = None
            return None
        if self._current_down_since is None:
            self._current_down_since = now
        down_for = now - self._current_down_since
        if down_for < self.failover_delay or primary_ok:
            return None
        order = [(self.current + k - 1) % (self.endpoints - 1) + 1 for k in range(1, self.endpoints - 1)]
        return self._first_healthy(order, healthy, f"active secondary down for {down_for:.1f}s, primary down")

    def _first_healthy(
        self, candidates: range | list[int], healthy: Mapping[int, bool], reason: str
    ) -> Decision | None:
        for index in candidates:
            if healthy.get(index, False):
                return self._switch(index, reason)
        return None

    def _switch(self, target: int, reason: str) -> Decision:
        self.current = target
        self._current_down_since = None
        return Decision(target, reason)
