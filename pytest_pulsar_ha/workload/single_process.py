"""The single-process workload (Jepsen's client): the Python client's producers and consumers, in this process,
recording every send, ack and receive. The plan it runs is :mod:`pytest_pulsar_ha.workload.plan`'s; the other
client kinds are the fleet (:mod:`pytest_pulsar_ha.workload.fleet`, the same rows from worker processes) and the
Java driver (:mod:`pytest_pulsar_ha.workload.java_workload`).

Producers send at a fixed rate with per-producer sequence numbers (and keys when asked); consumers receive and
acknowledge. Every operation becomes a history event; the cluster that acknowledged a send is filled in
afterwards from the brokers' storage (:mod:`pytest_pulsar_ha.workload.storage_lookup`), never from the client.
"""

from __future__ import annotations

import contextlib
import functools
import math
import random
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.history import ACK, RECEIVE, SEND, SEND_ERROR, Event, EventLog, now_ns
from pytest_pulsar_ha.runtime.ledger_owners import seeded_owner
from pytest_pulsar_ha.workload.attribution import attribute_log
from pytest_pulsar_ha.workload.client_setup import create_with_retries
from pytest_pulsar_ha.workload.closing import close_within
from pytest_pulsar_ha.workload.drain_tracker import DrainTracker, wait_drained
from pytest_pulsar_ha.workload.plan import LATE_S, LATE_SHARE, SUBSCRIPTION_TYPES, RatePace, WorkloadPlan, max_pending


def _message_id(message_id: Any) -> str:
    """``ledger:entry:partition`` of a client message id (the history's form, for acks and receives alike)."""
    return f"{message_id.ledger_id()}:{message_id.entry_id()}:{message_id.partition()}"


_OK = 0
"""``int(pulsar.Result.Ok)``: a send callback's result compared as a number (comparing the client's enum objects
costs a few microseconds per send)."""
PASS_SENDS = 256
"""At most this many due sends are issued in one pass of a producer's loop before it reads the clock again."""


def _as_is(handle: Any) -> Any:
    return handle


