"""An attached session's view of a warm environment's clusters: nodes and processes that look like the
embedded backend's (the :mod:`~pytest_pulsar_ha.runtime.backend_protocol` seam) and act through the keeper's
control socket, since the keeper owns the processes. Addresses, tokens and the cluster clock come from the
state file; the clock is a file the session moves itself."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.process.control import VERBS, Controlled, Controls
from pytest_pulsar_ha.runtime.clock import ClusterClock
from pytest_pulsar_ha.runtime.cluster import Cluster
from pytest_pulsar_ha.settings.clusters import ClusterSpec
from pytest_pulsar_ha.warm.control import ControlClient


class _Keeper:
    """A cluster (``target`` None) or one of its processes (``target`` ``broker:<i>``, ``zookeeper`` or ``bookie``)
    at the keeper's end: each verb of :class:`~pytest_pulsar_ha.process.control.Controls` is a request, its
    arguments sent by their names in the protocol (``log_tail``'s ``lines``), its answer the value."""

    def __init__(self, control: ControlClient, cluster: str, target: str | None) -> None:
        self._control = control
        self._cluster = cluster
        self._target = target

    def __getattr__(self, verb: str) -> Callable[..., Any]:
        if verb not in VERBS:
            raise AttributeError(verb)
        signature = inspect.signature(getattr(Controls, verb))

        def request(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            extra = {name: value for name, value in bound.arguments.items() if name != "self"}
            return self._control.call(verb, self._cluster, self._target, **extra)

        return request


class _Controlled(Controlled):
    """What the keeper does on request (see :class:`_Keeper`)."""

    def __init__(self, control: ControlClient, cluster: str, target: str | None) -> None:
        self.process = _Keeper(control, cluster, target)


class RemoteProcess(_Controlled):
    """One process of a warm cluster (a broker, its ZooKeeper or its bookie)."""

    def __init__(self, control: ControlClient, cluster: str, process: str, info: Mapping[str, Any]) -> None:
        super().__init__(control, cluster, process)
        self.name = str(info.get("name", process))
        self.id = str(info.get("id", ""))
        self.broker_url = str(info.get("broker_url", ""))
        self.web_url = str(info.get("web_url", ""))


class RemoteNode(_Controlled):
    """One warm cluster. ``stop`` does nothing: the cluster is the keeper's, and outlives the session."""

    def __init__(self, control: ControlClient, spec: ClusterSpec, info: Mapping[str, Any]) -> None:
        super().__init__(control, spec.name, None)
        self.spec = spec
        self.token: str | None = info.get("token")
        self.broker_url = str(info["broker_url"])
        self.web_url = str(info["web_url"])
        self.dir = Path(str(info["dir"]))
        self.clock = ClusterClock(self.dir) if info.get("clock") else None
        bits = info.get("ledger_id_high_bits")
        self.ledger_id_high_bits = bits if isinstance(bits, int) else None
        self.brokers: Sequence[RemoteProcess] = [
            RemoteProcess(control, spec.name, f"broker:{i}", broker) for i, broker in enumerate(info["brokers"])
        ]
        zookeeper, bookie = info.get("zookeeper"), info.get("bookie")
        self.zookeeper = RemoteProcess(control, spec.name, "zookeeper", {"name": zookeeper}) if zookeeper else None
        self.bookie = RemoteProcess(control, spec.name, "bookie", {"name": bookie}) if bookie else None

    def stop(self) -> None:
        return None


def node_info(cluster: Cluster) -> dict[str, Any]:
    """What a session needs of a running cluster's node (written by the keeper into the state file); its clock and
    ledger numbering as the cluster handle has them."""
    node = cluster.node
    clock = cluster.clock
    return {
        "token": node.token,
        "broker_url": node.broker_url,
        "web_url": node.web_url,
        "dir": str(getattr(node, "dir", "")),
        "clock": clock is not None and clock.controlled,
        "ledger_id_high_bits": cluster.ledger_id_high_bits,
        "brokers": [
            {"name": b.name, "id": b.id, "broker_url": b.broker_url, "web_url": b.web_url} for b in node.brokers
        ],
        "zookeeper": None if node.zookeeper is None else node.zookeeper.name,
        "bookie": None if node.bookie is None else node.bookie.name,
    }


@dataclass(frozen=True)
class WarmDistribution:
    version: str


@dataclass(frozen=True)
class WarmOptions:
    distribution: WarmDistribution


class AttachedBackend:
    """The backend of an attached environment: it creates nothing (the keeper's backend did)."""

    name = "embedded"

    def __init__(self, pulsar_version: str, runtime: str) -> None:
        self.options = WarmOptions(WarmDistribution(pulsar_version))
        self.pulsar_runtime = runtime

    def describe(self) -> str:
        return f"warm environment ({self.pulsar_runtime})"

    def create(self, spec: ClusterSpec, plans: Sequence[Any]) -> Any:
        raise RuntimeError("an attached environment creates no cluster: the keeper's environment has them all")
