"""The reference PIP-136 synchronizer: one per cluster, beside it, speaking Pulsar's event format on the same
kind of topic, applying what it reads by last writer wins on origin times.

One loop per cluster (:meth:`ReferenceSynchronizer.step`, run by a thread or by ``pulsar-ha metadata-sync``):

1. read the tracked documents of its cluster (:class:`~.documents.ClusterDocuments`); a document that changed
   since it was last seen, and is not what the synchronizer itself applied, is a local write: recorded in the
   state (:class:`~.sync_state.SyncState`) with the time it was seen as its origin time, and published as a
   ``MetadataEvent`` (AVRO, the broker's schema, :mod:`~.event_codec`);
2. read the events of the other clusters (a durable subscription of its own, so a restart resumes where it
   acknowledged); before applying one, it reads the document again (step 1), so a local write made in between
   is published and judged, never overwritten unseen; the state decides (origin time, then the cluster name:
   PIP-136's tie rule), and an applied value is remembered so that step 1 does not publish it back;
3. the state is saved (atomically) after every change, so a restart neither re-applies old events nor
   republishes old writes.

Where it differs from Pulsar 4.0.8 (``AbstractMetadataStore``): the origin times of what it holds are compared,
never the local apply time (so a delayed event never leaves a cluster on an older value for good); the expected
version is not checked (versions differ per store, and 4.0.8 drops an update silently when they do); a tie goes
to the smaller cluster name, as the PIP states (4.0.8: the larger); a local write is stamped after the write it
held for the path when its cluster's clock is behind that one (a hybrid clock, :mod:`~.sync_state`). Its origin
time is when it saw the write (every ``poll_s``) on its cluster's clock, not when the broker stored it: two writes
on one cluster within one poll are one write.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.pips.metadata_sync.bootstrap import EVENT_TOPIC
from pytest_pulsar_ha.pips.metadata_sync.documents import ClusterDocuments
from pytest_pulsar_ha.pips.metadata_sync.event_codec import MetadataEventError, decode, encode
from pytest_pulsar_ha.pips.metadata_sync.sync_state import SyncState

SUBSCRIPTION_PREFIX = "pulsar-ha-reference-syncer"
STATE_FILE_FORMAT = 1


@dataclass
class SyncCounters:
    published: int = 0
    applied: int = 0
    ignored: dict[str, int] = field(default_factory=dict)
    undecodable: int = 0
    errors: list[str] = field(default_factory=list)


class ReferenceSynchronizer:
    """The reference synchronizer of one cluster. ``client`` is a ``pulsar.Client`` of that cluster."""

    def __init__(
        self,
        cluster: str,
        documents: ClusterDocuments,
        client: Any,
        state_file: Path,
        *,
        topic: str = EVENT_TOPIC,
        clock_ms: Callable[[], int] = lambda: time.time_ns() // 1_000_000,
        say: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.cluster = cluster
        self.documents = documents
        self.topic = topic
        self.state_file = state_file
        self.clock_ms = clock_ms
        self.say = say
        self.counters = SyncCounters()
        self.state = SyncState(cluster)
        self._seen: dict[str, bytes] = {}
        """path -> the document last seen on (or applied to) the cluster: a change from it is a local write"""
        if state_file.exists():
            self._load()
        self._producer = client.create_producer(topic, block_if_queue_full=True, send_timeout_millis=0)
        self._consumer = client.subscribe(
            topic,
            f"{SUBSCRIPTION_PREFIX}-{cluster}",
            consumer_type=_failover(),
            initial_position=_earliest(),
        )

    # -- the loop ----------------------------------------------------------------------------------------

    def step(self, receive_ms: int = 200) -> None:
        """One round: publish local writes, then apply what arrived (waiting up to ``receive_ms`` for it)."""
        self.publish_local_writes()
        deadline = time.monotonic() + receive_ms / 1000
        tried = False
        while True:
            left = int((deadline - time.monotonic()) * 1000)
            if left <= 0 and tried:
                return
            tried = True
            try:
                message = self._consumer.receive(timeout_millis=max(1, left))
            except Exception:  # a timeout: nothing arrived
                return
            self._handle(message)

    def publish_local_writes(self, paths: list[str] | None = None) -> None:
        current = (
            self.documents.read_all()
            if paths is None
            else {p: v for p in paths if (v := self.documents.read(p)) is not None}
        )
        for path, value in sorted(current.items()):
            if self._seen.get(path) == value:
                continue
            event = self.state.local_write(path, value, self.clock_ms())
            self._producer.send(encode(event))
            self._seen[path] = value
            self.counters.published += 1
            self._save()

    def _handle(self, message: Any) -> None:
        try:
            event = decode(message.data())
        except MetadataEventError as exc:
            self.counters.undecodable += 1
            self.say(f"{self.cluster}: an event that is not a MetadataEvent was skipped: {exc}")
            self._consumer.acknowledge(message)
            return
        if event.path is not None and event.source_cluster not in (None, self.cluster):
            self.publish_local_writes([event.path])  # a local write made meanwhile is judged, never lost unseen
        decision = self.state.receive(event)
        if decision.applies and decision.write is not None:
            write = decision.write
            try:
                if write.value is not None:
                    self.documents.apply(write.path, write.value)
                    now = self.documents.read(write.path)
                    if now is not None:
                        self._seen[write.path] = now
                self.counters.applied += 1
            except Exception as exc:
                self.counters.errors.append(f"{write.path}: {type(exc).__name__}: {exc}"[:300])
                self._consumer.negative_acknowledge(message)  # applied again later
                return
        else:
            reason = decision.reason or "ignored"
            self.counters.ignored[reason] = self.counters.ignored.get(reason, 0) + 1
        self._save()
        self._consumer.acknowledge(message)

    def _save(self) -> None:
        self.state_file.parent.mkdir(parents=True, exist_ok=True)
        saved = {
            "format": STATE_FILE_FORMAT,
            "state": self.state.to_json(),
            "seen": {path: base64.b64encode(value).decode() for path, value in sorted(self._seen.items())},
        }
        temporary = self.state_file.with_suffix(".tmp")
        temporary.write_text(json.dumps(saved))
        os.replace(temporary, self.state_file)

    def _load(self) -> None:
        try:
            saved = json.loads(self.state_file.read_text())
            if not isinstance(saved, dict) or saved.get("format") != STATE_FILE_FORMAT:
                raise ValueError(f"expected format {STATE_FILE_FORMAT}")
            state = SyncState.from_json(saved["state"])
            seen = {str(p): base64.b64decode(v, validate=True) for p, v in dict(saved["seen"]).items()}
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(
                f"{self.state_file}: not a reference synchronizer state ({exc}); move it away to start afresh "
                "(the synchronizer then publishes every tracked document again)"
            ) from None
        if state.cluster != self.cluster:
            raise ValueError(f"{self.state_file} is the state of cluster {state.cluster}, not of {self.cluster}")
        self.state, self._seen = state, seen

    def close(self) -> None:
        for closeable in (self._consumer, self._producer):
            with contextlib.suppress(Exception):  # the cluster may be gone; nothing to keep
                closeable.close()


def _failover() -> Any:
    import pulsar

    return pulsar.ConsumerType.Failover


def _earliest() -> Any:
    import pulsar

    return pulsar.InitialPosition.Earliest
