"""PIP-7: failure domains and anti-affinity namespace groups, through Pulsar's admin REST API (no pytest needed).

* :func:`declare_failure_domains` declares domains by broker index (``{"rack-1": [0, 1], "rack-2": [2, 3]}``)
  with ``POST /admin/v2/clusters/{c}/failureDomains/{d}``; brokers need ``failureDomainsEnabled=true``
  (``ClusterSpec(broker_settings={"failureDomainsEnabled": "true"})``) for the load manager to use them.
* :func:`set_anti_affinity_group` puts a namespace in a group (``POST /admin/v2/namespaces/{t}/{ns}/antiAffinity``).
* :func:`group_placement` reports, for a group, which broker and which domain owns each namespace's bundles,
  read from Pulsar only: the group's members (each namespace's own ``antiAffinity``), the domains
  (``GET .../failureDomains``) and each active broker's owned bundles
  (``GET /admin/v2/brokers/{c}/{broker}/ownedNamespaces``). Nothing is taken from what this module was told.

Placement happens when a bundle is first looked up (``lookup_topic``), not when the group is set.
"""

from __future__ import annotations

import itertools
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.errors import AdminError, ConfigurationError


class BrokerLike(Protocol):
    @property
    def id(self) -> str: ...


class ClusterLike(Protocol):
    """What the convenience functions need of a cluster (a :class:`~pytest_pulsar_ha.runtime.cluster.Cluster` fits)."""

    @property
    def name(self) -> str: ...

    @property
    def admin(self) -> AdminClient: ...

    @property
    def brokers(self) -> Sequence[BrokerLike]: ...


# -- failure domains ---------------------------------------------------------------------------------------


def domains_by_broker_id(broker_ids: Sequence[str], domains: Mapping[str, Sequence[int]]) -> dict[str, list[str]]:
    """Translate ``{domain: [broker index, ...]}`` into ``{domain: [broker id, ...]}``, validating it.

    Raises ConfigurationError for an empty domain, an index out of range, or a broker in two domains (Pulsar
    itself answers 409 for the last one, after having stored the domains before it).
    """
    if not domains:
        raise ConfigurationError("failure domains: none given; e.g. {'rack-1': [0, 1], 'rack-2': [2, 3]}")
    owner: dict[int, str] = {}
    out: dict[str, list[str]] = {}
    for domain, indexes in domains.items():
        if not domain or "/" in domain:
            raise ConfigurationError(f"failure domain name {domain!r} is not valid: use a non-empty name without '/'")
        if not indexes:
            raise ConfigurationError(f"failure domain {domain}: no broker; list broker indexes such as [0, 1]")
        for index in indexes:
            if not 0 <= index < len(broker_ids):
                raise ConfigurationError(
                    f"failure domain {domain}: broker index {index} is out of range; the cluster has "
                    f"{len(broker_ids)} brokers (indexes 0 to {len(broker_ids) - 1})"
                )
            if index in owner and owner[index] != domain:
                raise ConfigurationError(
                    f"failure domain {domain}: broker {index} is already in domain {owner[index]}; "
                    "a broker belongs to one domain at most"
                )
            owner[index] = domain
        out[domain] = [broker_ids[i] for i in dict.fromkeys(indexes)]
    return out


def set_failure_domains(admin: AdminClient, cluster: str, domains: Mapping[str, Sequence[str]]) -> None:
    """Create or replace each domain with its broker ids (``POST .../failureDomains/{domain}``)."""
    for domain, brokers in domains.items():
        admin.post(f"clusters/{cluster}/failureDomains/{_quote(domain)}", {"brokers": list(brokers)})


def failure_domains(admin: AdminClient, cluster: str) -> dict[str, list[str]]:
    """The domains Pulsar has for ``cluster``: ``{domain: sorted broker ids}``."""
    answer = admin.get(f"clusters/{cluster}/failureDomains") or {}
    return {name: sorted(data.get("brokers") or []) for name, data in answer.items()}


def delete_failure_domain(admin: AdminClient, cluster: str, domain: str) -> None:
    admin.delete(f"clusters/{cluster}/failureDomains/{_quote(domain)}")


def declare_failure_domains(cluster: ClusterLike, domains: Mapping[str, Sequence[int]]) -> dict[str, list[str]]:
    """Declare ``{domain: [broker index, ...]}`` on a harness cluster; returns what Pulsar then reports."""
    by_id = domains_by_broker_id([b.id for b in cluster.brokers], domains)
    set_failure_domains(cluster.admin, cluster.name, by_id)
    return failure_domains(cluster.admin, cluster.name)


# -- anti-affinity groups ----------------------------------------------------------------------------------


def set_anti_affinity_group(admin: AdminClient, namespace: str, group: str) -> None:
    """Put ``tenant/namespace`` in anti-affinity ``group`` (a namespace is in one group at most)."""
    if not group.strip():
        raise ConfigurationError(f"anti-affinity group of {namespace}: the group name is empty")
    post_text(admin, f"namespaces/{namespace}/antiAffinity", group)


