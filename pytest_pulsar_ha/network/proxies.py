"""The proxied network of an environment: which toxiproxy proxy carries which traffic, and faults on them.

Proxies per cluster X: ``X-client`` (binary protocol, lookup and broker connection), ``X-http`` (admin REST for
clients) and, for every other cluster S, ``repl-S-to-X`` (the replicator of S producing into X). Overlapping
faults may disable the same proxy: a count per proxy keeps it disabled until the last fault on it ends.
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from pytest_pulsar_ha.network.toxiproxy import ToxiproxyClient


def client_proxy(cluster: str) -> str:
    return f"{cluster}-client"


def http_proxy(cluster: str) -> str:
    return f"{cluster}-http"


def link_proxy(src: str, dst: str) -> str:
    return f"repl-{src}-to-{dst}"


class ProxyNetwork:
    def __init__(self, client: ToxiproxyClient) -> None:
        self.client = client
        self._disabled: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._toxic_ids = itertools.count(1)

    def disable(self, proxies: Iterable[str]) -> None:
        with self._lock:
            for proxy in proxies:
                self._disabled[proxy] += 1
                if self._disabled[proxy] == 1:
                    self.client.set_enabled(proxy, False)

    def enable(self, proxies: Iterable[str]) -> None:
        with self._lock:
            for proxy in proxies:
                if self._disabled[proxy] == 0:
                    continue
                self._disabled[proxy] -= 1
                if self._disabled[proxy] == 0:
                    self.client.set_enabled(proxy, True)

    @contextmanager
    def cut(self, proxies: list[str]) -> Iterator[None]:
        self.disable(proxies)
        try:
            yield
        finally:
            self.enable(proxies)

    @contextmanager
    def toxic(
        self, proxies: list[str], toxic_type: str, attributes: dict[str, Any], streams: tuple[str, ...]
    ) -> Iterator[None]:
        added: list[tuple[str, str]] = []
        try:
            for proxy in proxies:
                for stream in streams:
                    name = f"{toxic_type}-{stream}-{next(self._toxic_ids)}"
                    self.client.add_toxic(proxy, name, toxic_type, attributes, stream=stream)
                    added.append((proxy, name))
            yield
        finally:
            for proxy, name in added:
                self.client.remove_toxic(proxy, name)

    def heal(self) -> None:
        """Enable every proxy and remove every toxic, whatever faults are still recorded."""
        with self._lock:
            self._disabled.clear()
            self.client.reset()
