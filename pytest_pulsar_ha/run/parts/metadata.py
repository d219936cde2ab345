"""A scenario's metadata writes (PIP-136) on the environment, and what the clusters show of them.

Three kinds of threads, each writing into the history as things happen:

- **writers**, one per cluster of ``workload.metadata.writers``: a write of the policy every ``every``, each with a
  value of its own (``metadata_write``: start, end, value, outcome);
- **observers**, one per cluster: a reader of the cluster's sync event topic from the earliest event, straight
  to its broker (faults cut the clusters' links, not the harness' view), decoding Pulsar's ``MetadataEvent``
  (``metadata_event``: origin cluster and origin time as Pulsar stamped them);
- a **poller**: every cluster's value of the policy, read through its admin API four times a second
  (``metadata_read`` when it changes).

After the writes and the faults, the clusters are read until each holds the oracle's value of the events seen
so far (stable for a second) or ``settle`` runs out, then once more as the final reads the checks judge.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.history import METADATA_EVENT, METADATA_READ, METADATA_WRITE, Event, now_ns
from pytest_pulsar_ha.pips.metadata_sync.bootstrap import EVENT_TOPIC
from pytest_pulsar_ha.pips.metadata_sync.event_codec import MetadataEventError, decode
from pytest_pulsar_ha.pips.metadata_sync.oracle import MetadataWrite, converged
from pytest_pulsar_ha.pips.metadata_sync.policies import POLICIES, canonical
from pytest_pulsar_ha.run.context import RunContext
from pytest_pulsar_ha.run.parts import stages
from pytest_pulsar_ha.run.parts.base import Part
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.workload import MetadataWrites

PROCESS = "metadata"
POLL_S = 0.25
WRITE_TIMEOUT_S = 10.0


class ScenarioMetadata:
    def __init__(
        self,
        env: PulsarHaEnvironment,
        spec: MetadataWrites,
        namespace: str,
        clusters: Sequence[str],
        duration_s: float,
        record: Callable[[Event], object],
    ) -> None:
        self.env = env
        self.spec = spec
        self.namespace = namespace
        self.clusters = list(clusters)
        self.policy = POLICIES[spec.policy]
        self.path = self.policy.store_path(namespace)
        self.until_s = spec.until.seconds if spec.until is not None else duration_s
        self.record = record
        self._counter = itertools.count(1)
        self._stop_writes = threading.Event()
        self._stop_all = threading.Event()
        self._threads: list[threading.Thread] = []
        self._held: dict[str, str] = {}
        self._lock = threading.Lock()
        self._published: set[tuple[str, int, str | None]] = set()
        self.errors: list[str] = []

    # -- parts -------------------------------------------------------------------------------------------

    def _admin(self, cluster: str, timeout: float) -> AdminClient:
        target = self.env.cluster(cluster)
        return AdminClient(target.direct_admin_url, timeout=timeout, token=target.token)

    def _write_loop(self, cluster: str, first_at: float) -> None:
        admin = AdminClient(self.env.cluster(cluster).admin.base_url, WRITE_TIMEOUT_S, self.env.cluster(cluster).token)
        allowed = list(self.env.names)
        at = first_at
        while at < self.t0 + self.until_s and not self._stop_writes.wait(max(0.0, at - time.monotonic())):
            value = self.policy.make(next(self._counter))
            began = now_ns()
            detail: dict[str, Any] = {"path": self.path, "policy": self.policy.name, "value": canonical(value)}
            try:
                self.policy.write(admin, self.namespace, value, allowed)
                detail["ok"] = True
            except Exception as exc:  # recorded: a failed write is evidence, not a harness error
                detail.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:300])
            detail["end_ns"] = now_ns()
            self.record(
                Event(began, METADATA_WRITE, f"{PROCESS}-{cluster}", cluster=cluster, detail=json.dumps(detail))
            )
            at += self.spec.every.seconds

    def _observe(self, cluster: str) -> None:
        import pulsar

        target = self.env.cluster(cluster)
        options: dict[str, Any] = {"operation_timeout_seconds": 10}
        if target.token is not None:
            options["authentication"] = target.authentication()
        client = pulsar.Client(target.direct_service_url, logger=_quiet_logger(self.env), **options)
        try:
            reader = None
            while not self._stop_all.is_set():
                try:
                    if reader is None:
                        reader = client.create_reader(EVENT_TOPIC, pulsar.MessageId.earliest)
                    message = reader.read_next(timeout_millis=300)
                except Exception:  # a timeout or a cluster down: read on
                    continue
                self._record_event(cluster, message.data())
        finally:
            client.close()

    def _record_event(self, cluster: str, data: bytes) -> None:
        try:
            event = decode(data)
        except MetadataEventError as exc:
            self.errors.append(f"an event on {cluster}'s topic could not be decoded: {exc}")
            return
        if event.path != self.path or event.source_cluster is None:
            return
        value: str | None = None
        if event.type != "Deleted" and event.value is not None:
            try:
                value = canonical(self.policy.from_stored(json.loads(event.value)))
            except ValueError:
                value = None
        detail = {
            "path": event.path,
            "source": event.source_cluster,
            "origin_ms": event.last_updated_timestamp,
            "type": event.type,
            "value": value,
        }
        with self._lock:
            self._published.add((event.source_cluster, event.last_updated_timestamp, value))
        self.record(Event(now_ns(), METADATA_EVENT, f"{PROCESS}-observer", cluster=cluster, detail=json.dumps(detail)))

    def _read(self, cluster: str, admin: AdminClient, final: bool = False) -> None:
        try:
            value = canonical(self.policy.read(admin, self.namespace))
        except Exception:  # a cluster down: no reading
            return
        with self._lock:
            changed = self._held.get(cluster) != value
            self._held[cluster] = value
        if changed or final:
            detail = {"path": self.path, "policy": self.policy.name, "value": value, "final": final}
            self.record(Event(now_ns(), METADATA_READ, f"{PROCESS}-poller", cluster=cluster, detail=json.dumps(detail)))

    def _poll(self) -> None:
        admins = {name: self._admin(name, 5.0) for name in self.clusters}
        while not self._stop_all.wait(POLL_S):
            for name, admin in admins.items():
                self._read(name, admin)

    # -- the run -----------------------------------------------------------------------------------------

    def start(self, t0: float) -> None:
        self.t0 = t0
        for name in self.clusters:
            self._spawn(self._observe, name)
        self._spawn(self._poll)
        for index, name in enumerate(self.spec.writers):
            first = t0 + self.spec.start.seconds + index * self.spec.stagger.seconds
            self._spawn(self._write_loop, name, first)

    def _spawn(self, target: Callable[..., None], *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, name=f"{PROCESS}-{target.__name__}", daemon=True)
        thread.start()
        self._threads.append(thread)

    def expected(self) -> str | None:
        """The oracle's value of the events seen so far (None: no event, or the path deleted)."""
        with self._lock:
            writes = [
                MetadataWrite(self.path, None if v is None else v.encode(), source, ts)
                for source, ts, v in self._published
            ]
        value = converged(writes).get(self.path)
        return None if value is None else value.decode()

    def finish(self) -> None:
        """Stop the writes; read until every cluster holds the oracle's value (for a second) or ``settle`` ends;
        then the final reads."""
        self._stop_writes.set()
        deadline = time.monotonic() + self.spec.settle.seconds
        agreed_since: float | None = None
        while time.monotonic() < deadline:
            want = self.expected()
            with self._lock:
                agree = want is not None and all(self._held.get(n) == want for n in self.clusters)
            if agree:
                agreed_since = agreed_since or time.monotonic()
                if time.monotonic() - agreed_since >= 1.0:
                    break
            else:
                agreed_since = None
            time.sleep(POLL_S / 2)
        for name in self.clusters:
            self._read(name, self._admin(name, 10.0), final=True)
        self.stop()

    def stop(self) -> None:
        self._stop_writes.set()
        self._stop_all.set()
        for thread in self._threads:
            thread.join(timeout=15)
        self._threads = []


