"""AutoClusterFailover on real clusters: switch times measured from which cluster acknowledged each send."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from pulsar_ha_providers import AutoClusterFailover, ClusterEndpoint, SwitchEvent
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.workload.one_topic import OneTopicWorkload

pytestmark = pytest.mark.real_clusters

CHECK, FAILOVER, SWITCH_BACK = 0.5, 2.0, 4.0
# A client needs some time after the provider's switch to reconnect its producer and get a send through.
RECONNECT_SLACK = 5.0
# An ack cluster-a sent just before the cut can reach the client's callback just after it.
IN_FLIGHT_S = 0.5


def window(delay: float, provider: AutoClusterFailover) -> tuple[float, float]:
    """The interval after a fault's start (or end) in which the first ack by the new cluster must come."""
    return delay, delay + provider.check_interval + provider.probe_timeout + RECONNECT_SLACK


def auto(endpoint: Callable[[str], ClusterEndpoint], names: list[str], probe: str = "lookup") -> AutoClusterFailover:
    primary, *secondaries = (endpoint(n) for n in names)
    return AutoClusterFailover(
        primary, secondaries, check_interval=CHECK, failover_delay=FAILOVER, switch_back_delay=SWITCH_BACK, probe=probe
    )


def test_primary_outage_switches_over_and_back_in_time_without_loss(
    pulsar_ha: PulsarHaEnvironment,
    endpoint: Callable[[str], ClusterEndpoint],
    run_workload: Callable[..., OneTopicWorkload],
) -> None:
    provider = auto(endpoint, ["cluster-a", "cluster-b"])
    work = run_workload(provider)
    work.wait_for_acks(20)
    fault_start = time.time()
    with pulsar_ha.cluster("cluster-a").outage():
        cut = time.time()  # the proxies refuse from here on
        time.sleep(FAILOVER + 6)
    fault_end = time.time()
    time.sleep(SWITCH_BACK + 8)
    work.stop()
    work.attribute(pulsar_ha)

    first_b = work.first_ack_on("cluster-b", after=fault_start)
    assert first_b is not None, "no send was acknowledged by cluster-b after the outage began"
    lo, hi = window(FAILOVER, provider)
    assert lo <= first_b.ts - fault_start <= hi, f"switch took {first_b.ts - fault_start:.2f}s, expected [{lo}, {hi}]"
    # cluster-a acknowledges nothing while it is cut off; an ack it sent before the cut may still reach the
    # client's callback in the moments after it (seen once: an ack by cluster-a stamped after fault_start)
    assert work.clusters_between(cut + IN_FLIGHT_S, fault_end) <= {"cluster-b"}

    back = work.first_ack_on("cluster-a", after=fault_end)
    assert back is not None, "no send was acknowledged by cluster-a after the outage ended"
    lo, hi = window(SWITCH_BACK, provider)
    assert lo <= back.ts - fault_end <= hi, f"switch back took {back.ts - fault_end:.2f}s, expected [{lo}, {hi}]"
    assert work.lost() == []
    assert [(s.from_cluster, s.to_cluster) for s in provider.events.switches()] == [
        ("cluster-a", "cluster-b"),
        ("cluster-b", "cluster-a"),
    ]


def test_a_flapping_primary_does_not_switch_back_early(
    pulsar_ha: PulsarHaEnvironment,
    endpoint: Callable[[str], ClusterEndpoint],
    run_workload: Callable[..., OneTopicWorkload],
) -> None:
    provider = auto(endpoint, ["cluster-a", "cluster-b"])
    work = run_workload(provider)
    work.wait_for_acks(10)
    a = pulsar_ha.cluster("cluster-a")
    with a.outage():
        time.sleep(FAILOVER + 4)
    flapping_start = time.time()
    for _ in range(4):  # up 2 s (below switch_back_delay), down 1 s
        time.sleep(2.0)
        with a.outage():
            time.sleep(1.0)
    flapping_end = time.time()
    time.sleep(SWITCH_BACK + 8)
    work.stop()
    work.attribute(pulsar_ha)
    assert work.clusters_between(flapping_start, flapping_end) <= {"cluster-b"}, "switched back while flapping"
    back = work.first_ack_on("cluster-a", after=flapping_end)
    assert back is not None
    lo, hi = window(SWITCH_BACK, provider)
    assert lo <= back.ts - flapping_end <= hi
    assert work.lost() == []


def test_no_healthy_secondary_means_no_switch(
    pulsar_ha: PulsarHaEnvironment, endpoint: Callable[[str], ClusterEndpoint], run_workload: Callable[..., Any]
) -> None:
    provider = auto(endpoint, ["cluster-a", "cluster-b", "cluster-c"])
    work = run_workload(provider)
    work.wait_for_acks(10)
    clusters = [pulsar_ha.cluster(n) for n in ("cluster-a", "cluster-b", "cluster-c")]
    # Entered last, left first: the primary comes back before any secondary, so no tick can see a healthy
    # secondary while the primary is still down.
    with clusters[2].outage(), clusters[1].outage(), clusters[0].outage():
        all_down_since = time.time()
        time.sleep(FAILOVER + 5)
        all_down_until = time.time()
    work.wait_for_acks(10)
    work.stop()
    work.attribute(pulsar_ha)
    assert provider.events.switches() == []
    assert work.clusters_between(all_down_since, all_down_until) == set()
    assert work.clusters_between(all_down_until, time.time()) == {"cluster-a"}
    assert work.lost() == []


