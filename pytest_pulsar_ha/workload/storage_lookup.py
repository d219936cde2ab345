"""Which cluster acknowledged a send, and which delivered a message: read from the brokers' own storage, not
from any client's self-report.

A send acknowledged with message id (ledger, entry) was stored at that position by the cluster that
acknowledged it. The admin API returns the entry at a position with its metadata; the copy that geo-replication
wrote on another cluster carries ``X-Pulsar-replicated-from``. So the acknowledging cluster is the one whose
entry at that position holds the same payload and was not replicated from elsewhere.

A received message's id is the position in the storage of the cluster that delivered it (the original or a
replicated copy). So the delivering cluster is the one whose entry at that position holds the same payload;
when two clusters hold it at the same position, the delivering cluster is unknown (None), never a guess. Pulsar
numbers ledgers per cluster from the same start, so that happened often; the embedded backend's standalones
number theirs apart (:mod:`pytest_pulsar_ha.runtime.ledger_owners`), so a position is on one cluster only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol


class EntryReader(Protocol):
    """What the attribution needs of an admin client (:class:`~pytest_pulsar_ha.admin.client.AdminClient` has it)."""

    def get_raw(self, path: str) -> tuple[int, dict[str, str], bytes]: ...


REPLICATED_FROM = "x-pulsar-replicated-from"


def topic_path(topic: str) -> str:
    """``persistent://t/ns/name`` -> ``persistent/t/ns/name`` (the admin REST form)."""
    domain, _, rest = topic.partition("://")
    if not rest or rest.count("/") != 2:
        raise ValueError(f"{topic!r} is not a fully qualified topic name (persistent://tenant/namespace/topic)")
    return f"{domain}/{rest}"


def acknowledging_cluster(
    admins: Mapping[str, EntryReader], topic: str, ledger_id: int, entry_id: int, payload: bytes
) -> str | None:
    """The name of the cluster that stored ``payload`` at (ledger, entry) as an original publish, or None."""
    path = f"{topic_path(topic)}/ledger/{ledger_id}/entry/{entry_id}"
    for name, admin in admins.items():
        status, headers, body = admin.get_raw(path)
        if status != 200 or body != payload:
            continue
        if REPLICATED_FROM in {key.lower() for key in headers}:
            continue
        return name
    return None


def delivering_cluster(
    admins: Mapping[str, EntryReader], topic: str, ledger_id: int, entry_id: int, payload: bytes
) -> str | None:
    """The name of the only cluster whose entry at (ledger, entry) holds ``payload``; None when none or several."""
    path = f"{topic_path(topic)}/ledger/{ledger_id}/entry/{entry_id}"
    holders = []
    for name, admin in admins.items():
        status, _, body = admin.get_raw(path)
        if status == 200 and body == payload:
            holders.append(name)
    return holders[0] if len(holders) == 1 else None
