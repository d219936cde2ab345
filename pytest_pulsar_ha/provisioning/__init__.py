"""Make Pulsar and toxiproxy available: from the cache, an existing install, or fetched once (with progress)."""

from pytest_pulsar_ha.provisioning.cache import default_cache_dir
from pytest_pulsar_ha.provisioning.java import find_java
from pytest_pulsar_ha.provisioning.pulsar_distribution import DEFAULT_PULSAR_VERSION, PulsarDistribution, ensure_pulsar
from pytest_pulsar_ha.provisioning.toxiproxy_binary import TOXIPROXY_VERSION, ensure_toxiproxy

__all__ = [
    "DEFAULT_PULSAR_VERSION",
    "TOXIPROXY_VERSION",
    "PulsarDistribution",
    "default_cache_dir",
    "ensure_pulsar",
    "ensure_toxiproxy",
    "find_java",
]
