"""A workload spread over worker processes (:mod:`.worker`), for rates one Python process cannot drive.

:class:`FleetWorkload` has the single-process workload's interface (start, stop_sending, rate_shortfalls, drain,
stop, attribute_acks), so a run uses either. Each worker runs its share of the producers and consumers on a client
of its own and writes its history as Parquet parts in ``parts_dir``; the conductor keeps only what it needs to
know when everything was received (a :class:`~pytest_pulsar_ha.workload.drain_tracker.BulkDrainTracker`).
When the workers have stopped, their rows are added to the run's log (``into_log``), in time order, so that the
history, its attribution and every check are the single-process workload's.

Each worker is ``python -m pytest_pulsar_ha.workload.fleet.worker_process`` in a session of its own (recorded in the
environment's process registry, so the reaper finds the workers of a killed run), connected back to the conductor
over a Unix socket with a one-time key. :meth:`stop` stops them (a command, then SIGTERM, then SIGKILL to the
group), and a worker whose connection closes (the conductor died) stops on its own.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Listener
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.history import ACK, RECEIVE, SEND_ERROR, Event, EventLog
from pytest_pulsar_ha.process.pid_registry import RUN_ID_ENV, PidRegistry
from pytest_pulsar_ha.workload.attribution import attribute_log
from pytest_pulsar_ha.workload.drain_tracker import BulkDrainTracker, wait_drained
from pytest_pulsar_ha.workload.fleet.config import (
    Service,
    WorkerConfig,
    split_plan,
)
from pytest_pulsar_ha.workload.fleet.handles import WorkerHandle, accept_worker, socket_address
from pytest_pulsar_ha.workload.fleet.relay import ProviderRelay
from pytest_pulsar_ha.workload.fleet.worker_process import KEY_ENV
from pytest_pulsar_ha.workload.plan import LATE_S, LATE_SHARE, WorkloadPlan
from pytest_pulsar_ha.workload.plan import max_pending as max_pending_for

START_TIMEOUT_S = 150.0
"""How long the workers may take to start and create every producer and consumer (set-up retries for 90 s)."""
STOP_TIMEOUT_S = 60.0
"""How long a worker may take to close everything after ``stop`` before it is terminated."""
GO_AHEAD_S = 0.2
"""The common origin of the open loops is this far ahead of the ``go`` command, so every worker starts on it."""


def _names(config: WorkerConfig) -> str:
    """What a worker runs: its producers' and consumers' names."""
    return ", ".join([p.name for p in config.producers] + [c.name for c in config.consumers])


class FleetError(RuntimeError):
    """A worker could not start, or died."""


@dataclass(frozen=True)
class FleetTarget:
    """Where the workers' clients go: ``service`` first; with ``events`` (the provider under test's event hub)
    every switch it makes is relayed to them as the :class:`Service` of ``services[cluster]``."""

    service: Service
    services: Mapping[str, Service] = field(default_factory=dict)
    events: Any = None
    consumer_service: Service | None = None


class FleetWorkload:
    """The producers and consumers of ``plan`` over ``processes`` worker processes (see the module doc)."""

    def __init__(
        self,
        plan: WorkloadPlan,
        log: EventLog,
        target: FleetTarget,
        *,
        processes: int,
        parts_dir: Path,
        client_options: Mapping[str, Any] | None = None,
        seeded: Mapping[int, str] | None = None,
        max_pending: int | None = None,
        into_log: bool = True,
        registry: PidRegistry | None = None,
    ) -> None:
        self.plan = plan
        self.log = log
        self.target = target
        self.processes = processes
        self.parts_dir = Path(parts_dir)
        self.client_options = dict(client_options or {})
        self.seeded = dict(seeded or {})
        self.max_pending = max_pending or max_pending_for(plan.rate_per_second)
        self.into_log = into_log
        self.registry = registry
        self.hung_closes: list[str] = []
        self.callback_errors: list[str] = []
        self.foreign_receipts = 0
        self.origin_ns = 0
        self._handles: list[WorkerHandle] = []
        self._drain = BulkDrainTracker()
        self._lock = threading.Lock()
        self._relay: ProviderRelay | None = None
        self._relayed: list[tuple[str, int]] = []
        self._stopped = False
        self._roles: dict[int, str] = {}

    # -- start ---------------------------------------------------------------------------------------------

    def _configs(self) -> list[WorkerConfig]:
        plan = self.plan
        self.parts_dir.mkdir(parents=True, exist_ok=True)
        base = WorkerConfig(
            index=0,
            service=self.target.service,
            relayed=self.target.events is not None,
            consumer_service=self.target.consumer_service,
            client_options=self.client_options,
            producers=(),
            consumers=(),
            rate_per_second=plan.rate_per_second,
            subscription_type=plan.subscription_type,
            initial_position=plan.initial_position,
            replicated_subscriptions=plan.replicated_subscriptions,
            keys=plan.keys,
            message_size=plan.message_size,
            batching=plan.batching_options(),
            send_timeout_ms=plan.send_timeout_ms,
            seed=plan.seed,
            consumer_delay_s=plan.consumer_delay_s,
            max_pending=self.max_pending,
            out_dir=str(self.parts_dir),
            log_path="",
            seeded=self.seeded,
        )
        return [
            replace(
                base,
                index=index,
                producers=tuple(producers),
                consumers=tuple(consumers),
                log_path=str(self.parts_dir.parent / f"clients-w{index:02d}.log"),
            )
            for index, (producers, consumers) in enumerate(split_plan(plan, self.processes))
            if producers or consumers
        ]

    def start(self) -> None:
        """Start the workers, wait until every producer and consumer exists, then start every open loop at once."""
        key = secrets.token_bytes(32)
        configs = self._configs()
        self._roles = {c.index: _names(c) for c in configs}
        with contextlib.ExitStack() as stack:
            address = socket_address(stack)
            with Listener(address, family="AF_UNIX", authkey=key) as listener:
                for config in configs:
                    self._handles.append(self._spawn(config, listener, key, address))
        deadline = time.monotonic() + START_TIMEOUT_S
        for handle in self._handles:
            while not handle.ready.wait(0.2):
                if handle.failure is not None or time.monotonic() > deadline:
                    failure = handle.failure or f"not ready within {START_TIMEOUT_S:g}s"
                    self.stop()
                    raise FleetError(f"fleet worker {handle.index} did not start: {failure} ({handle.log_tail()})")
        if self.target.events is not None:
            self._relay = ProviderRelay(self.target.events, dict(self.target.services), self._broadcast_service)
            switches = self.target.events.switches()
            if switches and switches[-1].to_cluster in self.target.services:  # switched while the workers started
                self._broadcast_service(self.target.services[switches[-1].to_cluster])
        self.origin_ns = time.time_ns() + int(GO_AHEAD_S * 1e9)
        self._broadcast(("go", self.origin_ns))

    def _spawn(self, config: WorkerConfig, listener: Any, key: bytes, address: str) -> WorkerHandle:
        """One worker in a session of its own (recorded for the reaper), connected back over ``address``."""
        log_path = self.parts_dir.parent / f"fleet-w{config.index:02d}.log"
        env = dict(os.environ, **{KEY_ENV: key.hex()})
        if self.registry is not None:
            env[RUN_ID_ENV] = self.registry.run_id
        command = [sys.executable, "-m", "pytest_pulsar_ha.workload.fleet.worker_process", address]
        with log_path.open("ab") as output:
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=output, stderr=output, start_new_session=True, env=env
            )
        if self.registry is not None:
            self.registry.record(f"fleet-w{config.index}", process.pid, " ".join(command))
        handle = WorkerHandle(config.index, process, None, log_path)
        handle.conn = accept_worker(listener, process, START_TIMEOUT_S)
        if handle.conn is None:
            handle.failure = f"it never connected back (exit code {process.poll()})"
            return handle
        handle.conn.send(config)
        threading.Thread(target=self._listen, args=(handle,), name=f"fleet-w{config.index}", daemon=True).start()
        return handle

    def _listen(self, handle: WorkerHandle) -> None:
        """Everything one worker says, until its pipe closes."""
        while True:
            try:
                message = handle.conn.recv()
            except (OSError, EOFError):
                if not handle.stopped.is_set() and handle.failure is None:
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        handle.process.wait(1)
                    handle.failure = f"the worker ended (exit code {handle.process.returncode})"
                handle.sent.set()
                handle.stopped.set()
                return
            kind = message[0]
            if kind == "ready":
                handle.ready.set()
            elif kind == "failed":
                handle.failure = message[1]
            elif kind == "progress":
                self._progress(*message[1:])
            elif kind == "relayed":
                handle.relayed.append((message[1], message[2]))
            elif kind == "sent":
                handle.paces = message[1]
                self.callback_errors += message[2]
                handle.sent.set()
            elif kind == "stopped":
                _, _files, foreign, hung, errors = message
                self.foreign_receipts += foreign
                self.hung_closes += hung
                self.callback_errors += [e for e in errors if e not in self.callback_errors]
                handle.stopped.set()

    def _progress(self, report: Mapping[str, tuple[list[str], Any, Any]]) -> None:
        """A worker's report of what resolved and arrived since its last one (:func:`.worker.progress_of`)."""
        apply = {ACK: self._drain.acknowledged, SEND_ERROR: self._drain.failed, RECEIVE: self._drain.received}
        with self._lock:
            for kind, (names, codes, seqs) in report.items():
                for index, name in enumerate(names):
                    apply[kind](name, seqs[codes == index])

    def _broadcast(self, command: tuple[Any, ...]) -> None:
        for handle in self._handles:
            if handle.conn is None:
                continue
            with handle.lock, contextlib.suppress(OSError, ValueError):
                handle.conn.send(command)

    def _broadcast_service(self, service: Service) -> None:
        self._relayed.append((service.url, time.time_ns()))
        self._broadcast(("service", service))

    # -- the end -------------------------------------------------------------------------------------------

    def stop_sending(self, timeout_s: float | None = None) -> None:
        """Stop issuing sends and wait until every send in flight was acknowledged or failed (bounded as the
        single-process workload's)."""
        self._broadcast(("stop_sending",))
        if timeout_s is None:
            timeout_s = (self.plan.send_timeout_ms / 1000 or 50.0) + 10.0
        deadline = time.monotonic() + timeout_s + 5.0
        for handle in self._handles:
            handle.sent.wait(max(0.0, deadline - time.monotonic()))

    def rate_shortfalls(self) -> list[str]:
        rate = self.plan.rate_per_second
        lines = [
            f"{name} could not keep {rate:g} msg/s: {late} of {sends} sends were issued more than "
            f"{LATE_S:g}s after their intended time (at most {max_lag:.2f}s): the fleet's worker fell behind"
            for handle in self._handles
            for name, (sends, late, max_lag) in sorted(handle.paces.items())
            if sends and late > LATE_SHARE * sends
        ]
        lines += [
            f"fleet worker {h.index} never said how its sends went ({h.failure or 'no answer'})"
            for h in self._handles
            if not h.paces and h.failure is not None
        ]
        return lines

    def drain(self, timeout_s: float) -> bool:
        """Wait until the workers reported every acknowledged send received, or the time is up."""
        return wait_drained(self._lock, self._drain, timeout_s)

    def drain_held(self) -> int:
        with self._lock:
            return self._drain.held()

    def relay_delays_s(self) -> list[float]:
        """For each switch a worker applied, the seconds since the conductor relayed it (the provider's switch
        reaches a worker's client this much later than the conductor's own client)."""
        delays = []
        for handle in self._handles:
            for url, applied in handle.relayed:
                sent = [ts for u, ts in self._relayed if u == url and ts <= applied]
                if sent:
                    delays.append((applied - max(sent)) / 1e9)
        return delays

    def worker_processes(self) -> dict[int, str]:
        """The process id of each worker started, and what it runs (its producers' and consumers' names)."""
        return {handle.process.pid: self._roles.get(handle.index, "") for handle in self._handles}

    def describe(self) -> str:
        """One line for the run's facts: the workers, and how late the relayed switches reached them."""
        line = f"{len(self._handles)} worker processes"
        delays = self.relay_delays_s()
        if delays:
            count = len(self._relayed)
            switches = f"{count} switch{'es' if count > 1 else ''}"
            line += f"; {switches} relayed, applied at most {max(delays) * 1000:.1f} ms later"
        return line

    def stop(self) -> None:
        """Stop the workers (command, then SIGTERM, then SIGKILL), then add their rows to the log. Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        if self._relay is not None:
            self._relay.close()
        self._broadcast(("stop",))
        deadline = time.monotonic() + STOP_TIMEOUT_S
        for handle in self._handles:
            if not handle.stopped.wait(max(0.0, deadline - time.monotonic())):
                self.hung_closes.append(f"fleet worker {handle.index}: did not stop within {STOP_TIMEOUT_S:g}s")
        for handle in self._handles:
            self._end(handle)
        if self.into_log:
            for event in self.events():
                self.log.add(event)

    def _end(self, handle: WorkerHandle) -> None:
        """Wait for the worker to exit; else its whole group is terminated, then killed."""
        process = handle.process
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, sig)
            try:
                process.wait(5)
                break
            except subprocess.TimeoutExpired:
                continue
        if self.registry is not None:
            self.registry.forget(process.pid)
        if handle.conn is not None:
            with contextlib.suppress(OSError):
                handle.conn.close()

    def part_files(self) -> list[Path]:
        return sorted(self.parts_dir.glob("w*-*.parquet"))

    def events(self) -> Iterator[Event]:
        """The workers' rows as events, in time order (ties: worker, then file order)."""
        import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
        import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

        files = self.part_files()
        if not files:
            return
        table = pa.concat_tables([pq.read_table(str(path)) for path in files])
        table = table.take(table["ts_ns"].to_numpy().argsort(kind="stable"))
        for row in table.to_pylist():
            yield Event(**row)

    def attribute_acks(self, admins: dict[str, AdminClient], seeded: Mapping[int, str] | None = None) -> None:
        """As the single-process workload's: acks and receipts without a seeded cluster are read from storage."""
        attribute_log(self.log, admins, seeded)
