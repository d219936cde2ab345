"""The decision logic of AutoClusterFailover, free of threads, clocks and sockets (so it is unit-tested).

Each tick gets the health of every endpoint (index 0 is the primary, then the secondaries in order) at time
``now`` (seconds) and answers with the index to switch to, or None.

* On the primary: once it has failed continuously for ``failover_delay`` (from its first failed probe), switch
  to the first healthy secondary in order; if none is healthy, stay and try again next tick.
* On a secondary: once the primary has been healthy continuously for ``switch_back_delay``, switch back; a
  failed primary probe restarts that clock (a flapping primary never switches back early).
* On a secondary that has itself failed continuously for ``failover_delay`` while the primary is still down,
  move to the next healthy secondary (in order, after the current one, wrapping around).

Deciding and recording are separate: :meth:`FailoverPolicy.tick` only decides; the caller hands the decision to
the client and calls :meth:`FailoverPolicy.commit` once the client took it. A switch the client refused is
therefore decided again on the next tick.

Timing: ``now`` is the tick's *scheduled* time (the provider's loop passes it), so a slow probe does not make a
failure look younger than it is. A delay counts as elapsed at ``elapsed >= delay - tolerance``: ticks every
0.5 s with a 2 s delay switch on the 5th failing tick, exactly 2 s after the first one, even when float
accumulation or clock jitter puts that tick at 1.9999999 s or 1.9995 s. ``tolerance`` (default 10 ms, and the
provider caps it at a quarter of its check interval) is the most a switch can come before the delay has fully
elapsed; without it, such a tick would wait a whole interval more.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_TOLERANCE_S = 0.01


@dataclass(frozen=True)
class Decision:
    target: int
    reason: str


class FailoverPolicy:
    def __init__(
        self,
        endpoints: int,
        failover_delay: float,
        switch_back_delay: float,
        *,
        tolerance: float = DEFAULT_TOLERANCE_S,
    ) -> None:
        if endpoints < 2:
            raise ValueError("failover needs a primary and at least one secondary")
        if tolerance < 0:
            raise ValueError(f"tolerance={tolerance} must not be negative")
        self.endpoints = endpoints
        self.failover_delay = failover_delay
        self.switch_back_delay = switch_back_delay
        self.tolerance = tolerance
        self.current = 0
        self._primary_down_since: float | None = None
        self._primary_up_since: float | None = None
        self._current_down_since: float | None = None

    def _elapsed(self, since: float | None, now: float, delay: float) -> bool:
        return since is not None and now - since >= delay - self.tolerance

    def tick(self, now: float, healthy: Mapping[int, bool]) -> Decision | None:
        """Record the health seen at ``now`` and decide; the decision is not recorded until :meth:`commit`."""
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
            if self._primary_down_since is None or not self._elapsed(
                self._primary_down_since, now, self.failover_delay
            ):
                return None
            down_for = now - self._primary_down_since
            return self._first_healthy(range(1, self.endpoints), healthy, f"primary down for {down_for:.1f}s")

        if self._primary_up_since is not None and self._elapsed(self._primary_up_since, now, self.switch_back_delay):
            up_for = now - self._primary_up_since
            return Decision(0, f"primary healthy for {up_for:.1f}s")

        if healthy.get(self.current, False):
            self._current_down_since = None
            return None
        if self._current_down_since is None:
            self._current_down_since = now
        down_for = now - self._current_down_since
        if primary_ok or not self._elapsed(self._current_down_since, now, self.failover_delay):
            return None
        order = [(self.current + k - 1) % (self.endpoints - 1) + 1 for k in range(1, self.endpoints - 1)]
        return self._first_healthy(order, healthy, f"active secondary down for {down_for:.1f}s, primary down")

    def commit(self, decision: Decision) -> None:
        """The client took the switch: ``decision.target`` is now the endpoint in use."""
        self.current = decision.target
        self._current_down_since = None

    def _first_healthy(
        self, candidates: range | list[int], healthy: Mapping[int, bool], reason: str
    ) -> Decision | None:
        for index in candidates:
            if healthy.get(index, False):
                return Decision(index, reason)
        return None
