"""A cluster's metadata as the reference synchronizer sees it: the stored documents of tenants and their
namespaces, read and written through the admin API.

PIP-136 syncs configuration-store paths with their whole stored JSON document; the admin API returns the same
documents (``GET /admin/v2/namespaces/{tenant}/{namespace}`` is the namespace's ``Policies``,
``GET /admin/v2/tenants/{tenant}`` its ``TenantInfo``), but writes them piecewise. So applying a document sets
what the reference synchronizer knows how to set (:data:`NAMESPACE_FIELDS`, the tenant's roles and clusters), or
creates the namespace with the whole document when it is missing; a field it does not know is left as it is
and said in :attr:`Applied.skipped`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.errors import AdminError

POLICIES_ROOT = "/admin/policies/"


def canonical_document(document: Any) -> bytes:
    return json.dumps(document, sort_keys=True, separators=(",", ":")).encode()


def _set_or_remove(rest: str) -> Callable[[AdminClient, str, Any], None]:
    def apply(admin: AdminClient, namespace: str, value: Any) -> None:
        if value is None:
            admin.delete(f"namespaces/{namespace}/{rest}")
        else:
            admin.post(f"namespaces/{namespace}/{rest}", value)

    return apply


NAMESPACE_FIELDS: dict[str, Callable[[AdminClient, str, Any], None]] = {
    "message_ttl_in_seconds": _set_or_remove("messageTTL"),
    "retention_policies": _set_or_remove("retention"),
}
"""Policies fields the reference synchronizer applies, by their key in the stored document."""


@dataclass
class Applied:
    path: str
    fields: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    created: bool = False


def path_of(tenant: str, namespace: str | None = None) -> str:
    return f"{POLICIES_ROOT}{tenant}" + (f"/{namespace}" if namespace else "")


def split_path(path: str) -> tuple[str, str | None] | None:
    """``(tenant, "tenant/namespace" or None)`` of a policies path; None for any other path."""
    if not path.startswith(POLICIES_ROOT):
        return None
    parts = path[len(POLICIES_ROOT) :].split("/")
    if len(parts) == 1 and parts[0]:
        return parts[0], None
    if len(parts) == 2 and all(parts):
        return parts[0], f"{parts[0]}/{parts[1]}"
    return None


class ClusterDocuments:
    """Read and write the documents of ``tenants`` on one cluster."""

    def __init__(self, admin: AdminClient, tenants: list[str]) -> None:
        self.admin = admin
        self.tenants = tenants

    def read_all(self) -> dict[str, bytes]:
        """path -> canonical document, for each tracked tenant and each of its namespaces."""
        out: dict[str, bytes] = {}
        for tenant in self.tenants:
            info = self._get(f"tenants/{tenant}")
            if info is None:
                continue
            out[path_of(tenant)] = canonical_document(info)
            for namespace in self._get(f"namespaces/{tenant}") or []:
                policies = self._get(f"namespaces/{namespace}")
                if policies is not None:
                    out[path_of(*namespace.split("/", 1))] = canonical_document(policies)
        return out

    def read(self, path: str) -> bytes | None:
        where = split_path(path)
        if where is None:
            return None
        tenant, namespace = where
        document = self._get(f"namespaces/{namespace}" if namespace else f"tenants/{tenant}")
        return None if document is None else canonical_document(document)

    def apply(self, path: str, value: bytes) -> Applied:
        """Make the cluster hold ``value`` at ``path`` as far as the admin API allows."""
        where = split_path(path)
        applied = Applied(path)
        if where is None:
            applied.skipped.append(path)
            return applied
        tenant, namespace = where
        document = json.loads(value)
        if namespace is None:
            self.admin.post(
                f"tenants/{tenant}",
                {"adminRoles": document.get("adminRoles") or [], "allowedClusters": document.get("allowedClusters")},
            )
            applied.fields += ["adminRoles", "allowedClusters"]
            return applied
        current = self._get(f"namespaces/{namespace}")
        if current is None:
            self.admin.put(f"namespaces/{namespace}", document)
            applied.created = True
            return applied
        for key in sorted(set(document) | set(current)):
            if document.get(key) == current.get(key):
                continue
            setter = NAMESPACE_FIELDS.get(key)
            if setter is None:
                applied.skipped.append(key)
                continue
            setter(self.admin, namespace, document.get(key))
            applied.fields.append(key)
        return applied

    def _get(self, path: str) -> Any:
        try:
            return self.admin.get(path)
        except AdminError as exc:
            if exc.status == 404:
                return None
            raise
