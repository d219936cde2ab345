"""The fleet's hot path through the Pulsar client's own binding.

``pulsar.Producer.send_async`` checks the type of ten arguments, encodes through the schema object and builds the
message in Python before it calls the C++ producer; ``pulsar.Consumer.receive`` wraps every message in a Python
object. At tens of thousands of messages a second that is a large share of a worker's time, so a fleet builds
its bytes messages with the binding's ``MessageBuilder`` and calls the C++ producer's ``send_async`` (and the
C++ consumer's ``receive`` and ``acknowledge``) itself: the same client, the same calls the wrapper ends in.
Where the binding does not look as expected (another pulsar-client release), the public methods are used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Send = Callable[[bytes, str | None, Callable[[Any, Any], None]], None]


def binding_parts(producer: Any) -> tuple[Any, Any] | None:
    """(the binding's ``MessageBuilder`` class, the C++ producer's ``send_async``) of a ``pulsar.Producer``, for a
    hot loop to build and send with inline (no Python frame per send); None where the binding does not look as
    expected: then :func:`public_sender`."""
    inner = getattr(producer, "_producer", None)
    try:
        import _pulsar  # type: ignore[import-not-found, unused-ignore]

        builder = _pulsar.MessageBuilder
    except (ImportError, AttributeError):
        return None
    if inner is None or not hasattr(inner, "send_async"):
        return None
    return builder, inner.send_async


def public_sender(producer: Any) -> Send:
    """``send(payload, partition_key or None, callback)`` through ``pulsar.Producer.send_async`` (bytes schema)."""

    def send(payload: bytes, key: str | None, callback: Callable[[Any, Any], None]) -> None:
        if key is None:
            producer.send_async(payload, callback)
        else:
            producer.send_async(payload, callback, partition_key=key)

    return send


def receiver(consumer: Any) -> tuple[Callable[[int], Any], Callable[[Any], None]]:
    """``receive(timeout_ms)`` and ``acknowledge(message)`` for a ``pulsar.Consumer``; the messages have
    ``data()``, ``message_id()``, ``topic_name()`` and ``partition_key()`` either way."""
    inner = getattr(consumer, "_consumer", None)
    if inner is None or not hasattr(inner, "receive") or not hasattr(inner, "acknowledge"):
        return (lambda timeout_ms: consumer.receive(timeout_millis=timeout_ms)), consumer.acknowledge
    return inner.receive, inner.acknowledge