def _quiet_logger(env: PulsarHaEnvironment) -> Any:
    import pulsar

    return pulsar.FileLogger(pulsar.LoggerLevel.Warn, str(env.work_dir / "clients.log"))


class Metadata(Part):
    """PIP-136: metadata writes while the messages flow, read back on every cluster once they stop."""

    start_stage = stages.WRITES
    finish_stage = stages.SETTLE

    def __init__(self) -> None:
        self.metadata: ScenarioMetadata | None = None

    @classmethod
    def of(cls, ctx: RunContext) -> Metadata | None:
        return cls() if ctx.scenario.workload.metadata is not None else None

    def prepare(self, ctx: RunContext) -> None:
        writes = ctx.scenario.workload.metadata
        if writes is None or ctx.spaces is None:
            raise RuntimeError("metadata writes need workload.metadata and the Namespaces part before this one")
        duration_s = ctx.needs_plan().duration_s
        self.metadata = ScenarioMetadata(
            ctx.env, writes, ctx.spaces.namespaces[0], ctx.clusters, duration_s, ctx.log.add
        )

    def start(self, ctx: RunContext) -> None:
        if self.metadata is not None:
            self.metadata.start(ctx.t0)

    def finish(self, ctx: RunContext) -> None:
        if self.metadata is not None:
            self.metadata.finish()

    def close(self, ctx: RunContext) -> None:
        if self.metadata is not None:
            self.metadata.stop()
            ctx.problems.setdefault("metadata", []).extend(self.metadata.errors)
