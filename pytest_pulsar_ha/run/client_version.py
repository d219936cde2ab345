"""The client's version, as the run states it in its facts (``client version``): which library sent and received,
so that a finding about a client names the release it was seen on."""

from __future__ import annotations

from importlib import metadata

from pytest_pulsar_ha.run.parts.java_client import brokers_version
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.model import Scenario


def client_version(scenario: Scenario, env: PulsarHaEnvironment) -> str:
    """``pulsar-client 3.11.0 (Python, the C++ client inside)`` or ``pulsar-client-original 4.2.4 (Java)``."""
    client = scenario.client
    if client.facts.driver:
        version = getattr(client, "version", None) or brokers_version(env)
        return f"pulsar-client-original {version} (Java)"
    try:
        version = metadata.version("pulsar-client")
    except metadata.PackageNotFoundError:
        version = "not installed"
    return f"pulsar-client {version} (Python, the C++ client inside)"
