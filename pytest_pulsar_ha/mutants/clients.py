"""Client mutants: a consumer or producer of the real client, wrapped so that the application above it sees one
thing go wrong once a trigger fired (the provider's first switch, when ``pulsar-ha mutate`` wires them). Each
models a defect of an application or a client library:

=====================  ==========================================================================================
``drop_one``           the consumer acknowledges one message after the switch and never hands it to the
                       application (a lost message the broker considers consumed)
``twice_one``          the consumer hands one message after the switch to the application twice (a redelivery
                       the application does not deduplicate)
``swap_two``           the consumer hands two messages after the switch in the wrong order
``lose_one_ack``       the producer reports one send after the switch as acknowledged without sending it
=====================  ==========================================================================================

Each wrapper acts once, then passes everything through; everything it does not change is the real object's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class _Once:
    """Fires once, the first time it is asked after ``trigger`` is set."""

    def __init__(self, trigger: threading.Event) -> None:
        self.trigger = trigger
        self._lock = threading.Lock()
        self.done = False

    def now(self) -> bool:
        if self.done or not self.trigger.is_set():
            return False
        with self._lock:
            if self.done:
                return False
            self.done = True
            return True


class _Wrapper:
    def __init__(self, inner: Any, trigger: threading.Event) -> None:
        self._inner = inner
        self._once = _Once(trigger)

    @property
    def acted(self) -> bool:
        """Whether it changed anything yet."""
        return self._once.done

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class DroppingConsumer(_Wrapper):
    """Acknowledges the first message received after the trigger and returns the next one instead."""

    def receive(self, timeout_millis: int | None = None) -> Any:
        message = self._inner.receive(timeout_millis=timeout_millis)
        if self._once.now():
            self._inner.acknowledge(message)
            message = self._inner.receive(timeout_millis=timeout_millis)
        return message


class DuplicatingConsumer(_Wrapper):
    """Returns the first message received after the trigger twice."""

    def __init__(self, inner: Any, trigger: threading.Event) -> None:
        super().__init__(inner, trigger)
        self._again: Any = None

    def receive(self, timeout_millis: int | None = None) -> Any:
        if self._again is not None:
            message, self._again = self._again, None
            return message
        message = self._inner.receive(timeout_millis=timeout_millis)
        if self._once.now():
            self._again = message
        return message


class SwappingConsumer(_Wrapper):
    """Holds the first message received after the trigger and returns the next one before it."""

    def __init__(self, inner: Any, trigger: threading.Event) -> None:
        super().__init__(inner, trigger)
        self._held: Any = None

    def receive(self, timeout_millis: int | None = None) -> Any:
        if self._held is not None:
            message, self._held = self._held, None
            return message
        message = self._inner.receive(timeout_millis=timeout_millis)
        if self._once.now():
            self._held = message
            return self._inner.receive(timeout_millis=timeout_millis)
        return message


class FakeMessageId:
    """The id a mutant producer reports for a send it never made (no cluster stored it anywhere)."""

    def ledger_id(self) -> int:
        return -1

    def entry_id(self) -> int:
        return -1

    def partition(self) -> int:
        return -1


class AckLosingProducer(_Wrapper):
    """Reports the first send after the trigger as acknowledged (result ``Ok``) without sending it."""

    def send_async(self, content: bytes, callback: Callable[[Any, Any], None], *args: Any, **kwargs: Any) -> None:
        if self._once.now():
            import pulsar

            callback(pulsar.Result.Ok, FakeMessageId())
            return
        self._inner.send_async(content, callback, *args, **kwargs)


@dataclass(frozen=True)
class ClientMutant:
    name: str
    models: str
    wraps: str
    """``consumer`` or ``producer``"""
    wrap: Callable[[Any, threading.Event], Any]
    seen_by: tuple[str, ...]
    """The expectation kinds able to see it: only their failure (on evidence) kills it."""
    figure: str
    """The figure of that expectation each of its acts adds one to at most: a failure beyond that is not its
    doing."""


CLIENT_MUTANTS: dict[str, ClientMutant] = {
    m.name: m
    for m in (
        ClientMutant(
            "drop_one",
            "a consumer that loses one message after the switch",
            "consumer",
            DroppingConsumer,
            ("no_loss",),
            "lost",
        ),
        ClientMutant(
            "twice_one",
            "a consumer that delivers one message twice",
            "consumer",
            DuplicatingConsumer,
            ("max_duplicates",),
            "duplicates",
        ),
        ClientMutant(
            "swap_two",
            "a consumer that delivers two messages out of order",
            "consumer",
            SwappingConsumer,
            ("ordering",),
            "reorders",
        ),
        ClientMutant(
            "lose_one_ack",
            "a producer that loses one acknowledged send",
            "producer",
            AckLosingProducer,
            ("no_loss",),
            "lost",
        ),
    )
}
