"""The client mutants' wrappers on a stand-in consumer and producer (the pure part: what the application above
them sees); each acts once, only after its trigger, and passes everything else through."""

from __future__ import annotations

import threading
from typing import Any

import pulsar

from pytest_pulsar_ha.mutants.clients import CLIENT_MUTANTS, FakeMessageId


class Consumer:
    def __init__(self, count: int) -> None:
        self.queue = list(range(1, count + 1))
        self.acked: list[int] = []

    def receive(self, timeout_millis: int | None = None) -> int:
        return self.queue.pop(0)

    def acknowledge(self, message: int) -> None:
        self.acked.append(message)

    def topic(self) -> str:  # anything else is the real object's
        return "persistent://t/ns/x"


def _seen(mutant: str, fire_after: int, count: int = 8) -> tuple[list[int], Consumer]:
    inner, trigger = Consumer(count), threading.Event()
    wrapped = CLIENT_MUTANTS[mutant].wrap(inner, trigger)
    seen = []
    while inner.queue or getattr(wrapped, "_held", None) or getattr(wrapped, "_again", None):
        if len(seen) == fire_after:
            trigger.set()
        seen.append(wrapped.receive(timeout_millis=100))
    assert wrapped.topic() == "persistent://t/ns/x"
    return seen, inner


def test_drop_one_acknowledges_one_message_the_application_never_sees() -> None:
    seen, inner = _seen("drop_one", fire_after=3)
    assert seen == [1, 2, 3, 5, 6, 7, 8] and inner.acked == [4]


def test_twice_one_hands_one_message_over_twice() -> None:
    seen, _ = _seen("twice_one", fire_after=3)
    assert seen == [1, 2, 3, 4, 4, 5, 6, 7, 8]


def test_swap_two_hands_two_messages_over_in_the_wrong_order() -> None:
    seen, _ = _seen("swap_two", fire_after=3)
    assert seen == [1, 2, 3, 5, 4, 6, 7, 8]


def test_without_the_trigger_nothing_changes() -> None:
    for name in ("drop_one", "twice_one", "swap_two"):
        seen, _ = _seen(name, fire_after=100)
        assert seen == list(range(1, 9)), name


class Producer:
    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def send_async(self, content: bytes, callback: Any, **kwargs: Any) -> None:
        self.sent.append(content)
        callback(pulsar.Result.Ok, "a real id")


def test_lose_one_ack_reports_one_send_acknowledged_that_it_never_made() -> None:
    inner, trigger = Producer(), threading.Event()
    wrapped = CLIENT_MUTANTS["lose_one_ack"].wrap(inner, trigger)
    results: list[tuple[Any, Any]] = []
    for index in range(4):
        if index == 1:
            trigger.set()
        wrapped.send_async(f"m{index}".encode(), lambda r, i: results.append((r, i)), properties={})
    assert inner.sent == [b"m0", b"m2", b"m3"]
    assert [r for r, _ in results] == [pulsar.Result.Ok] * 4
    assert isinstance(results[1][1], FakeMessageId) and results[1][1].ledger_id() == -1


def test_a_wrapper_says_whether_it_acted() -> None:
    inner, trigger = Consumer(4), threading.Event()
    wrapped = CLIENT_MUTANTS["twice_one"].wrap(inner, trigger)
    wrapped.receive()
    assert not wrapped.acted  # no trigger yet: the shipped behaviour
    trigger.set()
    wrapped.receive()
    assert wrapped.acted
