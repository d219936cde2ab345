"""Events of a provider (every probe or poll, every switch) with timestamps; callers subscribe to them."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger("pulsar_ha_providers")


@dataclass(frozen=True)
class ProbeEvent:
    cluster: str
    probe: str
    ok: bool
    latency_s: float
    error: str = ""
    ts: float = field(default_factory=time.time)


@dataclass(frozen=True)
class PollEvent:
    """A ControlledClusterFailover poll of the URL provider."""

    ok: bool
    service_url: str = ""
    error: str = ""
    ts: float = field(default_factory=time.time)


@dataclass(frozen=True)
class SwitchEvent:
    from_cluster: str
    to_cluster: str
    reason: str
    ts: float = field(default_factory=time.time)


@dataclass(frozen=True)
class SwitchFailedEvent:
    """A switch the provider decided but the client did not take (its update callback raised).

    The provider keeps its previous cluster as the one in use and tries again on the next check or poll.
    """

    from_cluster: str
    to_cluster: str
    reason: str
    error: str
    ts: float = field(default_factory=time.time)


Event = ProbeEvent | PollEvent | SwitchEvent | SwitchFailedEvent
Listener = Callable[[Event], None]


class EventHub:
    """Keeps the last ``capacity`` events and calls every subscriber for each new one (errors are logged)."""

    def __init__(self, capacity: int = 10_000) -> None:
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()
        self.recent: deque[Event] = deque(maxlen=capacity)

    def subscribe(self, listener: Listener, *, replay: bool = False) -> Callable[[], None]:
        """Call ``listener(event)`` for every future event (and first, with ``replay``, for every event still kept
        in :attr:`recent`: none is missed or given twice); returns a function that unsubscribes."""
        with self._lock:
            self._listeners.append(listener)
            past = list(self.recent) if replay else []
        for event in past:
            try:
                listener(event)
            except Exception:
                log.exception("an event subscriber failed on %r", event)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def publish(self, event: Event) -> None:
        with self._lock:
            self.recent.append(event)
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:
                log.exception("an event subscriber failed on %r", event)

    def switches(self) -> list[SwitchEvent]:
        with self._lock:
            return [e for e in self.recent if isinstance(e, SwitchEvent)]
