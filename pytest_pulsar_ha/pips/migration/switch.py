"""The two switches of PIP-188 in Pulsar 4.0.8, as admin calls on blue.

* Whole cluster: ``POST /admin/v2/clusters/{blue}/migrate?migrated=true`` with the target ``ClusterUrl``.
* Namespaces: the URL still comes from the *cluster* policies (``AbstractTopic.java:1342-1372``), so first
  ``POST /admin/v2/clusters/{blue}/migrate?migrated=false`` with the URL, then
  ``POST /admin/v2/namespaces/{tenant}/{ns}/migration`` with the body ``true`` for each namespace (stored in the
  namespace's local policies).

Both are stored in blue's **local** metadata store. Blue acts on them only in its periodic check
(``clusterMigrationCheckDurationSeconds`` > 0, default 0 = never), over loaded topics.

Rollback clears the flags (``migrated=false`` / namespace ``false``). What it cannot undo in 4.0.8: every topic
already migrated keeps its ledger terminated and its ``migrated=true`` property (``ManagedLedgerImpl.asyncMigrate``),
so producers of those topics are not taken back by blue; see
:mod:`pytest_pulsar_ha.pips.migration.migration` (what rollback was seen to do) and the README.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_pulsar_ha.errors import AdminError, PulsarHaError
from pytest_pulsar_ha.pips.migration.endpoints import CLUSTER_URL_KEYS, ClusterEndpoint, target_url_problems


class MigrationError(PulsarHaError):
    """A migration step could not be done; the message says what and what to do."""


def _check_target(green: ClusterEndpoint) -> dict[str, str]:
    body = green.cluster_url()
    problems = target_url_problems(body)
    if problems:
        raise MigrationError(f"the target URL of {green.name} cannot be followed by clients: " + "; ".join(problems))
    return body


@dataclass(frozen=True)
class AdminCall:
    """One admin REST call on blue, as :func:`start_migration` makes it (and a dry run prints it)."""

    method: str
    path: str
    """relative to ``/admin/v2/``"""
    body: Any

    def describe(self, admin_url: str) -> str:
        return f"{self.method} {admin_url.rstrip('/')}/admin/v2/{self.path} {json.dumps(self.body)}"

    def as_dict(self) -> dict[str, Any]:
        return {"method": self.method, "path": f"/admin/v2/{self.path}", "body": self.body}


def start_calls(blue: ClusterEndpoint, green: ClusterEndpoint, namespaces: Sequence[str] | None) -> list[AdminCall]:
    """The calls :func:`start_migration` makes on blue, in order (raises :class:`MigrationError` when the target
    URL cannot be followed by clients, or when ``namespaces`` is empty)."""
    body = _check_target(green)
    if namespaces is None:
        return [AdminCall("POST", f"clusters/{blue.name}/migrate?migrated=true", body)]
    if not namespaces:
        raise MigrationError("no namespace to migrate: name at least one (tenant/namespace) or migrate the cluster")
    return [
        AdminCall("POST", f"clusters/{blue.name}/migrate?migrated=false", body),
        *(AdminCall("POST", f"namespaces/{namespace}/migration", True) for namespace in namespaces),
    ]


def start_migration(blue: ClusterEndpoint, green: ClusterEndpoint, namespaces: Sequence[str] | None) -> None:
    """Turn the migration on: the whole of blue (``namespaces`` None) or those namespaces (``tenant/ns``)."""
    admin = blue.admin()
    for call in start_calls(blue, green, namespaces):
        admin.call(call.method, call.path, call.body)


def rollback_migration(blue: ClusterEndpoint, namespaces: Sequence[str] | None) -> None:
    """Turn the flags off again (whole cluster, or the namespaces). Topics already migrated stay terminated."""
    admin = blue.admin()
    if namespaces is None:
        url = migration_state(blue).get("migratedClusterUrl") or {}
        if not isinstance(url, dict):
            url = {}
        body = {k: v for k, v in url.items() if k in CLUSTER_URL_KEYS and v}
        admin.post(f"clusters/{blue.name}/migrate?migrated=false", body)
        return
    for namespace in namespaces:
        admin.post(f"namespaces/{namespace}/migration", False)


def migration_state(blue: ClusterEndpoint) -> dict[str, object]:
    """Blue's cluster migration policy: ``{"migrated": bool, "migratedClusterUrl": {...} | None}``.

    4.0.8 answers 404 "Cluster does not exist" until the cluster policies were written once (no migration was
    ever started): that is read as not migrated, without URL.
    """
    try:
        answer = blue.admin().get(f"clusters/{blue.name}/migrate")
    except AdminError as exc:
        if exc.status != 404:
            raise
        answer = None
    return answer if isinstance(answer, dict) else {"migrated": False, "migratedClusterUrl": None}
