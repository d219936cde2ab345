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
so producers of those topics are not taken back by blue; see :func:`rollback` and the README's PIP-188 section.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_pulsar_ha.components.migration.endpoints import CLUSTER_URL_KEYS, ClusterEndpoint, target_url_problems
from pytest_pulsar_ha.errors import PulsarHaError


class MigrationError(PulsarHaError):
    """A migration step could not be done; the message says what and what to do."""


def _check_target(green: ClusterEndpoint) -> dict[str, str]:
    body = green.cluster_url()
    problems = target_url_problems(body)
    if problems:
        raise MigrationError(f"the target URL of {green.name} cannot be followed by clients: " + "; ".join(problems))
    return body


def start_migration(blue: ClusterEndpoint, green: ClusterEndpoint, namespaces: Sequence[str] | None) -> None:
    """Turn the migration on: the whole of blue (``namespaces`` None) or those namespaces (``tenant/ns``)."""
    body = _check_target(green)
    admin = blue.admin()
    if namespaces is None:
        admin.post(f"clusters/{blue.name}/migrate?migrated=true", body)
        return
    if not namespaces:
        raise MigrationError("no namespace to migrate: name at least one (tenant/namespace) or migrate the cluster")
    admin.post(f"clusters/{blue.name}/migrate?migrated=false", body)
    for namespace in namespaces:
        admin.post(f"namespaces/{namespace}/migration", True)


def rollback_migration(blue: ClusterEndpoint, namespaces: Sequence[str] | None) -> None:
    """Turn the flags off again (whole cluster, or the namespaces). Topics already migrated stay terminated."""
    admin = blue.admin()
    if namespaces is None:
        current = admin.get(f"clusters/{blue.name}/migrate") or {}
        url = current.get("migratedClusterUrl") or {}
        body = {k: v for k, v in url.items() if k in CLUSTER_URL_KEYS and v}
        admin.post(f"clusters/{blue.name}/migrate?migrated=false", body)
        return
    for namespace in namespaces:
        admin.post(f"namespaces/{namespace}/migration", False)


def migration_state(blue: ClusterEndpoint) -> dict[str, object]:
    """Blue's cluster migration policy: ``{"migrated": bool, "migratedClusterUrl": {...} | None}``."""
    answer = blue.admin().get(f"clusters/{blue.name}/migrate")
    return answer if isinstance(answer, dict) else {"migrated": False, "migratedClusterUrl": None}
