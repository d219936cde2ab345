from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pulsar_ha_providers import ClusterEndpoint
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.workload.one_topic import OneTopicWorkload


@pytest.fixture
def endpoint(pulsar_ha: PulsarHaEnvironment) -> Callable[[str], ClusterEndpoint]:
    def make(name: str) -> ClusterEndpoint:
        cluster = pulsar_ha.cluster(name)
        return ClusterEndpoint(cluster.service_url, name=name, admin_url=cluster.admin_url)

    return make


@pytest.fixture
def run_workload(
    pulsar_ha: PulsarHaEnvironment, geo_namespace: str
) -> Iterator[Callable[[Any, str], OneTopicWorkload]]:
    """Start a steady workload on a client built from a provider; everything is closed after the test."""
    started: list[tuple[Any, OneTopicWorkload]] = []

    def start(provider: Any, topic: str = "steady") -> OneTopicWorkload:
        client = pulsar_ha.client(provider, operation_timeout_seconds=5)
        workload = OneTopicWorkload(client, f"persistent://{geo_namespace}/{topic}").start()
        started.append((client, workload))
        return workload

    yield start
    for client, workload in started:
        if not workload.stopped:
            workload.stop(drain_timeout=0)
        client.close()