def post_text(admin: AdminClient, path: str, text: str) -> None:
    """POST ``text`` as the raw body (Content-Type application/json, as the Java admin client sends it).

    The anti-affinity endpoint stores the body verbatim: a JSON-encoded ``"g1"`` would become a group named
    with its quotes, different from ``g1`` (seen on 4.0.8). Brokers that cannot be reached are skipped.
    """
    bases = getattr(admin, "base_urls", None) or [admin.base_url]
    headers = {"Content-Type": "application/json"}
    if admin.token:
        headers["Authorization"] = f"Bearer {admin.token}"
    errors = []
    for base in bases:
        url = f"{base}/admin/v2/{path}"
        request = urllib.request.Request(url, data=text.encode(), method="POST", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=admin.timeout) as response:
                response.read()
                return
        except urllib.error.HTTPError as exc:
            raise AdminError("POST", url, exc.code, exc.read().decode(errors="replace")) from exc
        except OSError as exc:
            errors.append(f"{base}: {exc}")
    raise OSError(f"POST {path}: no broker answered ({'; '.join(errors)})")


def anti_affinity_group(admin: AdminClient, namespace: str) -> str | None:
    """The namespace's group exactly as stored (the raw body of the answer), or None when it has none."""
    status, _, body = admin.get_raw(f"namespaces/{namespace}/antiAffinity")
    if status == 404:
        return None
    if status != 200:
        raise AdminError("GET", f"namespaces/{namespace}/antiAffinity", status, body.decode(errors="replace"))
    return body.decode() or None


def remove_anti_affinity_group(admin: AdminClient, namespace: str) -> None:
    admin.delete(f"namespaces/{namespace}/antiAffinity")


def anti_affinity_namespaces(admin: AdminClient, group: str, tenant: str) -> list[str]:
    """The namespaces of ``tenant`` whose own anti-affinity group is ``group`` (sorted), read namespace by
    namespace (``GET /admin/v2/namespaces/{tenant}``, then each one's ``antiAffinity``)."""
    return sorted(ns for ns in admin.get(f"namespaces/{tenant}") or [] if anti_affinity_group(admin, ns) == group)


def anti_affinity_namespaces_listed(admin: AdminClient, cluster: str, group: str, tenant: str) -> list[str]:
    """What Pulsar's own listing answers: ``GET /admin/v2/namespaces/{cluster}/antiAffinity/{group}?tenant=``.

    (The Java admin client sends ``?property=`` instead of ``?tenant=``.) See the PIP-7 tests for how far this
    listing can be trusted on the running version; :func:`anti_affinity_namespaces` does not depend on it.
    """
    query = urllib.parse.urlencode({"tenant": tenant})
    return sorted(admin.get(f"namespaces/{cluster}/antiAffinity/{_quote(group)}?{query}") or [])


# -- placement ---------------------------------------------------------------------------------------------


def gap(counts: Mapping[str, int]) -> int:
    """The most less the fewest of ``counts`` (0 for none): PIP-7's rule wants at most 1."""
    return max(counts.values()) - min(counts.values()) if counts else 0


@dataclass(frozen=True)
class BundlePlacement:
    namespace: str
    bundle: str
    """the hash range, e.g. ``0x00000000_0xffffffff``"""
    broker: str | None
    """the owner's broker id; None when no active broker owns it (not looked up yet, or being reassigned)"""
    domain: str | None
    """the owner's failure domain; None when it has no owner or its owner is in no domain"""


