"""The lifecycle both providers share: a background loop that calls ``tick()`` every interval.

It also works around a pulsar-client 3.13 binding issue: the C++ wrapper calls ``close()`` with the GIL held,
but drops its reference to the provider after releasing the GIL. If that were the last reference, the provider
would be freed without the GIL and the interpreter would abort ("PyThreadState_Get: the function must be called
with the GIL held"). So a provider in use keeps itself alive until a moment after ``close()``.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any

import pulsar

log = logging.getLogger("pulsar_ha_providers")

_IN_USE: set[PeriodicProvider] = set()
_IN_USE_LOCK = threading.Lock()


def _release(provider: PeriodicProvider) -> None:
    with _IN_USE_LOCK:
        _IN_USE.discard(provider)


class PeriodicProvider(pulsar.ServiceInfoProvider):  # type: ignore[misc]
    """Subclasses set ``interval`` and implement ``initial_service_info`` and ``tick``.

    The loop calls ``tick(scheduled_at)`` with the tick's scheduled ``time.monotonic()`` time: the moment the
    tick stands for, whatever the thread's wake-up delay or the time the tick itself takes. Ticks fall on the
    multiples of ``interval`` of ``time.monotonic()`` (a tick that overran skips the moments it missed), so
    whoever runs the provider knows when it checks: ``tick_grid`` says it, and a test harness can start a fault
    at a known distance from the next check.
    """

    interval: float
    thread_name = "pulsar-ha-provider"

    def __init__(self) -> None:
        super().__init__()
        self._update: Callable[[Any], None] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __hash__(self) -> int:
        return id(self)

    def tick(self, scheduled_at: float | None = None) -> None:
        raise NotImplementedError

    @property
    def tick_grid(self) -> tuple[float, float]:
        """(origin, interval) of the moments the loop ticks, on ``time.monotonic()``."""
        return 0.0, self.interval

    def _next_tick(self, after: float) -> float:
        return (math.floor(after / self.interval + 1e-9) + 1) * self.interval

    def switch(self, service_info: Any) -> None:
        """Hand the client a new ``pulsar.ServiceInfo`` (the client reconnects everything to it).

        Raises whatever the client's update callback raises: the caller must not record the switch then.
        """
        if self._update is not None:
            self._update(service_info)

    def initialize(self, on_service_info_update: Callable[[Any], None]) -> None:
        self._update = on_service_info_update
        with _IN_USE_LOCK:
            _IN_USE.add(self)
        self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop the loop; called by the client when it is closed (or by hand)."""
        self._stop.set()
        timer = threading.Timer(1.0, _release, (self,))
        timer.daemon = True
        timer.start()

    def _run(self) -> None:
        next_tick = self._next_tick(time.monotonic())
        while not self._stop.wait(max(0.0, next_tick - time.monotonic())):
            try:
                self.tick(next_tick)
            except Exception:
                log.exception("%s: an iteration failed; continuing", self.thread_name)
            next_tick = self._next_tick(max(next_tick, time.monotonic()))
