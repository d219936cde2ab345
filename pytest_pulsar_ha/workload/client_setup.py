"""Creating producers and consumers on clusters that may still be warming up.

A cluster that has just started (or restarted after a kill) answers its health check before every topic it
owns can be loaded: loading a topic recovers its last ledger, reads its namespace's policies topic and starts
its replicators. On a slow machine that can take longer than a client's operation timeout, so set-up steps
(never the sends a test measures) retry until a deadline.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

SETUP_TIMEOUT_S = 90.0


def create_with_retries(create: Callable[[], T], timeout_s: float = SETUP_TIMEOUT_S, pause_s: float = 1.0) -> T:
    """``create()`` (a ``client.subscribe(...)`` or ``client.create_producer(...)``), again after a Pulsar error
    until ``timeout_s`` has passed; the last error is raised then."""
    import pulsar

    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return create()
        except pulsar.PulsarException:
            if time.monotonic() + pause_s > deadline:
                raise
            time.sleep(pause_s)
