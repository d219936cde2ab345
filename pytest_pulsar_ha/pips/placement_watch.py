"""Who serves what, read from Pulsar while a scenario runs, and recorded in its history.

Two kinds of reading, both written as ``probe`` events of the process :data:`WATCH_PROCESS` (so the history
format is unchanged):

* **owner**: a topic lookup (``GET /lookup/v2/topic/...`` on a broker that answers) names the broker that owns
  the topic now: ``detail = {"probe": "owner", "ok": true, "broker": "<broker id>"}``, ``topic`` the topic.
  The checks attribute an ack to a broker only when the owner readings just before and just after it agree.
* **placement**: the anti-affinity group's placement (:func:`.failure_domains.group_placement`:
  every bundle's owner and domain, the domains and the active brokers):
  ``detail = {"probe": "placement", "ok": true, "group": ..., "namespaces": [...], "bundles": [...], ...}``.

A reading that fails is recorded with ``"ok": false`` and the error; nothing is taken from what the scenario
asked for.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.errors import AdminError
from pytest_pulsar_ha.history import PROBE, Event, now_ns
from pytest_pulsar_ha.pips.failure_domains import (
    BundlePlacement,
    GroupPlacement,
    group_placement,
    lookup_topic,
    owner_id,
)

WATCH_PROCESS = "placement-watch"
OWNER_PROBE = "owner"
PLACEMENT_PROBE = "placement"
LOOKUP_TIMEOUT_S = 2.0


def placement_detail(placement: GroupPlacement, label: str | None = None) -> str:
    """The ``detail`` of a placement reading (what :func:`placement_from_detail` reads back): ``group`` is
    ``label`` when given (the name the scenario uses), ``pulsar_group`` the name Pulsar knows."""
    return json.dumps(
        {
            "probe": PLACEMENT_PROBE,
            "ok": True,
            "group": label or placement.group,
            "pulsar_group": placement.group,
            "namespaces": list(placement.namespaces),
            "bundles": [
                {"namespace": b.namespace, "bundle": b.bundle, "broker": b.broker, "domain": b.domain}
                for b in placement.bundles
            ],
            "domains": {domain: list(brokers) for domain, brokers in placement.domains.items()},
            "active": list(placement.active),
        }
    )


def placement_from_detail(detail: str) -> GroupPlacement:
    """A placement reading back from its ``detail`` (ValueError when it is not one)."""
    data = json.loads(detail)
    if data.get("probe") != PLACEMENT_PROBE or not data.get("ok"):
        raise ValueError(f"not a successful placement reading: {detail[:200]}")
    bundles = tuple(
        BundlePlacement(str(b["namespace"]), str(b["bundle"]), b.get("broker"), b.get("domain"))
        for b in data["bundles"]
    )
    domains = {str(d): [str(b) for b in brokers] for d, brokers in data["domains"].items()}
    return GroupPlacement(
        str(data["group"]), tuple(data["namespaces"]), bundles, domains, tuple(str(b) for b in data["active"])
    )


@dataclass(frozen=True)
class WatchTarget:
    """What one cluster's watcher reads: the brokers to ask, the topics, and the group (None: owners only)."""

    cluster: str
    admin: AdminClient
    web_urls: Sequence[str]
    topics: Sequence[str]
    """``tenant/namespace/name`` of each concrete (partition) topic"""
    group: str | None = None
    """the group's name in Pulsar"""
    tenant: str | None = None
    token: str | None = None
    label: str | None = None
    """the group's name in the scenario (recorded as ``group``; default: ``group``)"""


class PlacementWatch:
    """Reads owners every ``interval_s`` (and the group's placement every ``placement_every`` rounds) until
    :meth:`stop`; each reading is passed to ``record`` as a history event."""

    def __init__(
        self,
        target: WatchTarget,
        record: Callable[[Event], object],
        *,
        interval_s: float = 0.5,
        placement_every: int = 4,
    ) -> None:
        self.target = target
        self.record = record
        self.interval_s = interval_s
        self.placement_every = placement_every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._next_broker = 0

    def read_owners(self) -> None:
        for topic in self.target.topics:
            self.record(self._owner_event(topic))

    def read_placement(self) -> None:
        target = self.target
        if target.group is None or target.tenant is None:
            return
        try:
            placement = group_placement(target.admin, target.cluster, target.group, target.tenant)
        except (AdminError, OSError, ValueError) as exc:
            label = target.label or target.group
            detail = json.dumps({"probe": PLACEMENT_PROBE, "ok": False, "group": label, "error": str(exc)})
        else:
            detail = placement_detail(placement, target.label)
        self.record(Event(now_ns(), PROBE, WATCH_PROCESS, cluster=target.cluster, detail=detail))

    def _owner_event(self, topic: str) -> Event:
        urls = list(self.target.web_urls)
        errors = []
        for attempt in range(len(urls)):
            url = urls[(self._next_broker + attempt) % len(urls)]
            try:
                answer = lookup_topic(url, topic, token=self.target.token, timeout=LOOKUP_TIMEOUT_S)
                broker = owner_id(answer)
            except (AdminError, OSError, KeyError, ValueError) as exc:
                errors.append(f"{url}: {exc}")
                continue
            self._next_broker = (self._next_broker + attempt) % len(urls)
            detail: dict[str, Any] = {"probe": OWNER_PROBE, "ok": True, "broker": broker}
            break
        else:
            detail = {"probe": OWNER_PROBE, "ok": False, "error": "; ".join(errors)[:500]}
        return Event(
            now_ns(), PROBE, WATCH_PROCESS, cluster=self.target.cluster, topic=topic, detail=json.dumps(detail)
        )

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="placement-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        rounds = 0
        while not self._stop.is_set():
            self.read_owners()
            if rounds % self.placement_every == 0:
                self.read_placement()
            rounds += 1
            self._stop.wait(self.interval_s)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=60)
