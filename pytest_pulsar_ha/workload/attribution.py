"""Filling in the clusters of a run's acks and receives, for any workload (the Python client's and the Java
driver's write the same events): each ack gets the cluster that stored its message as an original publish, each
receive the cluster that delivered it (:mod:`pytest_pulsar_ha.workload.storage_lookup`), read from the brokers'
storage a few requests at a time."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.history import ACK, RECEIVE, Event, EventLog
from pytest_pulsar_ha.runtime.ledger_owners import seeded_owner
from pytest_pulsar_ha.workload.storage_lookup import acknowledging_cluster, delivering_cluster

ATTRIBUTION_THREADS = 8


class CachedEntries:
    """``get_raw`` of an admin client, each path asked once (entries at a position never change)."""

    def __init__(self, admin: AdminClient) -> None:
        self.admin = admin
        self._answers: dict[str, tuple[int, dict[str, str], bytes]] = {}

    def get_raw(self, path: str) -> tuple[int, dict[str, str], bytes]:
        answer = self._answers.get(path)
        if answer is None:
            answer = self._answers[path] = self.admin.get_raw(path)
        return answer


def attribute_log(log: EventLog, admins: dict[str, AdminClient], seeded: Mapping[int, str] | None = None) -> None:
    """Replace every ack and receive of ``log`` by the same event with its ``cluster``.

    ``seeded`` maps the high 32 bits of a ledger id to the cluster whose ledger ids were seeded with them
    (:mod:`pytest_pulsar_ha.runtime.ledger_owners`): a position in such a ledger is in that cluster's storage
    and nowhere else, so the cluster that acknowledged (stored) or delivered it is that one, without a read. Any
    other position is read from storage (:mod:`pytest_pulsar_ha.workload.storage_lookup`); the payload is rebuilt
    from the message (``producer#seq#`` padded with dots to its ``payload_size``). A run on one cluster reads
    nothing: that cluster stored and delivered every message."""
    cached = {name: CachedEntries(admin) for name, admin in admins.items()}  # an ack and its receipts share
    owners = dict(seeded or {})
    known: list[tuple[Event, str | None]] = []
    unseeded: list[Event] = []
    only = next(iter(admins)) if len(admins) == 1 else None  # one cluster stores and delivers everything
    for event in log.snapshot():
        if event.type not in (ACK, RECEIVE):
            continue
        owner = only or seeded_owner(owners, int((event.message_id or "0").split(":", 1)[0]))
        if owner is None:
            unseeded.append(event)
        elif owner != event.cluster:  # most were recorded with it already: nothing to replace
            known.append((event, owner))

    def attribute(event: Event) -> tuple[Event, str | None]:
        ledger, entry, partition = (int(x) for x in (event.message_id or "0:0:-1").split(":"))
        topic = event.topic or ""
        if partition >= 0 and not topic.endswith(f"-partition-{partition}"):
            topic = f"{topic}-partition-{partition}"
        size = json.loads(event.detail or "{}").get("payload_size", 0)
        body = f"{event.producer}#{event.seq}#".encode()
        payload = body + b"." * max(0, size - len(body))
        find = acknowledging_cluster if event.type == ACK else delivering_cluster
        return event, find(cached, topic, ledger, entry, payload)

    with ThreadPoolExecutor(max_workers=ATTRIBUTION_THREADS) as pool:
        found = list(pool.map(attribute, unseeded))  # only what the seeded ids cannot tell is read from storage
    log.replace_all(
        (event, dataclasses.replace(event, cluster=cluster))
        for event, cluster in known + found
        if cluster != event.cluster
    )
