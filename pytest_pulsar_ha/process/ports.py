"""Free TCP ports on the loopback interface, chosen outside the kernel's ephemeral range.

A port the kernel gives for ``bind(("127.0.0.1", 0))`` comes from the ephemeral range, which is also where every
outgoing connection on the machine takes its local port: between choosing a port and the broker binding it, a
client or a replicator may take it ("Address already in use", seen once in a clean-clone run). Ports below the
ephemeral range are never taken by outgoing connections, so they are chosen there (at random, checked by binding);
only when the range leaves no room below it does this fall back to the kernel's choice.

A port handed out is not bound until its process starts, possibly many seconds later (the brokers of a
multi-broker cluster start one after the other), and each caller asks separately (the proxy layout, each
cluster's ZooKeeper and bookie, toxiproxy). So every port handed out is remembered for the life of the process
and never handed out again: two random choices from the same range would otherwise meet now and then (a CI run
lost a broker that way: "exited with code 1" while another process's port was its own).
"""

from __future__ import annotations

import random
import socket
import threading
from contextlib import ExitStack
from pathlib import Path

LOOPBACK = "127.0.0.1"
LOWEST = 10000
"""The lowest port chosen (well above the well-known and usual service ports)."""
EPHEMERAL_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
DEFAULT_EPHEMERAL = (32768, 60999)
MIN_ROOM = 2000
"""Fewer free-range ports than this below the ephemeral range: use the kernel's choice instead."""
_ATTEMPTS = 50
_handed_out: set[int] = set()
_lock = threading.Lock()


def ephemeral_range() -> tuple[int, int]:
    """The kernel's ephemeral port range (Linux), else the usual default."""
    try:
        low, high = (int(x) for x in EPHEMERAL_RANGE_FILE.read_text().split())
    except (OSError, ValueError):
        return DEFAULT_EPHEMERAL
    return low, high


def _bind(stack: ExitStack, port: int) -> int | None:
    sock = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
    try:
        sock.bind((LOOPBACK, port))
    except OSError:
        return None
    return int(sock.getsockname()[1])


def free_ports(count: int, rng: random.Random | None = None) -> list[int]:
    """Return ``count`` distinct ports that were free on 127.0.0.1 a moment ago, below the ephemeral range when
    it leaves room. All sockets are held open until every port is chosen, so the ports differ from each other."""
    rng = rng or random.Random()
    low, _ = ephemeral_range()
    room = low - LOWEST
    with _lock, ExitStack() as stack:
        if len(_handed_out) > room // 2:  # a very long-lived process: the oldest ports are long bound or gone
            _handed_out.clear()
        ports: list[int] = []
        for _ in range(count):
            port = None
            if room >= MIN_ROOM:
                for _ in range(_ATTEMPTS):
                    candidate = rng.randrange(LOWEST, low)
                    if candidate not in ports and candidate not in _handed_out:
                        port = _bind(stack, candidate)
                        if port is not None:
                            break
            if port is None:
                port = _bind(stack, 0)
            if port is None:  # pragma: no cover - bind(0) fails only when the machine has no port left
                raise OSError("no free TCP port on 127.0.0.1")
            ports.append(port)
        _handed_out.update(ports)
        return ports
