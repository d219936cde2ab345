"""The two sides of a PIP-188 migration, and the target URL blue hands to clients (validated here: 4.0.8 does not).

Pulsar 4.0.8 stores the target as a ``ClusterUrl`` (``serviceUrl``, ``serviceUrlTls``, ``brokerServiceUrl``,
``brokerServiceUrlTls``) in blue's cluster policies. Its ``ClusterUrl.isEmpty()`` is inverted
(``ClusterPolicies.java:56-59``, fixed upstream by apache/pulsar#26473 after 4.0.8): a body without any broker URL
is accepted, and clients then get a ``CommandTopicMigrated`` without a URL (the C++ client logs "Failed to find
the migrated broker url" and keeps reconnecting to blue). :func:`target_url_problems` refuses such bodies before
they reach the broker.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import Any

from pytest_pulsar_ha.admin.client import AdminClient

BROKER_SCHEMES = {"brokerServiceUrl": "pulsar", "brokerServiceUrlTls": "pulsar+ssl"}
WEB_SCHEMES = {"serviceUrl": "http", "serviceUrlTls": "https"}
CLUSTER_URL_KEYS = (*WEB_SCHEMES, *BROKER_SCHEMES)


@dataclass(frozen=True)
class ClusterEndpoint:
    """One cluster as the migration sees it.

    ``admin_url`` is where this tool talks to the cluster's admin API; ``broker_service_url`` (only needed for
    green) is the ``pulsar://`` URL that blue hands to clients (what clients can reach, e.g. a load balancer or
    proxy), ``service_url`` the ``http://`` URL green's admin is reachable at *from blue's brokers* (used only by
    ``clusterMigrationAutoResourceCreation``; default: ``admin_url``). ``token`` authenticates this tool.
    """

    name: str
    admin_url: str
    broker_service_url: str | None = None
    service_url: str | None = None
    token: str | None = None
    timeout: float = 10.0

    def admin(self) -> AdminClient:
        return AdminClient(self.admin_url, timeout=self.timeout, token=self.token)

    def cluster_url(self) -> dict[str, str]:
        """The ``ClusterUrl`` body naming this cluster as a migration target."""
        body = {"serviceUrl": self.service_url or self.admin_url}
        if self.broker_service_url:
            key = "brokerServiceUrlTls" if self.broker_service_url.startswith("pulsar+ssl://") else "brokerServiceUrl"
            body[key] = self.broker_service_url
        return body


def _url_problem(key: str, value: Any, scheme: str) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return f"{key} is empty"
    try:
        parsed = urllib.parse.urlsplit(value)
    except ValueError as exc:  # e.g. "Invalid IPv6 URL" for an unbalanced bracket
        return f"{key} {value!r} is not a URL ({exc})"
    if parsed.scheme != scheme:
        return f"{key} {value!r} must start with {scheme}://"
    if "," in (parsed.netloc or ""):
        return f"{key} {value!r} lists several hosts; a migration target is one URL clients look topics up on"
    try:
        port = parsed.port
    except ValueError:
        return f"{key} {value!r} has a port that is not a number from 0 to 65535"
    if not parsed.hostname:
        return f"{key} {value!r} names no host"
    if port is None or port == 0:
        return f"{key} {value!r} names no port (clients would not know where to connect)"
    return None


def target_url_problems(body: Any) -> list[str]:
    """What is wrong with a ``ClusterUrl`` body as a migration target clients can follow (empty: nothing).

    At least one broker URL (``brokerServiceUrl`` = ``pulsar://host:port`` or ``brokerServiceUrlTls`` =
    ``pulsar+ssl://host:port``) is required: that is the URL clients are redirected to; the web URLs, when
    given, must be ``http(s)://host:port``. Pulsar 4.0.8 accepts a body without broker URL (see the module).
    """
    if not isinstance(body, dict):
        return [f"expected a JSON object with brokerServiceUrl, found {type(body).__name__}"]
    problems = []
    unknown = sorted(set(body) - set(BROKER_SCHEMES) - set(WEB_SCHEMES))
    if unknown:
        problems.append(f"unknown keys {', '.join(unknown)} (a ClusterUrl has {', '.join(CLUSTER_URL_KEYS)})")
    brokers = [key for key in BROKER_SCHEMES if body.get(key)]
    if not brokers:
        problems.append(
            "no brokerServiceUrl or brokerServiceUrlTls: clients would be told to migrate without being told where "
            "(Pulsar 4.0.8 accepts this body, apache/pulsar#26473); give green's pulsar://host:port"
        )
    for key, scheme in {**BROKER_SCHEMES, **WEB_SCHEMES}.items():
        if key in body and (key in brokers or key in WEB_SCHEMES):
            problem = _url_problem(key, body[key], scheme)
            if problem:
                problems.append(problem)
    return problems
