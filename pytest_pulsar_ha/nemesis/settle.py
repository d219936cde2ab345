"""The quiet end of a fault: while clients are kept off a recovering cluster (a restart, a thaw, hung
connections), the nemesis settles it: the workload's topics loaded again through its brokers' own ports, its
write path warmed, and the provider's own probe passed steadily there, before clients may come back."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from pytest_pulsar_ha.nemesis.primitives import FaultTarget
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.providers import runner_probe

SETTLE_TIMEOUT_S = 120.0


def settler(target: FaultTarget, cluster: str) -> Callable[[], None]:
    """Load the workload's topics on the recovered cluster, through its brokers' own ports, warm its write path,
    and wait until it passes the provider's own probe there steadily (:func:`wait_steady`)."""

    def settle() -> None:
        admin = target.env.cluster(cluster).admin
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        _load_topics(admin, target.topics, cluster, deadline)
        _warm_writes(target, cluster)
        _pass_probe(target, cluster, deadline)

    return settle


WARM_WRITES = 50
WARM_TOPIC = "persistent://public/default/pulsar-ha-warm-up"
"""A topic of the cluster's own namespace (not replicated, no consumer), outside the workload and its history."""


def _warm_writes(target: FaultTarget, cluster: str) -> None:
    """Publish :data:`WARM_WRITES` messages on the recovered cluster through its broker's own port, so that a
    restarted broker's cold write path (its JVM's first publishes) is not measured as the client's reconnection:
    once on 4.2.4 (CI rehearsal #14, killed-primary) the first sends after the switch back waited 0.66 s for their
    acks, then 0.1-0.2 s each for a second, where a warm broker acks in milliseconds. It also opens and closes a
    producer on each workload topic (nothing sent: the history stays the workload's), since the first ack after
    the switch back still came 0.34 s after the switch once (rehearsal #16), 0.1 s in others. Best effort: a cluster
    without ``public/default`` (a multi-broker one) is not warmed, and the probe still decides."""
    import pulsar

    node = target.env.cluster(cluster)
    options: dict[str, Any] = {"operation_timeout_seconds": 10, "logger": _quiet_logger(target.env)}
    if node.token is not None:
        options["authentication"] = node.authentication()
    client = pulsar.Client(node.direct_service_url, **options)
    try:
        producer = client.create_producer(WARM_TOPIC, send_timeout_millis=10_000)
        for _ in range(WARM_WRITES):
            producer.send(b"warm-up")
        for topic in target.topics:  # the workload's topics: a producer opened and closed, nothing sent
            client.create_producer(topic).close()
    except Exception:  # best effort: the provider's probe decides when clients come back
        pass
    finally:
        client.close()


def _quiet_logger(env: PulsarHaEnvironment) -> Any:
    import pulsar

    return pulsar.FileLogger(pulsar.LoggerLevel.Warn, str(env.work_dir / "clients.log"))


def _pass_probe(target: FaultTarget, cluster: str, deadline: float) -> None:
    probed = runner_probe(target.scenario)
    if probed is None:
        return  # the others probe by TCP (native, Java) or poll a URL service (controlled)
    from pulsar_ha_providers import ClusterEndpoint
    from pulsar_ha_providers.probes import default_probe_timeout, make_probe

    node = target.env.cluster(cluster)
    endpoint = ClusterEndpoint(node.direct_service_url, name=cluster, token=node.token, admin_url=node.direct_admin_url)
    probe, interval = make_probe(probed[0]), probed[1]
    timeout = default_probe_timeout(interval)
    wait_steady(lambda: probe.run(endpoint, timeout), cluster, probe.kind, interval, timeout, deadline)


STEADY_S = 3.0
"""How long a recovered cluster must pass the provider's probe, every check, before clients may reach it."""


class _ProbeResult(Protocol):
    @property
    def ok(self) -> bool: ...
    @property
    def latency_s(self) -> float: ...
    @property
    def error(self) -> str: ...


def wait_steady(
    run: Callable[[], _ProbeResult],
    cluster: str,
    kind: str,
    interval: float,
    timeout: float,
    deadline: float,
    *,
    steady_s: float = STEADY_S,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Probe every ``interval`` until the probe has passed, each time within half its ``timeout``, for
    ``steady_s`` in a row. A restarted broker takes its namespaces back on the first lookups and its JVM is cold:
    an answer that comes once, or only just in time, is not yet a cluster the provider will see as healthy at
    every check after the end."""
    since: float | None = None
    while True:
        started = clock()
        result = run()
        if result.ok and result.latency_s <= timeout / 2:
            since = started if since is None else since
            if clock() - since >= steady_s:
                return
        else:
            since = None
            if clock() > deadline:
                why = result.error or f"answered in {result.latency_s:.2f}s, over half its {timeout:g}s timeout"
                raise TimeoutError(f"{cluster} did not pass the {kind} probe steadily: {why}")
        sleep(max(0.0, started + interval - clock()))


def _load_topics(admin: Any, topics: list[str], cluster: str, deadline: float) -> None:
    for topic in topics:
        path = topic.replace("://", "/", 1) + "/stats"
        while True:
            try:
                admin.get(path)
                break
            except Exception as exc:
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"{topic} was not served by {cluster} within {SETTLE_TIMEOUT_S:g}s: {exc}"
                    ) from exc
                time.sleep(0.2)
