"""A fleet worker's process: ``python -m pytest_pulsar_ha.workload.fleet.worker_process <socket>`` connects back
to its conductor (the one-time key in ``$PULSAR_HA_FLEET_KEY``), takes its :class:`~.config.WorkerConfig` and runs
a :class:`~.worker.Worker` through its life: set-up, ``ready``, the open loop from ``go``, the end."""

from __future__ import annotations

import gc
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from pytest_pulsar_ha.workload.fleet.config import WorkerConfig
from pytest_pulsar_ha.workload.fleet.worker import Worker

KEY_ENV = "PULSAR_HA_FLEET_KEY"
"""The one-time key (hex) a worker authenticates its connection to the conductor with."""


def _spawn(target: Callable[..., None], *args: Any) -> threading.Thread:
    thread = threading.Thread(target=target, args=args, daemon=True)
    thread.start()
    return thread


def main(argv: list[str]) -> int:
    """``python -m pytest_pulsar_ha.workload.fleet.worker <socket>``: connect, take the configuration, run."""
    from multiprocessing.connection import Client

    if len(argv) != 1 or KEY_ENV not in os.environ:
        print(f"usage: {KEY_ENV}=<key> python -m pytest_pulsar_ha.workload.fleet.worker <socket>", file=sys.stderr)
        return 2
    conn = Client(argv[0], family="AF_UNIX", authkey=bytes.fromhex(os.environ.pop(KEY_ENV)))
    config = conn.recv()
    if not isinstance(config, WorkerConfig):
        print(f"expected a WorkerConfig, got {type(config).__name__}", file=sys.stderr)
        return 2
    worker_main(config, conn)
    return 0


def _import_the_flush() -> None:
    """Import what the history's flush needs (numpy, pyarrow and its Parquet writer) before ``ready``. Imported by
    the first flush instead, half a second into the open loop, they held the interpreter for about 0.7 s: a
    quiet 20,000 msg/s run issued 2.1% of its sends over 0.5 s late, all between 0.3 s and 1.4 s after the
    origin."""
    import numpy  # noqa: F401
    import pyarrow  # type: ignore[import-untyped, unused-ignore]
    import pyarrow.parquet  # type: ignore[import-untyped, unused-ignore]  # noqa: F401


def worker_main(config: WorkerConfig, conn: Any) -> None:
    """Run one worker on an open connection to its conductor; ends the process when done."""
    worker = Worker(config, conn)
    listener = _spawn(worker.listen)
    try:
        worker.set_up()
    except Exception as exc:
        worker.send("failed", f"set-up: {exc!r}")
        _close(worker)
        return
    _import_the_flush()
    worker.send("ready")
    gc.freeze()  # what set-up made is never collected again
    gc.disable()  # the hot paths make no cycles; the flusher collects the young objects now and then
    worker.go.wait()
    consumers = [
        _spawn(worker.consume, i, c, worker.partitioned[c_slot.topic])
        for i, (c, c_slot) in enumerate(zip(worker.consumers, config.consumers, strict=True))
    ]
    flusher = _spawn(worker.flusher)
    stamper = _spawn(worker.stamp)
    if not worker.stop.is_set():
        worker.produce()
    worker.wait_resolved((config.send_timeout_ms / 1000 or 50.0) + 10.0)
    worker.stop_stamping.set()
    stamper.join(timeout=5)
    paces = {p.name.decode(): (p.pace.sends, p.pace.late, p.pace.max_lag_s) for p in worker.producers}
    worker.flush()
    worker.send("sent", paces, list(worker.errors))
    worker.stop.wait()
    for thread in consumers:
        thread.join(timeout=5)
    flusher.join(timeout=5)
    hung = _close(worker)
    worker.flush()
    worker.send("stopped", worker.files, worker.foreign, hung, list(worker.errors))
    listener.join(timeout=1)
    conn.close()
    os._exit(0)  # the client's threads are not waited for: everything they wrote is flushed above


def _close(worker: Worker) -> list[str]:
    from pytest_pulsar_ha.workload.closing import close_within

    hung = []
    handles = [(p.name.decode(), p.handle) for p in worker.producers]
    handles += [(f"consumer-{i}", c) for i, c in enumerate(worker.consumers)]
    handles += [(f"client-{i}", c) for i, c in enumerate(worker.clients)]
    for what, handle in handles:
        stuck = close_within(handle.close, what)
        if stuck is not None:
            hung.append(stuck)
    return hung


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
