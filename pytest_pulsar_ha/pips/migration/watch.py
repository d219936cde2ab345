"""Follow a migration from blue's side and record what blue did, as it happens: a ``migrated`` event when a
topic's ledger carries ``migrated=true``, and ``migration_end`` once every topic is done (migrated, no producer,
consumer or backlog left on blue). Readings that fail (blue down, topic not loaded) are retried, never guessed."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.history import MIGRATED, MIGRATION_END, Event, now_ns
from pytest_pulsar_ha.pips.migration.status import TopicStatus, topic_status

WATCH_PROCESS = "migration-watch"


class MigrationWatch:
    """Poll ``topics`` on blue (``admin``) every ``interval`` seconds from :meth:`start` until :meth:`stop`."""

    def __init__(
        self,
        blue: str,
        green: str,
        admin: AdminClient,
        topics: Sequence[str],
        record: Callable[[Event], object],
        interval: float = 0.5,
    ) -> None:
        self.blue = blue
        self.green = green
        self.admin = admin
        self.topics = list(topics)
        self.record = record
        self.interval = interval
        self.migrated: dict[str, int] = {}
        """topic -> when it was first seen migrated (ns)"""
        self.ended_ns: int | None = None
        self.last: dict[str, TopicStatus] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"migration-watch-{self.blue}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def poll(self) -> bool:
        """Read every topic once; record what changed. True once every topic is done."""
        for topic in self.topics:
            status = topic_status(self.admin, topic)
            self.last[topic] = status
            if status.migrated and topic not in self.migrated:
                self.migrated[topic] = now_ns()
                detail = json.dumps({"to": self.green})
                self.record(Event(self.migrated[topic], MIGRATED, WATCH_PROCESS, self.blue, topic, detail=detail))
        if self.topics and all(self.last[t].done for t in self.topics) and self.ended_ns is None:
            self.ended_ns = now_ns()
            detail = json.dumps({"to": self.green, "topics": len(self.topics)})
            self.record(Event(self.ended_ns, MIGRATION_END, WATCH_PROCESS, self.blue, detail=detail))
        return self.ended_ns is not None

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.poll():
                return
            self._stop.wait(self.interval)
