"""Turning on Pulsar's own PIP-136 synchronizer, in the order 4.0.8 needs (4.2.4 takes the same order: the demo's
``metadata-sync-two-way`` passed on an assembled 4.2.4 here, 2026-11-27).

Once ``configurationMetadataSyncEventTopic`` is set, every configuration-store write is first published on the
event topic (``sendTimeout 0``: retried for ever), so the topic's namespace must exist, replicated among the
clusters, before the setting is turned on; and every later configuration-store write is replayed on the other
clusters, cluster registrations included, so the clusters are registered with each other (each direction
through its own replication proxy) before, and never again after. Verified on 4.0.8 standalones, each with a
second RocksDB store as its configuration store: a namespace policy written on one appears on the other in
about half a second, and each cluster keeps its own view of the registrations made before.

The setting is dynamic (``POST /admin/v2/brokers/configuration/{name}/{value}``, the value URL-encoded as
Pulsar's Java admin client does) and lives in the local metadata store, so turning it on is not itself synced.
"""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Mapping, Sequence

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.errors import AdminError

SYNC_TENANT = "pulsar-ha"
EVENT_NAMESPACE = f"{SYNC_TENANT}/metadata-sync"
EVENT_TOPIC = f"persistent://{EVENT_NAMESPACE}/events"
SYNC_SETTING = "configurationMetadataSyncEventTopic"
PULSAR_SUBSCRIPTION = "metadata-syncer"
"""the subscription Pulsar's synchronizer consumes the event topic with (Failover)"""


def put_if_absent(admin: AdminClient, path: str, body: object) -> bool:
    """PUT ``path``; False when it already exists (HTTP 409: made here before, or synced from another cluster)."""
    try:
        admin.put(path, body)
    except AdminError as exc:
        if exc.status != 409:
            raise
        return False
    return True


def prepare_event_namespace(admins: Mapping[str, AdminClient], members: Sequence[str]) -> None:
    """The tenant (allowed on every cluster of ``admins``) and the event namespace, replicated among
    ``members``, on every member: before any synchronizer runs, so none of these writes is an event."""
    for name in members:
        admin = admins[name]
        put_if_absent(admin, f"tenants/{SYNC_TENANT}", {"adminRoles": [], "allowedClusters": list(admins)})
        put_if_absent(admin, f"namespaces/{EVENT_NAMESPACE}", {"replication_clusters": list(members)})


def enable_pulsar_sync(admin: AdminClient, topic: str = EVENT_TOPIC, timeout_s: float = 60.0) -> None:
    """Turn on the broker's configuration synchronizer on ``topic`` and wait until it publishes and consumes.

    The broker starts the synchronizer's producer in the background; until it is connected every
    configuration-store write fails with HTTP 500 "producer is not started yet" (seen on 4.0.8 right after the
    setting was turned on), so this returns only once the topic lists a publisher and the synchronizer's
    subscription.
    """
    admin.post(f"brokers/configuration/{SYNC_SETTING}/{urllib.parse.quote(topic, safe='')}")
    stats_path = topic.replace("persistent://", "persistent/", 1) + "/stats"
    deadline = time.monotonic() + timeout_s
    seen = "nothing yet"
    while True:
        values = admin.get("brokers/configuration/values") or {}
        if values.get(SYNC_SETTING) == topic:
            try:
                stats = admin.get(stats_path) or {}
            except AdminError as exc:  # the topic is created by the synchronizer's own producer
                seen = f"topic stats: HTTP {exc.status}"
            else:
                publishers = stats.get("publishers") or []
                subscriptions = stats.get("subscriptions") or {}
                if publishers and PULSAR_SUBSCRIPTION in subscriptions:
                    return
                seen = f"{len(publishers)} publisher(s), subscriptions {sorted(subscriptions)}"
        else:
            seen = f"{SYNC_SETTING} is {values.get(SYNC_SETTING)!r}"
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"{admin.base_url}: Pulsar's metadata synchronizer on {topic} is not running {timeout_s:g}s after "
                f"{SYNC_SETTING} was set ({seen})"
            )
        time.sleep(0.2)
