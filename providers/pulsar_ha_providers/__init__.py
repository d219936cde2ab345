"""Reference implementations of the PIP-121 cluster failover providers for the Pulsar Python client.

Both are ``pulsar.ServiceInfoProvider`` subclasses (pulsar-client >= 3.11): pass one as the service URL of
``pulsar.Client`` and its producers and consumers follow the switches.
"""

from .auto_failover import AutoClusterFailover
from .controlled_config import ControlledConfiguration
from .controlled_failover import ControlledClusterFailover
from .endpoints import ClusterEndpoint
from .events import EventHub, PollEvent, ProbeEvent, SwitchEvent, SwitchFailedEvent
from .probes import HealthProbe, LookupProbe, Probe, TcpProbe
from .url_provider_service import UrlProviderService

__all__ = [
    "AutoClusterFailover",
    "ClusterEndpoint",
    "ControlledClusterFailover",
    "ControlledConfiguration",
    "EventHub",
    "HealthProbe",
    "LookupProbe",
    "PollEvent",
    "Probe",
    "ProbeEvent",
    "SwitchEvent",
    "SwitchFailedEvent",
    "TcpProbe",
    "UrlProviderService",
]
