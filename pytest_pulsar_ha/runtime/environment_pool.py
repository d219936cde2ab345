"""Environments keyed by topology: a scenario that needs clusters the running environment does not have gets an
environment of its own, shared with every other scenario (or test) of the same topology.

The key of an environment is what its clusters are: names in order, brokers per cluster, broker settings and
auth (:func:`topology_key`). :class:`EnvironmentPool` keeps at most ``max_running`` environments running (by
default one: on a small machine the previous one is stopped before the next starts); the plugin orders the
tests so that those of one key run together (:func:`order_by_key`), so each key is started once.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from pytest_pulsar_ha.settings.clusters import ClusterSpec

if TYPE_CHECKING:
    from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
    from pytest_pulsar_ha.scenario.topology import Topology

TopologyKey = tuple[tuple[str, int, tuple[tuple[str, str], ...], str, str, str], ...]
T = TypeVar("T")


def topology_key(specs: Sequence[ClusterSpec]) -> TopologyKey:
    """What decides whether two environments are interchangeable (hashable, order of clusters included)."""
    return tuple(
        (
            s.name,
            s.brokers,
            tuple(sorted((k, str(v)) for k, v in s.broker_settings.items())),
            s.auth or "none",
            s.metadata_sync or "none",
            "ledger-ids-high" if s.ledger_ids_high else "",
        )
        for s in specs
    )


def describe_key(key: TopologyKey) -> str:
    """``cluster-a:4{failureDomainsEnabled=true}`` per cluster, comma separated."""
    parts = []
    for name, brokers, settings, auth, sync, ledger_ids in key:
        text = f"{name}:{brokers}"
        if settings:
            text += "{" + ",".join(f"{k}={v}" for k, v in settings) + "}"
        if auth != "none":
            text += f"[auth={auth}]"
        if sync != "none":
            text += f"[metadata_sync={sync}]"
        if ledger_ids:
            text += f"[{ledger_ids}]"
        parts.append(text)
    return ",".join(parts)


def scenario_specs(topology: Topology, session: Sequence[ClusterSpec]) -> tuple[ClusterSpec, ...] | None:
    """The clusters a scenario needs when the session's do not fit it; None when they do.

    The session's environment fits when it has every cluster the scenario names and, for each, the brokers and
    broker settings the scenario asks for (a scenario that names no brokers or settings takes the session's).
    Auth is the session's either way (the runner reports a scenario whose auth does not match).
    """
    by_name = {spec.name: spec for spec in session}
    names = list(topology.clusters or by_name)
    default = session[0] if session else ClusterSpec("cluster-a")
    wanted = []
    for name in names:
        base = by_name.get(name, dataclasses.replace(default, name=name, broker_settings={}))
        brokers = topology.brokers_of(name)
        settings = topology.settings_of(name)
        wanted.append(
            dataclasses.replace(
                base,
                brokers=base.brokers if brokers is None else brokers,
                broker_settings={**base.broker_settings, **settings},
                metadata_sync=topology.sync_of(name),
                ledger_ids_high=name == topology.ledger_ids_higher,
            )
        )
    fits = all(
        name in by_name and topology_key([by_name[name]]) == topology_key([spec])
        for name, spec in zip(names, wanted, strict=True)
    )
    return None if fits else tuple(wanted)


def order_by_key(items: Sequence[T], key_of: Callable[[T], Hashable | None]) -> list[T]:
    """Items without a key first (in their order), then the others grouped by key (keys in order of first
    appearance, items in their order): each key's environment is then started once."""
    plain = [item for item in items if key_of(item) is None]
    groups: dict[Hashable, list[T]] = {}
    for item in items:
        key = key_of(item)
        if key is not None:
            groups.setdefault(key, []).append(item)
    return plain + [item for group in groups.values() for item in group]


class EnvironmentPool:
    """Running environments by key; :meth:`get` reuses one or starts it (stopping the oldest beyond
    ``max_running``); :meth:`close` stops them all."""

    def __init__(self, start: Callable[[tuple[ClusterSpec, ...]], PulsarHaEnvironment], max_running: int = 1) -> None:
        if max_running < 1:
            raise ValueError(f"max_running must be at least 1, got {max_running}")
        self._start = start
        self.max_running = max_running
        self._running: dict[TopologyKey, PulsarHaEnvironment] = {}
        self.started: list[TopologyKey] = []
        """every key started, in order (a key started twice is listed twice)"""
        self.stopped: set[int] = set()
        """``id()`` of every environment stopped by the pool"""

    def running(self) -> list[TopologyKey]:
        return list(self._running)

    def get(self, specs: Sequence[ClusterSpec]) -> PulsarHaEnvironment:
        key = topology_key(specs)
        env = self._running.get(key)
        if env is not None:
            return env
        while len(self._running) >= self.max_running:
            self._stop(next(iter(self._running)))
        _log(f"starting an environment for {describe_key(key)}")
        env = self._start(tuple(specs))
        self._running[key] = env
        self.started.append(key)
        return env

    def is_stopped(self, env: Any) -> bool:
        return id(env) in self.stopped

    def _stop(self, key: TopologyKey) -> None:
        env = self._running.pop(key)
        began = time.monotonic()
        try:
            env.close()
        finally:
            self.stopped.add(id(env))
            _log(f"stopped the environment {describe_key(key)} in {time.monotonic() - began:.0f}s")

    def close(self) -> None:
        for key in list(self._running):
            self._stop(key)


def _log(message: str) -> None:
    print(f"[pulsar-ha] {message}", file=sys.stderr, flush=True)
