"""Small client-side helpers for tests against the real clusters (pulsar is imported by the tests only)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pulsar


def send_until_acked(producer: Any, payload: bytes, deadline_seconds: float) -> float:
    """Send ``payload`` until one send is acknowledged; return the seconds it took. Fails after the deadline."""
    began = time.monotonic()
    last: Exception | None = None
    while time.monotonic() - began < deadline_seconds:
        try:
            producer.send(payload)
            return time.monotonic() - began
        except pulsar.PulsarException as exc:
            last = exc
            time.sleep(0.2)
    raise AssertionError(f"no send acknowledged within {deadline_seconds}s; last error: {last!r}")


def receive_payloads(consumer: Any, wanted: Callable[[set[bytes]], bool], timeout_seconds: float) -> set[bytes]:
    """Receive (and acknowledge) until ``wanted(seen)`` holds or the time is up; return what was seen."""
    seen: set[bytes] = set()
    deadline = time.monotonic() + timeout_seconds
    while not wanted(seen):
        remaining = int((deadline - time.monotonic()) * 1000)
        if remaining <= 0:
            break
        try:
            message = consumer.receive(timeout_millis=min(remaining, 2000))
        except pulsar.Timeout:
            continue
        consumer.acknowledge(message)
        seen.add(message.data())
    return seen
