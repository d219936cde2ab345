"""Placing an anti-affinity group's namespaces so that ModularLoadManagerImpl (Pulsar 4.0.8) can honour PIP-7.

The leader counts a group's namespaces per broker from an in-memory map that it rebuilds whenever any broker
rewrites its load report, keeping only the bundles each broker *reports* (and those it assigned to itself); a
broker reports a bundle only once a topic of it is loaded, and refreshes those stats every
``statsUpdateFrequencyInSecs`` (60 s by default). A namespace that was only looked up is forgotten at the next
rebuild, so the next namespace of the group is placed as if it did not exist; on a busy host the overload fallback
also throws the anti-affinity result away. (Source reading of 4.0.8: ``ModularLoadManagerImpl`` 555-579 and
928-941, ``LoadManagerShared`` 394-411 and 540-586; README, "Failure domains".)

:data:`PIP7_BROKER_SETTINGS` and :func:`place_namespaces` are what makes placement deterministic here: each
namespace is looked up through the leader, a topic of it is created (loaded) on its owner, and the next one waits
until the owner's load report, as written for the leader, lists the bundle (it is listed and no longer among
the report's unwritten gains). The placement that results is still Pulsar's decision, read back from Pulsar.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Protocol

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.errors import AdminError
from pytest_pulsar_ha.pips.failure_domains import lookup_topic, owner_id

PIP7_BROKER_SETTINGS: Mapping[str, str] = {
    "failureDomainsEnabled": "true",
    "loadBalancerReportUpdateThresholdPercentage": "0",  # a report every 5 s (the minimum interval)
    "statsUpdateFrequencyInSecs": "1",  # reported bundles refreshed every second, not every minute
    "statsUpdateInitialDelayInSecs": "1",
    "loadBalancerBrokerOverloadedThresholdPercentage": "10000",  # 6 JVMs on 2 cores look "overloaded"
    "loadBalancerSheddingEnabled": "false",  # no unloading of "overloaded" brokers behind the test's back
    "brokerDeleteInactiveTopicsEnabled": "false",  # the placed topics stay loaded until the workload comes
}
"""Broker settings for PIP-7 placement that does not depend on timing (each line says why)."""

REPORT_SETTLE_S = 1.0
"""After the owner's report lists the bundle: the leader's metadata watch and rebuild."""


class PlacedBroker(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def direct_admin_url(self) -> str: ...


class PlacedCluster(Protocol):
    @property
    def admin(self) -> AdminClient: ...

    @property
    def brokers(self) -> Sequence[PlacedBroker]: ...

    @property
    def token(self) -> str | None: ...


def reported_bundles(admin: AdminClient) -> tuple[set[str], set[str]]:
    """The bundles in a broker's load report (``GET /admin/v2/broker-stats/load-report``), and those of them
    gained since the report was last written for the leader (``lastBundleGains``: the broker clears it on each
    write, ``ModularLoadManagerImpl.writeBrokerDataOnZooKeeper``)."""
    report = admin.get("broker-stats/load-report")
    bundles = set(report.get("bundles") or []) | set((report.get("lastStats") or {}).keys())
    return bundles, set(report.get("lastBundleGains") or [])


def wait_until_reported(admin: AdminClient, namespace: str, timeout_s: float) -> bool:
    """Until a report written for the leader lists a bundle of ``namespace``: the broker lists it and no longer
    counts it among the gains not yet written; False after ``timeout_s``.

    (Waiting instead for ``lastUpdate`` to move past the report that first listed the bundle can wait for
    nothing: a broker whose load did not change since that write writes no report for up to
    ``loadBalancerReportUpdateMaxIntervalMinutes``.)"""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        bundles, unwritten = reported_bundles(admin)
        listed = {b for b in bundles if b.startswith(f"{namespace}/")}
        if listed and not listed & unwritten:
            time.sleep(REPORT_SETTLE_S)
            return True
        time.sleep(0.5)
    return False


def place_namespaces(
    cluster: PlacedCluster, namespaces: Sequence[str], topic: str, timeout_s: float = 30.0
) -> dict[str, str]:
    """Have the load manager place ``namespaces`` one at a time (see the module's docstring); returns each
    namespace's owner (broker id). A namespace whose bundle does not show in its owner's report within
    ``timeout_s`` is not waited for longer: the placement read afterwards says what happened."""
    by_id = {broker.id: broker for broker in cluster.brokers}
    owners: dict[str, str] = {}
    for namespace in namespaces:
        leader = cluster.admin.get("brokers/leaderBroker")["brokerId"]
        via = by_id.get(leader) or next(iter(by_id.values()))
        owner = owner_id(lookup_topic(via.direct_admin_url, f"{namespace}/{topic}", cluster.token))
        owners[namespace] = owner
        admin = AdminClient(by_id[owner].direct_admin_url, token=cluster.token)
        try:
            admin.put(f"persistent/{namespace}/{topic}")
        except AdminError as exc:
            if exc.status != 409:  # 409: it exists (an earlier round): loaded by the lookup of the workload
                raise
        wait_until_reported(admin, namespace, timeout_s)
    return owners