@dataclass(frozen=True)
class GroupPlacement:
    group: str
    namespaces: tuple[str, ...]
    bundles: tuple[BundlePlacement, ...]
    domains: Mapping[str, Sequence[str]]
    """the failure domains Pulsar had when the placement was read"""
    active: tuple[str, ...] = ()
    """the brokers the load manager listed as active then (only they count for evenness)"""

    def namespaces_by_domain(self) -> dict[str, list[str]]:
        """``{domain: namespaces with a bundle owned there}``, every declared domain present (maybe empty)."""
        out: dict[str, list[str]] = {domain: [] for domain in self.domains}
        for b in self.bundles:
            if b.domain is not None and b.namespace not in out.setdefault(b.domain, []):
                out[b.domain].append(b.namespace)
        return out

    def namespaces_by_broker(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for b in self.bundles:
            if b.broker is not None and b.namespace not in out.setdefault(b.broker, []):
                out[b.broker].append(b.namespace)
        return out

    def unowned(self) -> list[BundlePlacement]:
        return [b for b in self.bundles if b.broker is None]

    def live_domains(self) -> dict[str, list[str]]:
        """Each live domain's live brokers: the brokers the load manager lists as active (every broker when it
        lists none), in the domains with at least one of them."""
        active = set(self.active)
        live = {d: [b for b in brokers if not active or b in active] for d, brokers in self.domains.items()}
        return {d: brokers for d, brokers in live.items() if brokers}

    def per_live_domain(self) -> dict[str, int]:
        """How many of the group's namespaces each live domain holds."""
        by_domain = self.namespaces_by_domain()
        return {d: len(by_domain.get(d, [])) for d in self.live_domains()}

    def per_broker(self, brokers: Sequence[str]) -> dict[str, int]:
        """How many of the group's namespaces each of ``brokers`` holds."""
        by_broker = self.namespaces_by_broker()
        return {b: len(by_broker.get(b, [])) for b in brokers}

    def spread_problems(self) -> list[str]:
        """Where the placement breaks PIP-7's rule over the live part of the cluster (:meth:`live_domains`);
        empty when it holds. Every bundle has an owner in a domain; the namespaces are spread evenly over the
        live domains (counts differ by at most one: distinct domains when there are no more namespaces than
        domains) and, inside each live domain, evenly over its live brokers.
        """
        problems = [f"{b.namespace} bundle {b.bundle} has no owner" for b in self.unowned()]
        problems += [
            f"{b.namespace} is on broker {b.broker}, which is in no failure domain"
            for b in self.bundles
            if b.broker is not None and b.domain is None
        ]
        per_domain = self.per_live_domain()
        if gap(per_domain) > 1:
            problems.append(f"namespaces per live domain are uneven: {per_domain}")
        for domain, brokers in self.live_domains().items():
            counts = self.per_broker(brokers)
            if gap(counts) > 1:
                problems.append(f"namespaces per live broker in {domain} are uneven: {counts}")
        return problems

    def describe(self) -> str:
        lines = [f"anti-affinity group {self.group}: {len(self.namespaces)} namespaces"]
        lines += [f"  {b.namespace} [{b.bundle}] -> broker {b.broker} domain {b.domain}" for b in self.bundles]
        return "\n".join(lines)


def active_brokers(admin: AdminClient, cluster: str) -> list[str]:
    """The broker ids the load manager lists for ``cluster`` (``GET /admin/v2/brokers/{cluster}``)."""
    return sorted(admin.get(f"brokers/{cluster}") or [])


def owned_bundles(admin: AdminClient, cluster: str) -> dict[str, str]:
    """``{"tenant/ns/range": broker id}`` over every active broker, from each broker's own ownership list."""
    owners: dict[str, str] = {}
    for broker in active_brokers(admin, cluster):
        try:
            owned = admin.get(f"brokers/{cluster}/{broker}/ownedNamespaces") or {}
        except (AdminError, OSError):
            continue  # a broker that just left: its bundles are unowned until reassigned
        for bundle in owned:
            owners[bundle] = broker
    return owners


def namespace_bundles(admin: AdminClient, namespace: str) -> list[str]:
    """The namespace's bundle ranges (``0x00000000_0xffffffff`` for a namespace of one bundle)."""
    boundaries = (admin.get(f"namespaces/{namespace}/bundles") or {}).get("boundaries") or []
    return [f"{lo}_{hi}" for lo, hi in itertools.pairwise(boundaries)]


def group_placement(admin: AdminClient, cluster: str, group: str, tenant: str) -> GroupPlacement:
    """Which broker and domain owns each bundle of each namespace of ``group`` in ``tenant``, read from Pulsar."""
    namespaces = anti_affinity_namespaces(admin, group, tenant)
    domains = failure_domains(admin, cluster)
    domain_of = {broker: domain for domain, brokers in domains.items() for broker in brokers}
    owners = owned_bundles(admin, cluster)
    bundles = []
    for namespace in namespaces:
        for bundle in namespace_bundles(admin, namespace):
            owner = owners.get(f"{namespace}/{bundle}")
            bundles.append(BundlePlacement(namespace, bundle, owner, domain_of.get(owner) if owner else None))
    return GroupPlacement(group, tuple(namespaces), tuple(bundles), domains, tuple(active_brokers(admin, cluster)))


def cluster_group_placement(cluster: ClusterLike, group: str, tenant: str) -> GroupPlacement:
    return group_placement(cluster.admin, cluster.name, group, tenant)


def lookup_topic(web_url: str, topic: str, token: str | None = None, timeout: float = 30.0) -> dict[str, Any]:
    """``GET /lookup/v2/topic/persistent/...`` on a broker: assigns the topic's bundle if nobody owns it.

    ``topic`` is ``tenant/namespace/name`` (persistent). Returns Pulsar's answer (``brokerUrl``, ``httpUrl``...).
    """
    url = f"{web_url.rstrip('/')}/lookup/v2/topic/persistent/{topic}"
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout) as response:
            answer: dict[str, Any] = json.loads(response.read().decode())
            return answer
    except urllib.error.HTTPError as exc:
        raise AdminError("GET", url, exc.code, exc.read().decode(errors="replace")) from exc


def owner_id(lookup_answer: Mapping[str, Any]) -> str:
    """The owner's broker id (``host:webPort``) from a lookup answer's ``httpUrl``."""
    return urllib.parse.urlparse(str(lookup_answer["httpUrl"])).netloc


def _quote(part: str) -> str:
    return urllib.parse.quote(part, safe="")
