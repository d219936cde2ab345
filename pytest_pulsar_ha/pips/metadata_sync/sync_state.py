"""The pure core of a reference PIP-136 synchronizer: what one cluster decides about each local write and each
event read from the metadata event topic. No network, no clock: the caller does the I/O and passes the times.

It holds, per path, the winning write known so far (origin cluster, origin time, value or tombstone) and decides
by last writer wins on ORIGIN timestamps with ``oracle.wins_over``: never on the time a value was applied
locally, which is what Pulsar 4.0.8 compares (``shouldIgnoreEvent`` reads the local store's modification time),
so there an event that arrives after a newer local apply of an older event can be lost. An applied event is
never republished (``receive`` returns no event), the cluster's own events are ignored, and an exact duplicate
is ignored idempotently, also after a restart from :meth:`SyncState.to_json`.

Local writes: a write made on this cluster always takes effect locally (the store just writes it), is recorded
as what this cluster holds, and is published with its origin time: the cluster's clock, or one millisecond after
the write it held for that path when that is later (a hybrid clock). A write made after this cluster saw another
one is so stamped later than it, whatever the clocks say: where a cluster's clock runs ahead, its writes do not
outlive the later writes of clusters that saw them (``scenarios/metadata-sync.pulsar-ha.yaml``,
metadata-sync-clock-ahead). Pulsar 4.0.8 stamps the local clock only, so there the later write loses on every
other cluster and the writer keeps it: they diverge. Writes no cluster saw before making its own (a cut link)
are ordered by the clocks alone, as PIP-136 says.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any, Final, Literal

from pytest_pulsar_ha.pips.metadata_sync.event_codec import MetadataEvent, MetadataEventError, to_write
from pytest_pulsar_ha.pips.metadata_sync.oracle import TIE_RULES, MetadataWrite, TieRule, wins_over

IgnoreReason = Literal[
    "own event",
    "older than what is held",
    "duplicate",
    "tie lost",
    "ephemeral/sequential",
    "no source cluster",
    "not a write",
]

STATE_FORMAT_VERSION: Final = 1


class SyncStateError(ValueError):
    """A saved synchronizer state that cannot be loaded."""


@dataclass(frozen=True)
class Decision:
    """What to do with an event read from the topic: ``apply`` ``write`` to the local store (its value None:
    delete the path), or ``ignore`` it for ``reason``. Never an event to publish."""

    action: Literal["apply", "ignore"]
    write: MetadataWrite | None = None
    reason: IgnoreReason | None = None
    detail: str = ""

    @property
    def applies(self) -> bool:
        return self.action == "apply"


def _ignore(reason: IgnoreReason, detail: str = "") -> Decision:
    return Decision("ignore", reason=reason, detail=detail)


class SyncState:
    """One cluster's synchronizer state: per path, the winning write it holds (its own or a remote one applied)."""

    def __init__(self, cluster: str, tie: TieRule = "pip") -> None:
        if not isinstance(cluster, str) or not cluster:
            raise ValueError("a synchronizer needs its cluster's name")
        if tie not in TIE_RULES:
            raise ValueError(f"unknown tie rule {tie!r}; expected one of {', '.join(TIE_RULES)}")
        self.cluster = cluster
        self.tie: TieRule = tie
        self._held: dict[str, MetadataWrite] = {}

    def local_write(self, path: str, value: bytes | None, ts_ms: int) -> MetadataEvent:
        """A write made on this cluster when its clock read ``ts_ms`` (``value`` None: a deletion): it takes effect
        whatever is held, stamped ``ts_ms`` or one millisecond after the write held for ``path`` when that is later
        (see the module's docstring); returns the event to publish."""
        held = self._held.get(path)
        if held is not None and held.ts_ms >= ts_ms:
            ts_ms = held.ts_ms + 1
        write = MetadataWrite(path, value, self.cluster, ts_ms)
        self._held[path] = write
        return MetadataEvent(
            path=path,
            value=value,
            options=(),  # what Pulsar 4.0.8 publishes: an empty set
            expected_version=None,
            last_updated_timestamp=ts_ms,
            source_cluster=self.cluster,
            type="Deleted" if value is None else "Modified",
        )

    def receive(self, event: MetadataEvent) -> Decision:
        """Decide about an event read from the topic; an ``apply`` is recorded as held."""
        if event.source_cluster is None:
            return _ignore("no source cluster")
        if event.source_cluster == self.cluster:
            return _ignore("own event")
        if event.options and ("Ephemeral" in event.options or "Sequential" in event.options):
            return _ignore("ephemeral/sequential", ",".join(sorted(set(event.options))))
        try:
            write = to_write(event)
        except MetadataEventError as e:
            return _ignore("not a write", str(e))
        held = self._held.get(write.path)
        if held is not None:
            if held == write:
                return _ignore("duplicate")
            if not wins_over(write, held, self.tie):
                if write.ts_ms < held.ts_ms:
                    return _ignore("older than what is held", f"{write.ts_ms} < {held.ts_ms} from {held.cluster}")
                return _ignore("tie lost", f"at {held.ts_ms} to {held.cluster} (tie rule {self.tie})")
        self._held[write.path] = write
        return Decision("apply", write=write)

    def held(self) -> dict[str, bytes]:
        """Path -> the value this cluster should hold now (deleted paths absent), in path order."""
        return {path: w.value for path, w in sorted(self._held.items()) if w.value is not None}

    def winners(self) -> dict[str, MetadataWrite]:
        """Path -> the write held for it, tombstones included, in path order."""
        return dict(sorted(self._held.items()))

    # --- persistence ------------------------------------------------------------------------------------------

    def to_json(self) -> str:
        """The state, to reload with :meth:`from_json` after a restart (values base64, tombstones null)."""
        held = {
            path: {
                "cluster": w.cluster,
                "ts_ms": w.ts_ms,
                "value": None if w.value is None else base64.b64encode(w.value).decode("ascii"),
            }
            for path, w in sorted(self._held.items())
        }
        return json.dumps({"version": STATE_FORMAT_VERSION, "cluster": self.cluster, "tie": self.tie, "held": held})

    @classmethod
    def from_json(cls, text: str) -> SyncState:
        """The state :meth:`to_json` saved; :class:`SyncStateError` on anything else."""
        try:
            doc = json.loads(text)
        except (TypeError, ValueError, RecursionError) as e:
            raise SyncStateError(f"synchronizer state is not JSON: {e}") from None
        if not isinstance(doc, dict):
            raise SyncStateError(f"synchronizer state is a JSON object, found {type(doc).__name__}")
        version = doc.get("version")
        if version != STATE_FORMAT_VERSION or isinstance(version, bool):
            raise SyncStateError(f"unknown synchronizer state version {version!r}; expected {STATE_FORMAT_VERSION}")
        unknown = set(doc) - {"version", "cluster", "tie", "held"}
        if unknown:
            raise SyncStateError(f"unknown synchronizer state fields: {', '.join(sorted(unknown))}")
        held = doc.get("held")
        if not isinstance(held, dict):
            raise SyncStateError("synchronizer state needs 'held', an object of path -> write")
        cluster, tie = doc.get("cluster"), doc.get("tie")
        if not isinstance(cluster, str) or not cluster:
            raise SyncStateError(f"synchronizer state needs 'cluster', a non-empty string, found {cluster!r}")
        if tie not in TIE_RULES:
            raise SyncStateError(f"unknown tie rule {tie!r} in synchronizer state; expected one of {TIE_RULES}")
        try:
            state = cls(cluster, tie)
            for path, entry in held.items():
                state._held[path] = _write_from_json(path, entry)
        except ValueError as e:
            raise SyncStateError(f"bad synchronizer state: {e}") from None
        return state


def _write_from_json(path: str, entry: Any) -> MetadataWrite:
    if not isinstance(entry, dict) or set(entry) != {"cluster", "ts_ms", "value"}:
        raise ValueError(f"held[{path!r}] is an object with exactly cluster, ts_ms and value")
    cluster, ts_ms, value = entry["cluster"], entry["ts_ms"], entry["value"]
    if not isinstance(cluster, str):
        raise ValueError(f"held[{path!r}].cluster is a string")
    if value is not None:
        if not isinstance(value, str):
            raise ValueError(f"held[{path!r}].value is base64 or null")
        try:
            value = base64.b64decode(value, validate=True)
        except ValueError as e:  # binascii.Error, or a non-ASCII string
            raise ValueError(f"held[{path!r}].value is not base64: {e}") from None
    return MetadataWrite(path, value, cluster, ts_ms)
