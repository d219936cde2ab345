"""A fleet worker's producers: the open loop's state of each (:class:`ProducerState`), the hot loop that issues
its due sends (:func:`issuer`), and the stamper that turns the in-order producers' resolved sends into acks
(:func:`stamp`)."""

from __future__ import annotations

import collections
import functools
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from pytest_pulsar_ha.workload.fleet.columns import MessageColumns, key_name
from pytest_pulsar_ha.workload.fleet.config import WorkerConfig
from pytest_pulsar_ha.workload.fleet.fast_path import binding_parts, public_sender
from pytest_pulsar_ha.workload.plan import RatePace

HEAD_BYTES = 64
"""A payload starts with ``<producer>#<seq>#``: the consumer reads the sender from these first bytes."""


class ProducerState:
    """One producer's open loop state."""

    def __init__(self, index: int, name: str, handle: Any, config: WorkerConfig) -> None:
        self.index = index
        self.name = name.encode()
        self.handle = handle
        self.rng = random.Random(f"{config.seed}/{name}")
        self.keys = config.keys
        self.pad = b"." * config.message_size
        self.issued = 0
        self.resolved = 0
        self.pace = RatePace()
        self.in_order = False
        """a non-partitioned topic: the client resolves this producer's sends in the order they were issued, so
        they go into ``boxes`` and the stamper reads them (else each send has a Python callback)"""
        self.boxes: collections.deque[tuple[int, int, dict[Any, Any]]] = collections.deque()
        """(seq, key, box) of each send issued and not yet read by the stamper, oldest first"""


def issuer(
    producer: ProducerState,
    config: WorkerConfig,
    columns: MessageColumns,
    origin_ns: int,
    resolved: Callable[[ProducerState, int, int, Any, Any], None],
) -> Callable[[int, float], None]:
    """``issue(due, elapsed)``: ``producer``'s sends up to ``due`` (1-based), noted as issued at ``elapsed``
    (send ``i`` due at ``origin_ns + (i - 1) / rate``); ``resolved(producer, seq, key, result, message_id)`` is the
    callback of a send that does not resolve in order.

    The hot path: every name bound to a local, the message built with the client's own binding
    (:func:`.fast_path.binding_parts`, inlined), and, for a producer whose sends resolve in order, no Python
    callback: the client calls the ``__setitem__`` of an empty dict per send (a C function: the callback
    thread runs no Python frame, which costs the worker more than half of its time otherwise) and
    :func:`stamp` reads the boxes. A send that would exceed ``max_pending`` in flight fails at once, as the
    client's full queue would (the client's queue is never the one that is full, so it resolves every send in
    order)."""
    import pulsar

    rate = config.rate_per_second
    interval_ns = 1e9 / rate
    sends_append, errors_append = columns.rows.sends.append, columns.rows.errors.append
    time_ns, partial = time.time_ns, functools.partial
    keys = [key_name(k) for k in range(config.keys)]
    randrange, key_count = producer.rng.randrange, producer.keys
    limit = config.max_pending
    full = f"ProducerQueueIsFull ({limit} sends in flight)"
    index, name, pace, boxes_append, in_order = (
        producer.index,
        producer.name,
        producer.pace,
        producer.boxes.append,
        producer.in_order,
    )
    pad = producer.pad
    tails = [pad[n:] for n in range(HEAD_BYTES)]
    """the payload after a head of each length: no slice of the pad per send"""
    parts = binding_parts(producer.handle)
    builder: Any = None if parts is None else parts[0]
    send_async: Any = None if parts is None else parts[1]
    send: Any = public_sender(producer.handle) if parts is None else None
    failure = pulsar.PulsarException

    def issue(due: int, elapsed: float) -> None:
        first = producer.issued
        if first >= due:
            return
        pace.issued_range(first, due, elapsed, rate)
        for seq in range(first + 1, due + 1):
            key = randrange(key_count) if key_count else -1
            head = b"%s#%d#" % (name, seq)
            sends_append((time_ns(), index, seq, key, origin_ns + int((seq - 1) * interval_ns)))
            if seq - producer.resolved > limit:
                errors_append((time_ns(), index, seq, key, full))
                producer.resolved += 1
                continue
            size = len(head)
            payload = head + (tails[size] if size < HEAD_BYTES else pad[size:])
            callback: Callable[[Any, Any], None]
            if in_order:
                box: dict[Any, Any] = {}
                boxes_append((seq, key, box))
                callback = box.__setitem__
            else:
                callback = partial(resolved, producer, seq, key)
            try:
                if builder is not None:
                    message = builder()
                    message.content(payload)
                    if key >= 0:
                        message.partition_key(keys[key])
                    send_async(message.build(), callback)
                else:  # another pulsar-client release: its public method
                    send(payload, keys[key] if key >= 0 else None, callback)
            except failure as exc:
                errors_append((time_ns(), index, seq, key, str(exc)))
                producer.resolved += 1
        producer.issued = due

    return issue


def stamp(producers: list[ProducerState], columns: MessageColumns, ok: Any, stop: threading.Event) -> None:
    """Every millisecond, each in-order producer's resolved sends, oldest first, as acks or send errors
    stamped with the time they were seen (within about a millisecond of the client's callback; a send
    resolved before an older one of its producer is stamped with it). Runs until ``stop`` is set, then makes one
    last pass."""
    time_ns, sleep = time.time_ns, time.sleep
    acks_append, errors_append = columns.rows.acks.append, columns.rows.errors.append
    producers = [p for p in producers if p.in_order]
    while True:
        last = stop.is_set()
        now = time_ns()
        for producer in producers:
            boxes, index = producer.boxes, producer.index
            popleft, done = boxes.popleft, 0
            while boxes and boxes[0][2]:
                seq, key, box = popleft()
                ((result, message_id),) = box.items()
                if result == ok:  # not partitioned: partition -1
                    acks_append((now, index, seq, key, message_id.ledger_id(), message_id.entry_id(), -1))
                else:
                    errors_append((now, index, seq, key, str(result)))
                done += 1
            producer.resolved += done
        if last:
            return
        sleep(0.001)
