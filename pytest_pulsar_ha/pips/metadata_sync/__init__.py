"""PIP-136 metadata sync: the oracle of what every cluster must converge to (first slice of issue #12), the wire
codec of the events clusters exchange, and the pure decision core of a reference synchronizer."""

from pytest_pulsar_ha.pips.metadata_sync.event_codec import (
    CREATE_OPTIONS,
    MAX_OPTIONS,
    NOTIFICATION_TYPES,
    CreateOption,
    MetadataEvent,
    MetadataEventError,
    NotificationType,
    decode,
    encode,
    schema_text,
    to_write,
)
from pytest_pulsar_ha.pips.metadata_sync.oracle import (
    TIE_RULES,
    Divergence,
    MetadataWrite,
    TieRule,
    converged,
    divergences,
    winners,
    wins_over,
)
from pytest_pulsar_ha.pips.metadata_sync.sync_state import (
    Decision,
    IgnoreReason,
    SyncState,
    SyncStateError,
)

__all__ = [
    "CREATE_OPTIONS",
    "MAX_OPTIONS",
    "NOTIFICATION_TYPES",
    "TIE_RULES",
    "CreateOption",
    "Decision",
    "Divergence",
    "IgnoreReason",
    "MetadataEvent",
    "MetadataEventError",
    "MetadataWrite",
    "NotificationType",
    "SyncState",
    "SyncStateError",
    "TieRule",
    "converged",
    "decode",
    "divergences",
    "encode",
    "schema_text",
    "to_write",
    "winners",
    "wins_over",
]
