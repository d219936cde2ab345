"""pytest-pulsar-ha: chaos tests for Apache Pulsar multi-cluster high availability.

The library works without pytest::

    from pytest_pulsar_ha import HaSettings, build_environment

    with build_environment(HaSettings()) as env:
        namespace = env.create_geo_namespace()
        with env.cluster("cluster-a").outage():
            ...

Nothing heavy (pulsar, pyspark) is imported here.
"""

from pytest_pulsar_ha.errors import (
    AdminError,
    ConfigurationError,
    ProvisioningError,
    PulsarHaError,
    StartupError,
)
from pytest_pulsar_ha.runtime.backends import build_environment
from pytest_pulsar_ha.settings import HaSettings
from pytest_pulsar_ha.settings.clusters import ClusterSpec, parse_clusters

__all__ = [
    "AdminError",
    "ClusterSpec",
    "ConfigurationError",
    "HaSettings",
    "ProvisioningError",
    "PulsarHaError",
    "StartupError",
    "build_environment",
    "parse_clusters",
]
__version__ = "0.1.0"
