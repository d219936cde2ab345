"""PIP-136 metadata sync: the oracle of what every cluster must converge to (first slice of issue #12), and the wire
codec of the events clusters exchange."""

from pytest_pulsar_ha.components.metadata_sync.event_codec import (
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
from pytest_pulsar_ha.components.metadata_sync.oracle import (
    TIE_RULES,
    Divergence,
    MetadataWrite,
    TieRule,
    converged,
    divergences,
    winners,
    wins_over,
)

__all__ = [
    "CREATE_OPTIONS",
    "MAX_OPTIONS",
    "NOTIFICATION_TYPES",
    "TIE_RULES",
    "CreateOption",
    "Divergence",
    "MetadataEvent",
    "MetadataEventError",
    "MetadataWrite",
    "NotificationType",
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
