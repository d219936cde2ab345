"""Where a scenario's workload runs: its namespaces (and anti-affinity group), and the failure domains it declares.

A workload of one namespace without a group runs in a fresh namespace of the shared tenant (as before). One with
several namespaces or an anti-affinity group gets a tenant of its own, and its group gets a name of its own in
Pulsar (``<group>-<tenant>``): ModularLoadManagerImpl counts the namespaces of a group by name across every tenant
of the cluster (``benchmarks/pip7_placement.py --skew``), so the namespaces of earlier scenarios in the same group,
whose bundles stay owned, would otherwise skew this one's placement (after a domain outage every new namespace of
the group went to the domain that had been down, to even the cluster-wide count). The history records the
scenario's name for the group.
"""

from __future__ import annotations

import functools
import time
import uuid
from collections.abc import Callable, Sequence

from pytest_pulsar_ha.errors import AdminError
from pytest_pulsar_ha.pips.failure_domains import (
    declare_failure_domains,
    delete_failure_domain,
    failure_domains,
    set_anti_affinity_group,
)
from pytest_pulsar_ha.pips.placing import place_namespaces
from pytest_pulsar_ha.run.context import RunContext, WorkloadNamespaces
from pytest_pulsar_ha.run.parts.base import Part
from pytest_pulsar_ha.run.parts.migrations import migrating_pairs
from pytest_pulsar_ha.runtime.environment import RETENTION, PulsarHaEnvironment
from pytest_pulsar_ha.runtime.ledger_owners import ledger_id_order
from pytest_pulsar_ha.scenario.model import Scenario
from pytest_pulsar_ha.workload.batching_choice import choose_batching
from pytest_pulsar_ha.workload.plan import WorkloadPlan
from pytest_pulsar_ha.workload.process_count import choose_processes


def create_namespaces(env: PulsarHaEnvironment, scenario: Scenario, clusters: Sequence[str]) -> WorkloadNamespaces:
    """Create the workload's namespaces on every cluster of the scenario, replicated among them, each put in the
    anti-affinity group (when the workload has one) before any topic of it is looked up."""
    workload = scenario.workload
    replication = replication_lists(scenario, clusters)
    if workload.namespaces == 1 and workload.anti_affinity_group is None:
        namespace = env.create_geo_namespace(clusters=clusters, replication=replication)
        return WorkloadNamespaces((namespace,), namespace.split("/")[0])
    tenant = f"ha-{uuid.uuid4().hex[:8]}"
    members = list(clusters)
    for name in members:
        env.cluster(name).admin.put(f"tenants/{tenant}", {"adminRoles": [], "allowedClusters": members})
    namespaces = tuple(f"{tenant}/ns-{i}" for i in range(workload.namespaces))
    label = workload.anti_affinity_group
    group = None if label is None else pulsar_group_name(label, tenant)
    for name in members:
        admin = env.cluster(name).admin
        for namespace in namespaces:
            policies = {"replication_clusters": replication[name], "retention_policies": RETENTION}
            admin.put(f"namespaces/{namespace}", policies)
            if group is not None:
                _with_retries(functools.partial(set_anti_affinity_group, admin, namespace, group))
    return WorkloadNamespaces(namespaces, tenant, group, label)


def turn_deduplication_on(env: PulsarHaEnvironment, namespaces: Sequence[str], clusters: Sequence[str]) -> str:
    """Set each namespace's deduplication policy on every cluster (before any topic is looked up) and read it
    back; the fact says what each cluster answered."""
    answers = []
    for name in clusters:
        admin = env.cluster(name).admin
        for namespace in namespaces:
            _with_retries(functools.partial(admin.post, f"namespaces/{namespace}/deduplication", True))
            answers.append(f"{name} {admin.get(f'namespaces/{namespace}/deduplication')}")
    return "namespace policy on; read back: " + ", ".join(answers)


def replication_lists(scenario: Scenario, clusters: Sequence[str]) -> dict[str, list[str]]:
    """Each cluster's replication list for the workload's namespaces: every cluster of the scenario, except
    that the two sides of a `migrate` entry do not replicate with each other (PIP-188's blue and green are
    separate: a replicator from green to blue would itself be redirected to green); or the workload's own
    ``replication`` lists when it declares them."""
    declared = scenario.workload.replication
    if declared is not None:
        return {name: list(declared.get(name, (name,))) for name in clusters}
    pairs = migrating_pairs(scenario)
    return {
        name: [name, *(other for other in clusters if other != name and frozenset((name, other)) not in pairs)]
        for name in clusters
    }


def pulsar_group_name(label: str, tenant: str) -> str:
    """The name in Pulsar of the scenario's anti-affinity group ``label`` for the run whose tenant is ``tenant``."""
    return f"{label}-{tenant}"


