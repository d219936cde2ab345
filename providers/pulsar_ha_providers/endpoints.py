"""A cluster as a failover provider sees it: service URL, credentials, TLS trust, admin URL."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse


@dataclass(frozen=True)
class ClusterEndpoint:
    """One cluster a client may use.

    ``token`` is the cluster's JWT (sent as ``AuthenticationToken``); each cluster may have its own, and its own
    ``tls_trust_certs_file_path``. ``admin_url`` is only needed by the ``health`` probe. The token never appears
    in ``repr``.
    """

    service_url: str
    name: str = ""
    token: str | None = field(default=None, repr=False)
    tls_trust_certs_file_path: str | None = None
    admin_url: str | None = None

    def __post_init__(self) -> None:
        parsed = urlparse(self.service_url)
        if parsed.scheme not in ("pulsar", "pulsar+ssl") or not parsed.hostname or not parsed.port:
            raise ValueError(
                f"service_url {self.service_url!r} must look like pulsar://host:port or pulsar+ssl://host:port"
            )
        if not self.name:
            object.__setattr__(self, "name", f"{parsed.hostname}:{parsed.port}")

    @property
    def host(self) -> str:
        return urlparse(self.service_url).hostname or ""

    @property
    def port(self) -> int:
        return urlparse(self.service_url).port or 0

    @property
    def uses_tls(self) -> bool:
        return self.service_url.startswith("pulsar+ssl://")

    def authentication(self) -> Any:
        """A ``pulsar.Authentication`` for this cluster, or None."""
        if not self.token:
            return None
        import pulsar

        return pulsar.AuthenticationToken(self.token)

    def service_info(self) -> Any:
        """The ``pulsar.ServiceInfo`` that switches a client to this cluster."""
        import pulsar

        return pulsar.ServiceInfo(self.service_url, self.authentication(), self.tls_trust_certs_file_path)
