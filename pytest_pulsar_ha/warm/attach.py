"""A test session on a warm environment: the session holds its lock, sees the keeper's clusters as an
environment of its own (:meth:`PulsarHaEnvironment.adopted`), and finds them as a fresh start would leave them.

Before the first test every fault an earlier run left in force is undone (proxies enabled, toxics removed,
clocks back, processes resumed and started: ``heal``); a cluster that still fails its health check (a deadlock,
a broker that does not come back) is restarted through the keeper, and refused with the reason when even that
does not help; a cluster an earlier run migrated (PIP-188) is refused, since nothing but a new environment undoes
that. Tests isolate themselves as on a fresh environment (fresh namespaces, a new client and provider each).
Closing the session's environment releases the lock and leaves every process running."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from pytest_pulsar_ha.errors import PulsarHaError
from pytest_pulsar_ha.network.layout import ProxyLayout
from pytest_pulsar_ha.network.toxiproxy import ToxiproxyClient
from pytest_pulsar_ha.process.pid_registry import PidRegistry
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.warm.control import CONTROL_SOCKET, ControlClient
from pytest_pulsar_ha.warm.lock import SessionLock
from pytest_pulsar_ha.warm.remote import AttachedBackend, RemoteNode
from pytest_pulsar_ha.warm.state import WarmState, WarmStore

HEALTH_TIMEOUT_S = 30.0


class EnvironmentUnhealthy(PulsarHaError):
    """A warm environment an earlier run left in a state a session cannot start from."""


def attach(
    state: WarmState, store: WarmStore, registry: PidRegistry, holder: str, say: Callable[[str], None]
) -> PulsarHaEnvironment:
    """The environment of ``state`` for one session, ready for its first test (see the module documentation)."""
    folder = store.directory(state.digest)
    lock = SessionLock(folder, holder)
    lock.acquire()
    try:
        control = ControlClient(folder / CONTROL_SOCKET)
        control.call("ping")
        specs = [c.spec() for c in state.description.clusters]
        try:
            nodes = {spec.name: RemoteNode(control, spec, state.nodes[spec.name]) for spec in specs}
            layout = ProxyLayout.from_json(state.layout)
        except (KeyError, TypeError, ValueError) as exc:
            raise EnvironmentUnhealthy(
                f"the warm environment {state.digest}'s state lacks what a session needs ({exc}); "
                f"pulsar-ha down {state.digest} and start again"
            ) from None
        env = PulsarHaEnvironment.adopted(
            specs,
            AttachedBackend(state.description.pulsar_version, state.runtime),
            toxiproxy=ToxiproxyClient(state.toxiproxy_api),
            layout=layout,
            nodes=nodes,
            work_dir=Path(state.work_dir),
            registry=registry,
        )
        env.on_close(lock.release)
        began = time.monotonic()
        ready_for_a_session(env, state.digest, say)
        env.startup_seconds = time.monotonic() - began
        return env
    except BaseException:
        lock.release()
        raise


def _health(env: PulsarHaEnvironment, name: str) -> str | None:
    """Why cluster ``name`` is not healthy now, or None."""
    try:
        env.cluster(name).admin.get("brokers/health")
    except Exception as exc:
        return str(exc)[:300]
    return None


def _healthy_within(env: PulsarHaEnvironment, name: str, timeout: float) -> str | None:
    deadline = time.monotonic() + timeout
    while True:
        why = _health(env, name)
        if why is None or time.monotonic() > deadline:
            return why
        time.sleep(1.0)


def ready_for_a_session(env: PulsarHaEnvironment, digest: str, say: Callable[[str], None]) -> None:
    """Undo what earlier runs left; restart a cluster that stays unhealthy; refuse a migrated one."""
    env.heal()
    for name, cluster in env.clusters.items():
        why = _healthy_within(env, name, HEALTH_TIMEOUT_S)
        if why is not None:
            say(f"[pulsar-ha] {name} of the warm environment is not healthy ({why}); restarting it")
            cluster.node.kill()
            cluster.node.start()
            why = _healthy_within(env, name, HEALTH_TIMEOUT_S)
            if why is not None:
                raise EnvironmentUnhealthy(
                    f"cluster {name} of the warm environment {digest} is not healthy, even restarted: {why}; "
                    f"pulsar-ha down {digest} and start again"
                )
        status, _, body = cluster.admin.get_raw(f"clusters/{name}")
        if status == 200 and json.loads(body or b"{}").get("migrated"):
            raise EnvironmentUnhealthy(
                f"cluster {name} of the warm environment {digest} was migrated (PIP-188) by an earlier run, which "
                f"only a new environment undoes: pulsar-ha down {digest}, then run again"
            )
