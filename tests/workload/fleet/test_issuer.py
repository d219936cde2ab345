"""The fleet's send loop (:func:`producing.issuer`) on a producer handle without the binding's internals (another
pulsar-client release): it falls back to the public ``send_async``, and issues, records and bounds the same."""

from __future__ import annotations

import threading
from typing import Any

from pytest_pulsar_ha.workload.fleet.columns import MessageColumns
from pytest_pulsar_ha.workload.fleet.config import ProducerSlot, Service, WorkerConfig
from pytest_pulsar_ha.workload.fleet.producing import ProducerState, issuer, stamp


class PublicOnly:
    """A producer with only the public ``send_async`` (no ``_producer``): it keeps each send's callback."""

    def __init__(self) -> None:
        self.sent: list[tuple[bytes, str | None, Any]] = []

    def send_async(self, payload: bytes, callback: Any, partition_key: str | None = None) -> None:
        self.sent.append((payload, partition_key, callback))


def config(keys: int, max_pending: int) -> WorkerConfig:
    return WorkerConfig(
        index=0,
        service=Service("pulsar://127.0.0.1:1"),
        relayed=False,
        consumer_service=None,
        client_options={},
        producers=(ProducerSlot("producer-0", "t"),),
        consumers=(),
        rate_per_second=1000.0,
        subscription_type="exclusive",
        initial_position="earliest",
        replicated_subscriptions=False,
        keys=keys,
        message_size=100,
        batching={},
        send_timeout_ms=1000,
        seed=1,
        consumer_delay_s=0.0,
        max_pending=max_pending,
        out_dir="",
        log_path="",
    )


def test_the_public_fallback_sends_each_due_message_and_the_stamper_turns_in_order_results_into_acks() -> None:
    handle, columns = PublicOnly(), MessageColumns()
    settings = config(keys=4, max_pending=1000)
    producer = ProducerState(0, "producer-0", handle, settings)
    producer.in_order = True
    issue = issuer(producer, settings, columns, origin_ns=10**18, resolved=lambda *_: None)
    issue(5, 0.004)
    issue(5, 0.0045)  # nothing more is due
    issue(8, 0.007)
    assert [payload[: payload.index(b"#", 11) + 1] for payload, _, _ in handle.sent] == [
        b"producer-0#%d#" % seq for seq in range(1, 9)
    ]
    assert all(len(payload) == 100 for payload, _, _ in handle.sent)
    assert all(key is not None and key.startswith("k") for _, key, _ in handle.sent)
    assert [row[2] for row in columns.rows.sends] == list(range(1, 9))
    assert [row[4] - 10**18 for row in columns.rows.sends] == [(seq - 1) * 1_000_000 for seq in range(1, 9)]
    assert producer.issued == 8 and producer.pace.sends == 8 and producer.pace.late == 0

    class MessageId:
        def ledger_id(self) -> int:
            return 7

        def entry_id(self) -> int:
            return 3

    for _, _, callback in handle.sent[:6]:  # the client resolves the first six, in order
        callback("ok", MessageId())
    stop = threading.Event()
    stop.set()  # one pass
    stamp([producer], columns, "ok", stop)
    assert [(row[2], row[4], row[5], row[6]) for row in columns.rows.acks] == [(s, 7, 3, -1) for s in range(1, 7)]
    assert producer.resolved == 6


def test_a_send_beyond_the_pending_bound_fails_at_once_without_reaching_the_client() -> None:
    handle, columns = PublicOnly(), MessageColumns()
    settings = config(keys=0, max_pending=3)
    producer = ProducerState(0, "producer-0", handle, settings)
    results: list[tuple[int, Any]] = []
    issue = issuer(producer, settings, columns, 0, lambda _p, seq, _k, result, _m: results.append((seq, result)))
    issue(5, 0.004)
    assert len(handle.sent) == 3 and all(key is None for _, key, _ in handle.sent)
    assert [(row[2], row[4]) for row in columns.rows.errors] == [
        (4, "ProducerQueueIsFull (3 sends in flight)"),
        (5, "ProducerQueueIsFull (3 sends in flight)"),
    ]
    handle.sent[1][2]("ok", None)  # not in order: each send has its own callback, with its seq
    assert results == [(2, "ok")]
