"""How a fleet's clients follow the provider under test.

The provider a scenario tests runs once, in the conductor's process, on the conductor's own client: its probes,
its decisions and its events are the ones every check and mutant reads. Each worker's client is built on a
:class:`RelayedProvider`, a ``pulsar.ServiceInfoProvider`` that applies the cluster the conductor's provider
switched to, as soon as the conductor relays it (:class:`ProviderRelay` subscribes to the provider's switch
events). The worker notes when it applied each switch, so the relay's delay is a figure of the run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from pytest_pulsar_ha.workload.fleet.config import Service

_KEEP_ALIVE: list[Any] = []
"""Relay providers in use: pulsar-client 3.13 drops its reference to a provider without the GIL at close
(see ``pulsar_ha_providers.periodic``); a worker keeps its providers until it exits."""


def service_info(service: Service) -> Any:
    import pulsar

    auth = pulsar.AuthenticationToken(service.token) if service.token else None
    return pulsar.ServiceInfo(service.url, authentication=auth)


def relayed_provider(initial: Service) -> Any:
    """A ``pulsar.ServiceInfoProvider`` starting on ``initial``, switched by :meth:`apply` (pulsar imported here)."""
    import pulsar

    class RelayedProvider(pulsar.ServiceInfoProvider):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.current = initial
            self._update: Callable[[Any], None] | None = None
            self._lock = threading.Lock()

        def initial_service_info(self) -> Any:
            return service_info(self.current)

        def initialize(self, on_service_info_update: Callable[[Any], None]) -> None:
            self._update = on_service_info_update

        def apply(self, service: Service) -> bool:
            """Switch the client to ``service``; False when it is already there (nothing done)."""
            with self._lock:
                if service == self.current or self._update is None:
                    return False
                self._update(service_info(service))
                self.current = service
                return True

        def close(self) -> None:
            return None

    provider = RelayedProvider()
    _KEEP_ALIVE.append(provider)
    return provider


class ProviderRelay:
    """In the conductor: every switch the provider under test makes (its ``events`` hub, a
    ``pulsar_ha_providers.EventHub``) is sent to every worker as the cluster's :class:`Service`."""

    def __init__(self, events: Any, services: dict[str, Service], send: Callable[[Service], None]) -> None:
        self._services = services
        self._send = send
        self._unsubscribe: Callable[[], None] = events.subscribe(self._on_event)

    def _on_event(self, event: Any) -> None:
        from pulsar_ha_providers.events import SwitchEvent

        if isinstance(event, SwitchEvent) and event.to_cluster in self._services:
            self._send(self._services[event.to_cluster])

    def close(self) -> None:
        self._unsubscribe()
