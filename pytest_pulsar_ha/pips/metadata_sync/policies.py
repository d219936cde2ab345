"""The metadata a PIP-136 scenario writes and reads: a policy, where Pulsar stores it, how to write and read it
through the admin API, and its value in the stored document the sync events carry.

PIP-136 syncs configuration-store paths, each with its whole stored document (a namespace's ``Policies`` at
``/admin/policies/<tenant>/<namespace>``, a tenant's ``TenantInfo`` at ``/admin/policies/<tenant>``), so two
policies of the same namespace are one path: a write of one replays the other as it was on the writer's side.
A scenario therefore writes one namespace policy (and may write its tenant's roles beside it), and values are
compared as canonical JSON of the policy alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pytest_pulsar_ha.admin.client import AdminClient

PolicyName = Literal["message_ttl", "retention", "tenant_admin_roles"]
POLICY_NAMES: tuple[PolicyName, ...] = ("message_ttl", "retention", "tenant_admin_roles")


def canonical(value: Any) -> str:
    """The JSON text values are compared by (keys sorted, lists of roles sorted by the policy)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class Policy:
    name: PolicyName
    level: Literal["namespace", "tenant"]
    stored_field: str
    """its key in the stored JSON document (the `value` of a sync event)"""
    rest: str
    """the admin path under the namespace or tenant ('' for the tenant itself)"""
    make: Callable[[int], Any]
    """the value of the workload's n-th write (distinct per n, so a value names its write)"""

    def owner(self, namespace: str) -> str:
        """The namespace, or the tenant of the namespace, this policy belongs to."""
        return namespace if self.level == "namespace" else namespace.split("/", 1)[0]

    def store_path(self, namespace: str) -> str:
        """The configuration-store path the sync events carry for this policy."""
        return f"/admin/policies/{self.owner(namespace)}"

    def from_stored(self, document: Mapping[str, Any]) -> Any:
        """The policy's value in a stored document (None when absent)."""
        return self._normal(document.get(self.stored_field))

    def _normal(self, value: Any) -> Any:
        if self.name == "tenant_admin_roles":
            return sorted(value or [])
        return value

    def write(self, admin: AdminClient, namespace: str, value: Any, allowed_clusters: list[str]) -> None:
        if self.level == "tenant":
            admin.post(f"tenants/{self.owner(namespace)}", {"adminRoles": value, "allowedClusters": allowed_clusters})
        else:
            admin.post(f"namespaces/{namespace}/{self.rest}", value)

    def read(self, admin: AdminClient, namespace: str) -> Any:
        if self.level == "tenant":
            info = admin.get(f"tenants/{self.owner(namespace)}") or {}
            return self._normal(info.get("adminRoles"))
        return self._normal(admin.get(f"namespaces/{namespace}/{self.rest}"))


POLICIES: dict[str, Policy] = {
    "message_ttl": Policy("message_ttl", "namespace", "message_ttl_in_seconds", "messageTTL", lambda n: 1000 + n),
    "retention": Policy(
        "retention",
        "namespace",
        "retention_policies",
        "retention",
        lambda n: {"retentionTimeInMinutes": 1000 + n, "retentionSizeInMB": 1000 + n},
    ),
    "tenant_admin_roles": Policy("tenant_admin_roles", "tenant", "adminRoles", "", lambda n: [f"role-{n}"]),
}
