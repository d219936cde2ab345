"""Health probes for AutoClusterFailover: ``tcp``, ``lookup`` (the default) and ``health``.

* ``tcp`` opens a TCP connection, as the Java client does. A hung broker behind a proxy or load balancer still
  accepts TCP, so this probe says healthy when nothing would be served (apache/pulsar#20399).
* ``lookup`` performs a real binary-protocol handshake and topic lookup (CONNECT, LOOKUP) with the cluster's
  credentials: only a broker that serves requests answers it. The default, because it tests what a client
  needs, through whatever stands in front of the brokers, and costs one small request.
* ``health`` calls the broker's HTTP health check (``/admin/v2/brokers/health``, which writes and reads a
  heartbeat topic): the strongest check, but it needs the admin URL, admin rights, and tests the HTTP path,
  not the one clients use.

Every probe has a timeout below the provider's check interval, so a blackholed endpoint cannot stall the loop.
"""

from __future__ import annotations

import socket
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass

from .endpoints import ClusterEndpoint
from .events import ProbeEvent
from .wire import probe_lookup

DEFAULT_PROBE_TOPIC = "persistent://public/default/pulsar-ha-probe"


def default_probe_timeout(check_interval: float) -> float:
    """A probe's timeout unless one is given: 80% of the check interval, at most 5 s."""
    return min(check_interval * 0.8, 5.0)


class Probe:
    kind = "abstract"

    def check(self, endpoint: ClusterEndpoint, timeout: float) -> None:
        """Return if ``endpoint`` is healthy; raise (with a reason) otherwise."""
        raise NotImplementedError

    def run(self, endpoint: ClusterEndpoint, timeout: float) -> ProbeEvent:
        began = time.monotonic()
        try:
            self.check(endpoint, timeout)
        except Exception as exc:
            reason = str(exc) or type(exc).__name__
            return ProbeEvent(endpoint.name, self.kind, False, time.monotonic() - began, reason)
        return ProbeEvent(endpoint.name, self.kind, True, time.monotonic() - began)


class TcpProbe(Probe):
    kind = "tcp"

    def check(self, endpoint: ClusterEndpoint, timeout: float) -> None:
        socket.create_connection((endpoint.host, endpoint.port), timeout=timeout).close()


@dataclass
class LookupProbe(Probe):
    topic: str = DEFAULT_PROBE_TOPIC
    listener: str | None = None
    kind = "lookup"

    def check(self, endpoint: ClusterEndpoint, timeout: float) -> None:
        tls = None
        if endpoint.uses_tls:
            tls = ssl.create_default_context(cafile=endpoint.tls_trust_certs_file_path)
        probe_lookup(
            endpoint.host,
            endpoint.port,
            self.topic,
            timeout,
            auth_method="token" if endpoint.token else None,
            auth_data=endpoint.token.encode() if endpoint.token else None,
            listener=self.listener,
            tls=tls,
        )


class HealthProbe(Probe):
    kind = "health"

    def check(self, endpoint: ClusterEndpoint, timeout: float) -> None:
        if not endpoint.admin_url:
            raise ValueError(f"the health probe needs admin_url for {endpoint.name}")
        request = urllib.request.Request(endpoint.admin_url.rstrip("/") + "/admin/v2/brokers/health")
        if endpoint.token:
            request.add_header("Authorization", f"Bearer {endpoint.token}")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                if response.status != 200:
                    raise ValueError(f"health check answered HTTP {response.status}")
        except urllib.error.HTTPError as exc:
            raise ValueError(f"health check answered HTTP {exc.code}") from None


PROBES: dict[str, Callable[[], Probe]] = {"tcp": TcpProbe, "lookup": LookupProbe, "health": HealthProbe}


def make_probe(probe: str | Probe) -> Probe:
    if isinstance(probe, Probe):
        return probe
    try:
        return PROBES[probe]()
    except KeyError:
        raise ValueError(f"unknown probe {probe!r}; valid values: {', '.join(PROBES)}") from None