class SingleProcessWorkload:
    """The Python client in this process: the producers and consumers of a :class:`WorkloadPlan` on a client
    (consumers on ``consumer_client`` when given, e.g. another cluster's), every operation recorded in ``log``."""

    def __init__(
        self,
        client: Any,
        plan: WorkloadPlan,
        log: EventLog,
        consumer_client: Any = None,
        *,
        wrap_consumer: Callable[[Any], Any] | None = None,
        wrap_producer: Callable[[Any], Any] | None = None,
        seeded: Mapping[int, str] | None = None,
    ) -> None:
        self.client = client
        self._seeded = dict(seeded or {})
        """high 32 bits of a ledger id -> the cluster seeded with them: an ack's or a receipt's cluster as it is
        recorded (a soak's history, streamed, is never attributed afterwards)"""
        self._wrap_consumer = wrap_consumer or _as_is
        self._wrap_producer = wrap_producer or _as_is
        self.consumer_client = consumer_client or client
        self.plan = plan
        self.log = log
        self._stop_sending = threading.Event()
        self._stop_receiving = threading.Event()
        self._threads: list[threading.Thread] = []
        self._producer_threads: list[threading.Thread] = []
        self._drain = DrainTracker()  # bounded by what is in flight, not by the length of the run
        self._lock = threading.Lock()
        self._consumers: list[Any] = []
        self._producers: list[Any] = []
        self.hung_closes: list[str] = []
        """producers and consumers whose close() never returned (abandoned, see :mod:`.closing`)"""
        self.callback_errors: list[str] = []
        """what went wrong inside the client's send callbacks (never raised there)"""
        self._pace: dict[str, RatePace] = {}
        """each producer's sends and how late the loop issued them (the workload's own lag, not the cluster's)"""

    # -- set-up ----------------------------------------------------------------------------------------

    def start(self) -> None:
        import pulsar

        plan = self.plan
        sub_type = getattr(pulsar.ConsumerType, SUBSCRIPTION_TYPES[plan.subscription_type])
        for topic in plan.topics:
            for index, name in enumerate(plan.subscription_names()):
                if plan.consume == "reader":
                    start = (
                        pulsar.MessageId.earliest if plan.initial_position == "earliest" else pulsar.MessageId.latest
                    )
                    create = functools.partial(self.consumer_client.create_reader, topic, start, reader_name=name)
                else:
                    create = functools.partial(
                        self.consumer_client.subscribe,
                        topic,
                        name,
                        consumer_type=sub_type,
                        consumer_name=f"consumer-{index}",
                        replicate_subscription_state_enabled=plan.replicated_subscriptions,
                        initial_position=getattr(pulsar.InitialPosition, plan.initial_position.capitalize()),
                    )
                consumer = self._wrap_consumer(create_with_retries(create))
                self._consumers.append(consumer)
                self._spawn(self._consume, consumer, f"consumer-{index}", name)
        batching = plan.batching_options()
        if plan.batching and plan.batching_type == "key_based":
            batching["batching_type"] = pulsar.BatchingType.KeyBased
        for topic in plan.topics:
            for _ in range(plan.producers):
                name = f"producer-{len(self._producers)}"
                producer = create_with_retries(
                    functools.partial(
                        self.client.create_producer,
                        topic,
                        send_timeout_millis=plan.send_timeout_ms,
                        max_pending_messages=max_pending(plan.rate_per_second),
                        **batching,
                        **plan.producer_options(name),
                    )
                )
                producer = self._wrap_producer(producer)
                self._producers.append(producer)
                thread = self._spawn(self._produce, producer, topic, name)
                self._producer_threads.append(thread)

    def _spawn(self, target: Callable[..., None], *args: Any) -> threading.Thread:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()
        return thread

    # -- the client operations -------------------------------------------------------------------------

    def _produce(self, producer: Any, topic: str, name: str) -> None:
        """Open loop: send ``i`` is issued at its intended time ``start + i / rate`` whether or not earlier sends
        were acknowledged (``send_async``), so a stuck cluster cannot slow the offered load down and hide its
        own unavailability (coordinated omission). The intended time is in each send's ``detail``.

        Each pass issues every send that is due (at most :data:`PASS_SENDS`), then sleeps until the next one is
        due: one clock read and one wait per pass, not per send, so the loop keeps thousands of sends a second."""
        import pulsar

        plan = self.plan
        rng = random.Random(f"{plan.seed}/{name}")
        rate = plan.rate_per_second
        interval = 1.0 / rate
        origin_mono, origin_ns = time.monotonic(), now_ns()
        pace = self._pace[name] = RatePace()
        stop, add, send_async, sent = self._stop_sending, self.log.add, producer.send_async, self._sent
        keys, size = plan.keys, plan.message_size
        sequenced = plan.deduplication  # the seq is the message's sequence id, on whichever cluster it goes to
        issued = 0  # sends issued so far: send i (0-based) carries seq i + 1 and is due at i / rate
        while not stop.is_set():
            elapsed = time.monotonic() - origin_mono
            due = min(math.floor(elapsed * rate) + 1, issued + PASS_SENDS)
            if due <= issued:
                stop.wait(issued * interval - elapsed)
                continue
            pace.issued_range(issued, due, elapsed, rate)
            for index in range(issued, due):
                seq = index + 1
                key = f"k{rng.randrange(keys)}" if keys else None
                body = f"{name}#{seq}#".encode()
                payload = body + b"." * (size - len(body)) if size > len(body) else body
                detail = f'{{"intended_ns": {origin_ns + int(index * interval * 1e9)}}}'
                add(Event(now_ns(), SEND, name, topic=topic, producer=name, seq=seq, key=key, detail=detail))
                done = functools.partial(sent, name, topic, seq, key, len(payload))
                props = {"producer": name, "seq": str(seq)}
                try:
                    if sequenced:
                        send_async(payload, done, properties=props, partition_key=key, sequence_id=seq)
                    elif key is None:
                        send_async(payload, done, properties=props)
                    else:
                        send_async(payload, done, properties=props, partition_key=key)
                except pulsar.PulsarException as exc:
                    add(
                        Event(now_ns(), SEND_ERROR, name, topic=topic, producer=name, seq=seq, key=key, detail=str(exc))
                    )
                    with self._lock:
                        self._drain.failed(name, seq)
            issued = due
        with contextlib.suppress(pulsar.PulsarException):
            producer.flush()  # every send in flight is acknowledged or failed before the producer is done

    def _sent(self, name: str, topic: str, seq: int, key: str | None, size: int, result: Any, msg_id: Any) -> None:
        """The client's callback for one ``send_async``: an ack, or a send error with the client's result. It must
        not raise (the client would end the process): what goes wrong is kept in :attr:`callback_errors`. It runs
        on the client's I/O thread, holding the interpreter's lock: it records and returns."""
        try:
            if int(result) != _OK:
                self.log.add(
                    Event(now_ns(), SEND_ERROR, name, topic=topic, producer=name, seq=seq, key=key, detail=str(result))
                )
                with self._lock:
                    self._drain.failed(name, seq)
                return
            ledger = msg_id.ledger_id()
            self.log.add(
                Event(
                    now_ns(),
                    ACK,
                    name,
                    cluster=seeded_owner(self._seeded, ledger),
                    topic=topic,
                    producer=name,
                    seq=seq,
                    key=key,
                    message_id=f"{ledger}:{msg_id.entry_id()}:{msg_id.partition()}",
                    detail=f'{{"payload_size": {size}}}',
                )
            )
            with self._lock:
                self._drain.acknowledged(name, seq)
        except Exception as exc:  # reported by the runner as a problem of the run
            self.callback_errors.append(f"{name}#{seq}: {exc!r}")

    def _consume(self, consumer: Any, name: str, subscription: str) -> None:
        import pulsar

        add, seeded, stop, delay_s = self.log.add, self._seeded, self._stop_receiving, self.plan.consumer_delay_s
        reader, cumulative = self.plan.consume == "reader", self.plan.ack == "cumulative"
        receive = consumer.read_next if reader else consumer.receive
        acknowledge = consumer.acknowledge_cumulative if cumulative else getattr(consumer, "acknowledge", None)
        while not stop.is_set():
            try:
                message = receive(timeout_millis=500)
            except pulsar.PulsarException:
                continue
            props = message.properties()
            producer, seq = props.get("producer"), int(props.get("seq", "0"))
            message_id = message.message_id()
            ledger = message_id.ledger_id()
            add(
                Event(
                    now_ns(),
                    RECEIVE,
                    name,
                    cluster=seeded_owner(seeded, ledger),
                    topic=message.topic_name(),
                    subscription=subscription,
                    producer=producer,
                    seq=seq,
                    key=message.partition_key() or None,
                    message_id=f"{ledger}:{message_id.entry_id()}:{message_id.partition()}",
                    detail=f'{{"payload_size": {len(message.data())}}}',
                )
            )
            with self._lock:
                self._drain.received(producer or "", seq)
            if delay_s:
                stop.wait(delay_s)
            if acknowledge is not None and not reader:
                with contextlib.suppress(pulsar.PulsarException):
                    acknowledge(message)

    # -- ending ----------------------------------------------------------------------------------------

    def stop_sending(self, timeout_s: float | None = None) -> None:
        """Stop issuing sends and wait until every send in flight was acknowledged or failed (each producer
        flushes), so that :meth:`drain` knows every ack before it waits for the receipts. The wait is bounded by
        ``timeout_s`` (default: the send timeout plus 10 s; a send timeout of 0 means 60 s)."""
        self._stop_sending.set()
        if timeout_s is None:
            timeout_s = (self.plan.send_timeout_ms / 1000 or 50.0) + 10.0
        deadline = time.monotonic() + timeout_s
        for thread in self._producer_threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))

    def rate_shortfalls(self) -> list[str]:
        """One line per producer that could not keep its rate: more than :data:`LATE_SHARE` of its sends issued
        over :data:`LATE_S` after their intended time (the driver fell behind: the offered load was not offered)."""
        rate = self.plan.rate_per_second
        return [
            f"{name} could not keep {rate:g} msg/s: {pace.late} of {pace.sends} sends were issued more than "
            f"{LATE_S:g}s after their intended time (at most {pace.max_lag_s:.2f}s): the driver fell behind"
            for name, pace in self._pace.items()
            if pace.sends and pace.late > LATE_SHARE * pace.sends
        ]

    def drain(self, timeout_s: float) -> bool:
        """Keep consuming until every acknowledged send was received once, or the time is up."""
        return wait_drained(self._lock, self._drain, timeout_s)

    def drain_held(self) -> int:
        """How many sequence numbers the drain tracker holds now (bounded by the sends in flight)."""
        with self._lock:
            return self._drain.held()

    def stop(self) -> None:
        """Stop sending and receiving, then close the producers and consumers (the clients stay open: they are
        the caller's). Safe to call twice."""
        self._stop_sending.set()
        self._stop_receiving.set()
        for thread in self._threads:
            thread.join(timeout=10)
        handles = [(f"producer-{i}", h) for i, h in enumerate(self._producers)]
        handles += [(f"consumer-{i}", h) for i, h in enumerate(self._consumers)]
        for what, handle in handles:
            hung = close_within(handle.close, what)
            if hung is not None:
                self.hung_closes.append(hung)
        self._producers.clear()
        self._consumers.clear()

    def attribute_acks(self, admins: dict[str, AdminClient], seeded: Mapping[int, str] | None = None) -> None:
        """Fill in, for every ack, the cluster that stored the message as an original publish, and for every
        receive the cluster that delivered it (:mod:`pytest_pulsar_ha.workload.storage_lookup`): from a ledger id
        a cluster was seeded with (``seeded``), else read from the brokers' storage, a few requests at a time
        (:func:`~pytest_pulsar_ha.workload.attribution.attribute_log`)."""
        attribute_log(self.log, admins, seeded)