def test_three_clusters_with_the_first_secondary_down_go_to_the_second(
    pulsar_ha: PulsarHaEnvironment,
    endpoint: Callable[[str], ClusterEndpoint],
    run_workload: Callable[..., OneTopicWorkload],
) -> None:
    provider = auto(endpoint, ["cluster-a", "cluster-b", "cluster-c"])
    work = run_workload(provider)
    work.wait_for_acks(10)
    a, b = pulsar_ha.cluster("cluster-a"), pulsar_ha.cluster("cluster-b")
    with b.outage():
        fault_start = time.time()
        with a.outage():
            time.sleep(FAILOVER + 6)
        fault_end = time.time()
    work.stop(drain_timeout=90)
    work.attribute(pulsar_ha)
    first_c = work.first_ack_on("cluster-c", after=fault_start)
    assert first_c is not None
    lo, hi = window(FAILOVER, provider)
    assert lo <= first_c.ts - fault_start <= hi
    assert work.clusters_between(fault_start, fault_end) <= {"cluster-c"}
    assert provider.events.switches()[0].to_cluster == "cluster-c"
    assert work.lost() == []


def test_active_secondary_dying_moves_to_the_next_secondary(
    pulsar_ha: PulsarHaEnvironment,
    endpoint: Callable[[str], ClusterEndpoint],
    run_workload: Callable[..., OneTopicWorkload],
) -> None:
    provider = auto(endpoint, ["cluster-a", "cluster-b", "cluster-c"])
    work = run_workload(provider)
    work.wait_for_acks(10)
    a, b = pulsar_ha.cluster("cluster-a"), pulsar_ha.cluster("cluster-b")
    with a.outage():
        time.sleep(FAILOVER + 4)
        second_fault = time.time()
        with b.outage():
            time.sleep(FAILOVER + 5)
    work.stop()
    work.attribute(pulsar_ha)
    first_c = work.first_ack_on("cluster-c", after=second_fault)
    assert first_c is not None
    lo, hi = window(FAILOVER, provider)
    assert lo <= first_c.ts - second_fault <= hi
    assert [s.to_cluster for s in provider.events.switches()][:2] == ["cluster-b", "cluster-c"]


def test_hung_primary_tcp_probe_never_fails_over_lookup_probe_does(
    pulsar_ha: PulsarHaEnvironment,
    endpoint: Callable[[str], ClusterEndpoint],
    run_workload: Callable[..., OneTopicWorkload],
) -> None:
    tcp = auto(endpoint, ["cluster-a", "cluster-b"], probe="tcp")
    lookup = auto(endpoint, ["cluster-a", "cluster-b"], probe="lookup")
    work_tcp, work_lookup = run_workload(tcp, "hung-tcp"), run_workload(lookup, "hung-lookup")
    work_tcp.wait_for_acks(10)
    work_lookup.wait_for_acks(10)
    fault_start = time.time()
    with pulsar_ha.cluster("cluster-a").hang():
        time.sleep(FAILOVER + 8)
    for work in (work_tcp, work_lookup):
        work.stop(drain_timeout=0)
        work.attribute(pulsar_ha)
    assert tcp.events.switches() == [], "a TCP probe cannot see a hung broker: it must not have switched"
    assert all(e.ok for e in tcp.events.recent if getattr(e, "cluster", None) == "cluster-a")
    assert work_tcp.first_ack_on("cluster-b", after=fault_start) is None
    assert [s.to_cluster for s in lookup.events.switches()][:1] == ["cluster-b"]
    first_b = work_lookup.first_ack_on("cluster-b", after=fault_start)
    assert first_b is not None
    lo, hi = window(FAILOVER, lookup)
    assert lo <= first_b.ts - fault_start <= hi


def test_every_probe_and_switch_is_an_event_with_a_timestamp(
    pulsar_ha: PulsarHaEnvironment,
    endpoint: Callable[[str], ClusterEndpoint],
    run_workload: Callable[..., OneTopicWorkload],
) -> None:
    provider = auto(endpoint, ["cluster-a", "cluster-b"])
    seen: list[Any] = []
    provider.events.subscribe(seen.append)
    work = run_workload(provider)
    work.wait_for_acks(5)
    with pulsar_ha.cluster("cluster-a").outage():
        time.sleep(FAILOVER + 2)
    work.stop(drain_timeout=0)
    probes = [e for e in seen if not isinstance(e, SwitchEvent)]
    assert {e.cluster for e in probes} == {"cluster-a", "cluster-b"}
    assert any(not e.ok and e.cluster == "cluster-a" for e in probes)
    switch = next(e for e in seen if isinstance(e, SwitchEvent))
    assert switch.from_cluster == "cluster-a" and switch.to_cluster == "cluster-b" and switch.ts > 0
    failing = [e.ts for e in probes if e.cluster == "cluster-a" and not e.ok]
    assert switch.ts - failing[0] >= FAILOVER - CHECK
