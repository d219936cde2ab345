"""A reference synchronizer kept running beside its cluster: a thread that runs its loop, builds it again when
it could not be built (the cluster down), and is stopped by whoever started it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from pytest_pulsar_ha.pips.metadata_sync.reference import ReferenceSynchronizer


class SynchronizerService:
    def __init__(self, cluster: str, build: Callable[[], ReferenceSynchronizer], retry_s: float = 1.0) -> None:
        self.cluster = cluster
        self._build = build
        self._retry_s = retry_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.sync: ReferenceSynchronizer | None = None
        self.errors: list[str] = []

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"reference-sync-{self.cluster}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                if self.sync is None:
                    self.sync = self._build()
                self.sync.step()
            except Exception as exc:  # the cluster is down or restarting: try again
                self._note(f"{type(exc).__name__}: {exc}")
                self._stop.wait(self._retry_s)

    def _note(self, error: str) -> None:
        if len(self.errors) < 100:
            self.errors.append(f"{time.strftime('%H:%M:%S')} {error}"[:300])

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self.sync is not None:
            self.sync.close()