def place_group(env: PulsarHaEnvironment, spaces: WorkloadNamespaces, topic: str, clusters: Sequence[str]) -> None:
    """Have the load manager place the group's namespaces one at a time on every multi-broker cluster of the
    scenario (:func:`~pytest_pulsar_ha.pips.placing.place_namespaces`), before the workload looks them all
    up at once; nothing when the workload has no group."""
    if spaces.group is None:
        return
    for name in clusters:
        cluster = env.cluster(name)
        if cluster.brokers:
            place_namespaces(cluster, spaces.namespaces, topic)


def _with_retries(call: Callable[[], object], attempts: int = 5, pause_s: float = 1.0) -> None:
    """``call``, again after a server error (seen on 4.0.8: HTTP 500 "Failed to set/create
    /admin/local-policies/..." right after a namespace was created, brokers having been restarted just before)."""
    for attempt in range(attempts):
        try:
            call()
            return
        except AdminError as exc:
            if exc.status < 500 or attempt == attempts - 1:
                raise
            time.sleep(pause_s)


def declare_domains(env: PulsarHaEnvironment, scenario: Scenario) -> dict[str, dict[str, list[str]]]:
    """Declare ``topology.failure_domains`` (replacing each cluster's other domains); returns what Pulsar then
    reports per cluster."""
    out = {}
    for cluster_name, domains in scenario.topology.failure_domains.items():
        cluster = env.cluster(cluster_name)
        for stale in set(failure_domains(cluster.admin, cluster_name)) - set(domains):
            delete_failure_domain(cluster.admin, cluster_name, stale)
        out[cluster_name] = declare_failure_domains(cluster, domains)
    return out


# -- the parts -----------------------------------------------------------------------------------------------


class FailureDomains(Part):
    """PIP-7: the scenario's failure domains, declared before any namespace exists."""

    @classmethod
    def of(cls, ctx: RunContext) -> FailureDomains:
        return cls()  # declares nothing without topology.failure_domains

    def prepare(self, ctx: RunContext) -> None:
        declare_domains(ctx.env, ctx.scenario)


class Namespaces(Part):
    """The workload's namespaces and topics (partitioned ones created on every cluster), and its plan."""

    @classmethod
    def of(cls, ctx: RunContext) -> Namespaces:
        return cls()

    def prepare(self, ctx: RunContext) -> None:
        scenario, clusters = ctx.scenario, ctx.clusters
        ctx.spaces = create_namespaces(ctx.env, scenario, clusters)
        for namespace in ctx.spaces.namespaces:
            for topic in scenario.workload.topics:
                if topic.partitions:
                    for name in clusters:
                        path = f"persistent/{namespace}/{topic.name}/partitions"
                        ctx.env.cluster(name).admin.put(path, topic.partitions)
                ctx.topics.append(f"persistent://{namespace}/{topic.name}")
        w = scenario.workload
        higher = scenario.topology.ledger_ids_higher
        if higher is not None:
            ctx.facts["ledger ids"] = ledger_id_order(ctx.env.seeded_ledger_ids(), clusters, higher)
        if w.deduplication:
            ctx.facts["workload deduplication"] = turn_deduplication_on(ctx.env, ctx.spaces.namespaces, clusters)
        processes = choose_processes(scenario)
        ctx.facts["workload processes"] = f"{processes.count} ({processes.why})"
        batching = choose_batching(scenario)
        ctx.facts["workload batching"] = f"{'on' if batching.enabled else 'off'} ({batching.why})"
        ctx.plan = WorkloadPlan(
            ctx.topics,
            w.producers,
            w.consumers,
            w.subscription_type,
            w.keys,
            w.rate.per_second,
            w.message_size.bytes,
            w.duration.seconds,
            w.replicated_subscriptions,
            int(w.send_timeout.seconds * 1000),
            ctx.seed,
            w.consumer_delay.seconds,
            w.initial_position,
            batching.enabled,
            processes=processes.count,
            deduplication=w.deduplication,
            ack=w.ack,
            consume=w.consume,
            batching_type=w.batching_type,
        )


class GroupPlacement(Part):
    """PIP-7: the group's namespaces placed one at a time, before the workload looks them all up at once."""

    @classmethod
    def of(cls, ctx: RunContext) -> GroupPlacement:
        return cls()  # places nothing without workload.anti_affinity_group

    def prepare(self, ctx: RunContext) -> None:
        if ctx.spaces is None:
            raise RuntimeError("no namespaces: the Namespaces part must run before this one")
        first = ctx.scenario.workload.topics[0]  # its bundle is the namespace's (one bundle per namespace here)
        place_group(ctx.env, ctx.spaces, first.name + ("-partition-0" if first.partitions else ""), ctx.clusters)
