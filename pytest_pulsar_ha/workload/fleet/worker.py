"""One worker process of a fleet: its share of the producers and consumers on a client of its own.

The worker talks to its conductor over one connection (:mod:`.worker_process`). It answers ``ready`` once every
producer and consumer exists, starts sending on ``go`` (the conductor's wall clock origin, the same for every
worker), applies ``service`` (the provider's switches, :mod:`.relay`), stops issuing sends on ``stop_sending``
(then waits for every send in flight to resolve and answers ``sent``), and on ``stop`` closes everything and
answers ``stopped``. Every ``flush_s`` it writes the rows gathered since the last flush as one Parquet file
(``w<index>-<n>.parquet``, renamed into place whole) and sends ``progress``: which sends were acknowledged, failed
or received since, so that the conductor knows when every acknowledged send was received. A closed connection (the
conductor is gone) ends the worker: nothing it started outlives it.

The open loop is the single-process workload's: send ``i`` of a producer is due at ``origin + i / rate``; every
pass of the loop issues each producer's due sends and sleeps a millisecond, and a send issued more than
``LATE_S`` after its due time counts as late (the driver fell behind: the offered load was not offered).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import threading
import time
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.workload.fleet.columns import MessageColumns, Names, progress_of, to_table
from pytest_pulsar_ha.workload.fleet.config import Service, WorkerConfig
from pytest_pulsar_ha.workload.fleet.fast_path import receiver
from pytest_pulsar_ha.workload.fleet.producing import HEAD_BYTES, ProducerState, issuer, stamp
from pytest_pulsar_ha.workload.fleet.relay import relayed_provider
from pytest_pulsar_ha.workload.plan import SUBSCRIPTION_TYPES


def parse_head(data: bytes) -> tuple[bytes, int] | None:
    """(producer, seq) of a payload written by a workload producer, else None."""
    head = data[:HEAD_BYTES]
    first = head.find(b"#")
    second = head.find(b"#", first + 1)
    if first <= 0 or second < 0:
        return None
    try:
        return head[:first], int(head[first + 1 : second])
    except ValueError:
        return None


class Worker:
    def __init__(self, config: WorkerConfig, conn: Any) -> None:
        self.config = config
        self.conn = conn
        self._send_lock = threading.Lock()
        self._flush_lock = threading.Lock()
        self.columns = MessageColumns()
        self.names = Names(
            [(s.name, s.topic) for s in config.producers],
            [(s.name, s.subscription) for s in config.consumers],
            config.keys,
            config.message_size,
            config.seeded,
        )
        self.go = threading.Event()
        self.origin_ns = 0
        self.origin_mono = 0.0
        self.stop_sending = threading.Event()
        self.stop = threading.Event()
        self.stop_stamping = threading.Event()
        self.partitioned: dict[str, bool] = {}
        self.conductor_gone = threading.Event()
        self.producers: list[ProducerState] = []
        self.consumers: list[Any] = []
        self.clients: list[Any] = []
        self.provider: Any = None
        self.files = 0
        self.errors: list[str] = []
        self.foreign = 0
        """receipts whose payload was not a workload producer's"""
        self.relayed: list[tuple[str, int]] = []
        self._ok: Any = None

    # -- the pipe ----------------------------------------------------------------------------------------

    def send(self, *message: Any) -> None:
        with self._send_lock:
            try:
                self.conn.send(message)
            except (OSError, EOFError):
                self.conductor_gone.set()

    def listen(self) -> None:
        """Read the conductor's commands until ``stop`` or a closed pipe."""
        while True:
            try:
                command = self.conn.recv()
            except (OSError, EOFError):
                self.conductor_gone.set()
                self.stop_sending.set()
                self.stop.set()
                self.go.set()
                return
            kind = command[0]
            if kind == "go":
                self.origin_ns = command[1]
                self.origin_mono = time.monotonic() - (time.time_ns() - self.origin_ns) / 1e9
                self.go.set()
            elif kind == "service" and self.provider is not None:
                if self.provider.apply(command[1]):
                    self.relayed.append((command[1].url, time.time_ns()))
                    self.send("relayed", command[1].url, time.time_ns())
            elif kind == "stop_sending":
                self.stop_sending.set()
            elif kind == "stop":
                self.stop_sending.set()
                self.stop.set()
                self.go.set()
                return

    # -- set-up -------------------------------------------------------------------------------------------

    def _client(self, service: Service, relayed: bool) -> Any:
        import pulsar

        logger = pulsar.FileLogger(pulsar.LoggerLevel.Info, self.config.log_path)
        options = {"operation_timeout_seconds": 10, "logger": logger, **self.config.client_options}
        if relayed:
            self.provider = relayed_provider(service)
            client = pulsar.Client(self.provider, **options)
        else:
            if service.token:
                options["authentication"] = pulsar.AuthenticationToken(service.token)
            client = pulsar.Client(service.url, **options)
        self.clients.append(client)
        return client

    def _partitioned(self, client: Any, topic: str) -> bool:
        """Whether ``topic`` is partitioned (asked once per topic, kept in :attr:`partitioned`)."""
        from pytest_pulsar_ha.workload.client_setup import create_with_retries

        if topic not in self.partitioned:
            partitions = create_with_retries(functools.partial(client.get_topic_partitions, topic))
            self.partitioned[topic] = len(partitions) > 1 or partitions[0] != topic
        return self.partitioned[topic]

    def set_up(self) -> None:
        import pulsar

        from pytest_pulsar_ha.workload.client_setup import create_with_retries

        config = self.config
        self._ok = pulsar.Result.Ok
        client = self._client(config.service, config.relayed)
        consumer_client = client
        if config.consumer_service is not None and config.consumers:
            consumer_client = self._client(config.consumer_service, False)
        for slot in config.consumers:
            self._partitioned(consumer_client, slot.topic)
        sub_type = getattr(pulsar.ConsumerType, SUBSCRIPTION_TYPES[config.subscription_type])
        position = getattr(pulsar.InitialPosition, config.initial_position.capitalize())
        for slot in config.consumers:
            self.consumers.append(
                create_with_retries(
                    functools.partial(
                        consumer_client.subscribe,
                        slot.topic,
                        slot.subscription,
                        consumer_type=sub_type,
                        consumer_name=slot.name,
                        replicate_subscription_state_enabled=config.replicated_subscriptions,
                        initial_position=position,
                    )
                )
            )
        for index, producer in enumerate(config.producers):
            handle = create_with_retries(
                functools.partial(
                    client.create_producer,
                    producer.topic,
                    send_timeout_millis=config.send_timeout_ms,
                    **config.batching,
                    max_pending_messages=config.max_pending,
                    block_if_queue_full=False,
                )
            )
            state = ProducerState(index, producer.name, handle, config)
            state.in_order = not self._partitioned(client, producer.topic)
            self.producers.append(state)

    # -- sending ------------------------------------------------------------------------------------------

    def _resolved(self, producer: ProducerState, seq: int, key: int, result: Any, message_id: Any) -> None:
        """The client's callback for one send: an ack or a send error (must not raise: kept in ``errors``)."""
        try:
            ts = time.time_ns()
            if result == self._ok:
                ids = (message_id.ledger_id(), message_id.entry_id(), message_id.partition())
                self.columns.rows.acks.append((ts, producer.index, seq, key, *ids))
            else:
                self.columns.rows.errors.append((ts, producer.index, seq, key, str(result)))
            producer.resolved += 1
        except Exception as exc:  # reported to the conductor as a problem of the run
            self.errors.append(f"{producer.name.decode()}#{seq}: {exc!r}")

    def produce(self) -> None:
        """The open loop of every producer of this worker, until ``stop_sending``: every millisecond, each
        producer's due sends (:func:`.producing.issuer`)."""
        rate = self.config.rate_per_second
        origin_mono = self.origin_mono
        stop, monotonic = self.stop_sending, time.monotonic
        issuers = [issuer(p, self.config, self.columns, self.origin_ns, self._resolved) for p in self.producers]
        while not stop.is_set():
            elapsed = monotonic() - origin_mono
            if elapsed < 0:  # the common origin is still ahead
                time.sleep(min(-elapsed, 0.01))
                continue
            due = int(elapsed * rate) + 1  # send i (0-based) is due at i / rate
            for issue in issuers:
                issue(due, elapsed)
            time.sleep(0.001)

    def stamp(self) -> None:
        """The stamper thread (:func:`.producing.stamp`), until ``stop_stamping``."""
        stamp(self.producers, self.columns, self._ok, self.stop_stamping)

    def wait_resolved(self, timeout_s: float) -> None:
        """Flush the producers and wait until every send issued was acknowledged or failed (bounded)."""
        import pulsar

        for producer in self.producers:
            with contextlib.suppress(pulsar.PulsarException):
                producer.handle.flush()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and any(p.resolved < p.issued for p in self.producers):
            time.sleep(0.05)

    # -- receiving ----------------------------------------------------------------------------------------

    def consume(self, index: int, consumer: Any, partitioned: bool) -> None:
        """Receive, record (stamped when ``receive`` returned), then acknowledge (after ``consumer_delay_s``).
        A non-partitioned topic's messages all carry the subscribed topic and partition -1: those are not asked
        of each message; nor is the key when the producers send none."""
        import pulsar

        producers: dict[bytes, str] = {}
        receipts_append = self.columns.rows.receipts.append
        delay = self.config.consumer_delay_s
        receive, acknowledge = receiver(consumer)
        time_ns, stopped, failure = time.time_ns, self.stop.is_set, pulsar.PulsarException
        topic = self.config.consumers[index].topic
        keyed = self.config.keys > 0
        while not stopped():
            try:
                message = receive(500)
            except failure:
                continue
            ts = time_ns()
            data = message.data()
            head = parse_head(data)
            if head is None:
                self.foreign += 1
            else:
                raw, seq = head
                name = producers.get(raw)
                if name is None:
                    name = producers[raw] = raw.decode("utf-8", "replace")
                mid = message.message_id()
                receipts_append(
                    (
                        ts,
                        index,
                        message.topic_name() if partitioned else topic,
                        name,
                        seq,
                        (message.partition_key() or None) if keyed else None,
                        mid.ledger_id(),
                        mid.entry_id(),
                        mid.partition() if partitioned else -1,
                        len(data),
                    )
                )
            if delay:
                self.stop.wait(delay)
            with contextlib.suppress(failure):
                acknowledge(message)

    # -- the history --------------------------------------------------------------------------------------

    def flush(self) -> None:
        """Write what was gathered since the last flush, and tell the conductor what resolved and arrived."""
        with self._flush_lock:
            self._flush()

    def _flush(self) -> None:
        import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

        rows = self.columns.take()
        if not len(rows):
            return
        target = Path(self.config.out_dir) / f"w{self.config.index:02d}-{self.files:06d}.parquet"
        partial = target.with_name(target.name + ".tmp")
        table = to_table(self.names, rows)
        pq.write_table(table, str(partial))
        partial.replace(target)
        self.files += 1
        self.send("progress", progress_of(table))

    def flusher(self) -> None:
        while not self.stop.wait(self.config.flush_s):
            self.flush()
            gc.collect(1)
