"""After the route check's cut, sends are retried until one is acknowledged or the deadline passes (a fake
producer: pure logic; the real check runs in test_external_backend.py)."""

from __future__ import annotations

import pulsar

from pytest_pulsar_ha.runtime.external.environment import send_until_acked


class Producer:
    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.sent = 0

    def send(self, payload: bytes) -> None:
        self.sent += 1
        if self.sent <= self.failures:
            raise pulsar.Timeout("Pulsar error: TimeOut")


def test_a_send_that_times_out_while_the_producer_reconnects_is_retried() -> None:
    producer = Producer(failures=2)
    assert send_until_acked(producer, deadline=30.0, clock=lambda: 0.0) is None
    assert producer.sent == 3


def test_past_the_deadline_the_sends_are_described() -> None:
    now = iter([10.0, 20.0, 31.0])
    producer = Producer(failures=100)
    found = send_until_acked(producer, deadline=30.0, clock=lambda: next(now))
    assert found == "3 attempts, the last: Pulsar error: TimeOut"


def test_an_error_other_than_pulsars_is_not_swallowed() -> None:
    class Broken:
        def send(self, payload: bytes) -> None:
            raise ValueError("not a Pulsar error")

    try:
        send_until_acked(Broken(), deadline=30.0, clock=lambda: 0.0)
    except ValueError:
        pass
    else:
        raise AssertionError("a non-Pulsar error must propagate")
