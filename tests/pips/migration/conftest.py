"""The environment the migration tests share with the migration scenarios: blue (its migration check every
second), green and dc3, one standalone each; marked tests get it from the session pool (started once)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import pytest

from pytest_pulsar_ha.pips.migration import ClusterEndpoint
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.settings.clusters import ClusterSpec

MIGRATION_CLUSTERS = (
    ClusterSpec("blue", broker_settings={"clusterMigrationCheckDurationSeconds": "1"}),
    ClusterSpec("green"),
    ClusterSpec("dc3"),
)


def endpoint(env: PulsarHaEnvironment, name: str, *, broker_url: bool = True) -> ClusterEndpoint:
    """A cluster as an operator names it: admin and broker URLs through its proxies, its token."""
    cluster = env.cluster(name)
    return ClusterEndpoint(
        name, cluster.admin_url, broker_service_url=cluster.service_url if broker_url else None, token=cluster.token
    )


@dataclass
class Sides:
    env: PulsarHaEnvironment
    blue: ClusterEndpoint
    green: ClusterEndpoint
    tenant: str
    """fresh, on blue only, allowing blue, green and dc3"""

    @property
    def namespace(self) -> str:
        """``tenant/ns`` (created by :meth:`blue_namespace`)"""
        return f"{self.tenant}/ns"

    def blue_namespace(self, replication: list[str] | None = None) -> str:
        self.blue.admin().put(f"namespaces/{self.namespace}", {"replication_clusters": replication or ["blue"]})
        return self.namespace

    def green_tenant(self, allowed: list[str] | None = None) -> None:
        body = {"adminRoles": [], "allowedClusters": allowed or ["green", "dc3"]}
        self.green.admin().put(f"tenants/{self.tenant}", body)

    def green_namespace(self, replication: list[str] | None = None) -> None:
        self.green_tenant()
        self.green.admin().put(f"namespaces/{self.namespace}", {"replication_clusters": replication or ["green"]})


@pytest.fixture
def sides(pulsar_ha_marked_environment: PulsarHaEnvironment) -> Sides:
    """Blue and green of the marked environment, and a fresh tenant on blue (each test its own names)."""
    env = pulsar_ha_marked_environment
    tenant = f"mig-{uuid.uuid4().hex[:10]}"
    env.cluster("blue").admin.put(f"tenants/{tenant}", {"adminRoles": [], "allowedClusters": ["blue", "green", "dc3"]})
    return Sides(env, endpoint(env, "blue"), endpoint(env, "green"), tenant)
