"""The wire form of PIP-136's ``MetadataEvent``: Avro binary encoding of the schema Pulsar registers for the
metadata event topic, written by hand (no Avro dependency), and a decoder that treats its input as hostile.

The schema is ``metadata_event.avsc`` next to this module, copied verbatim from a Pulsar 4.0.8 broker's schema
registry (``GET /admin/v2/schemas/<tenant>/<ns>/<topic>/schema`` on the event topic). Java's ``ReflectData``
derived it from ``org.apache.pulsar.metadata.api.MetadataEvent``: the fields come in alphabetical order, every
object field is a union ``["null", T]`` (branch 0 null, branch 1 the value) and the primitives (``long
lastUpdatedTimestamp``, ``int version``) are not. ``options`` is a Java ``HashSet<CreateOption>``; Pulsar 4.0.8
publishes an empty set, not null, for a plain write or a deletion.

Avro binary, as used here: ``int``/``long`` are zig-zag varints (at most 5/10 bytes), a union is its branch
index (a ``long``) then the branch, ``string``/``bytes`` a ``long`` length then the bytes (UTF-8 for a string),
an ``enum`` its symbol index (an ``int``), an array a series of blocks each a ``long`` item count (negative: the
count's absolute value, followed by the block's size in bytes) then its items, ended by a count of 0.

``decode`` refuses anything it cannot vouch for with :class:`MetadataEventError`, naming the field and the byte
offset: a truncated message, an over-long varint or one past 64 bits, an out-of-range union branch or enum
symbol, a negative length or one larger than the bytes left (never allocates from an untrusted length), an array
of more than :data:`MAX_OPTIONS` items or with a block size that does not match, invalid UTF-8, trailing bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Final, Literal, TypeVar, get_args

from pytest_pulsar_ha.pips.metadata_sync.oracle import MetadataWrite

CreateOption = Literal["Ephemeral", "Sequential"]
NotificationType = Literal["Created", "Modified", "ChildrenChanged", "Deleted"]
CREATE_OPTIONS: Final[tuple[CreateOption, ...]] = get_args(CreateOption)
"""The enum's symbols in the schema's order: the index on the wire is the position here."""
NOTIFICATION_TYPES: Final[tuple[NotificationType, ...]] = get_args(NotificationType)

MAX_OPTIONS: Final = 16
"""The most ``options`` items accepted (Pulsar's set holds at most 2); bounds the work a hostile array costs."""

_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1

SCHEMA_RESOURCE: Final = "metadata_event.avsc"
_S = TypeVar("_S", bound=str)


def schema_text() -> str:
    """The Avro schema (JSON) Pulsar 4.0.8 registers for the metadata event topic, as shipped in the package."""
    package = resources.files("pytest_pulsar_ha.pips.metadata_sync")
    return package.joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8")


class MetadataEventError(ValueError):
    """A ``MetadataEvent`` that cannot be encoded, decoded or turned into a write."""


@dataclass(frozen=True, kw_only=True)
class MetadataEvent:
    """One configuration-store write as published on the event topic (attributes in snake_case)."""

    path: str | None
    last_updated_timestamp: int
    """Origin time, ms since the epoch"""
    source_cluster: str | None
    type: NotificationType | None
    value: bytes | None = None
    options: tuple[CreateOption, ...] | None = None
    expected_version: int | None = None
    version: int = 0

    def __post_init__(self) -> None:
        for name in ("path", "source_cluster"):
            text = getattr(self, name)
            if text is not None:
                if not isinstance(text, str):
                    raise MetadataEventError(f"{name} is a str or None, found {type(text).__name__}")
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError as e:
                    raise MetadataEventError(f"{name} cannot be UTF-8 encoded: {e.reason}") from None
        if self.value is not None and not isinstance(self.value, bytes):
            raise MetadataEventError(f"value is bytes or None, found {type(self.value).__name__}")
        if self.options is not None:
            if not isinstance(self.options, tuple):
                raise MetadataEventError(f"options is a tuple or None, found {type(self.options).__name__}")
            if len(self.options) > MAX_OPTIONS:
                raise MetadataEventError(f"options has {len(self.options)} items, at most {MAX_OPTIONS}")
            for option in self.options:
                if option not in CREATE_OPTIONS:
                    raise MetadataEventError(f"unknown create option {option!r}; expected {CREATE_OPTIONS}")
        if self.type is not None and self.type not in NOTIFICATION_TYPES:
            raise MetadataEventError(f"unknown notification type {self.type!r}; expected {NOTIFICATION_TYPES}")
        _check_int("last_updated_timestamp", self.last_updated_timestamp, _LONG_MIN, _LONG_MAX)
        if self.expected_version is not None:
            _check_int("expected_version", self.expected_version, _LONG_MIN, _LONG_MAX)
        _check_int("version", self.version, _INT_MIN, _INT_MAX)


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MetadataEventError(f"{name} is an int, found {type(value).__name__}")
    if not low <= value <= high:
        raise MetadataEventError(f"{name} {value} does not fit in [{low}, {high}]")


# --- encoding ---------------------------------------------------------------------------------------------------


def _varint(out: bytearray, n: int) -> None:
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _long(out: bytearray, n: int) -> None:
    _varint(out, (n << 1) ^ (n >> 63))


def _blob(out: bytearray, data: bytes) -> None:
    _long(out, len(data))
    out += data


def encode(event: MetadataEvent) -> bytes:
    """The Avro binary encoding of ``event`` (fields in the schema's alphabetical order)."""
    out = bytearray()
    # expectedVersion: ["null", "long"]
    if event.expected_version is None:
        _long(out, 0)
    else:
        _long(out, 1)
        _long(out, event.expected_version)
    # lastUpdatedTimestamp: long
    _long(out, event.last_updated_timestamp)
    # options: ["null", {"type": "array", "items": CreateOption}], written as one block
    if event.options is None:
        _long(out, 0)
    else:
        _long(out, 1)
        if event.options:
            _long(out, len(event.options))
            for option in event.options:
                _long(out, CREATE_OPTIONS.index(option))
        _long(out, 0)
    # path, sourceCluster: ["null", "string"]
    for text in (event.path, event.source_cluster):
        if text is None:
            _long(out, 0)
        else:
            _long(out, 1)
            _blob(out, text.encode("utf-8"))
    # type: ["null", NotificationType]
    if event.type is None:
        _long(out, 0)
    else:
        _long(out, 1)
        _long(out, NOTIFICATION_TYPES.index(event.type))
    # value: ["null", "bytes"]
    if event.value is None:
        _long(out, 0)
    else:
        _long(out, 1)
        _blob(out, event.value)
    # version: int (zig-zag over 32 bits gives the same varint as over 64 for an int's range)
    _long(out, event.version)
    return bytes(out)


# --- decoding ---------------------------------------------------------------------------------------------------


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.field = "?"

    def fail(self, what: str, at: int | None = None) -> MetadataEventError:
        offset = self.pos if at is None else at
        return MetadataEventError(f"field {self.field!r}: {what} at byte {offset} (message of {len(self.data)} bytes)")

    def _varint(self, max_bytes: int, kind: str) -> int:
        start, n = self.pos, 0
        for i in range(max_bytes):
            if self.pos >= len(self.data):
                raise self.fail(f"truncated {kind} (message ends after {i} of its bytes)", start)
            b = self.data[self.pos]
            self.pos += 1
            n |= (b & 0x7F) << (7 * i)
            if not b & 0x80:
                return n
        raise self.fail(f"{kind} varint longer than {max_bytes} bytes", start)

    def long(self) -> int:
        start = self.pos
        n = self._varint(10, "long")
        if n >> 64:
            raise self.fail("long varint does not fit in 64 bits", start)
        return (n >> 1) ^ -(n & 1)

    def int(self) -> int:
        start = self.pos
        n = self._varint(5, "int")
        if n >> 32:
            raise self.fail("int varint does not fit in 32 bits", start)
        return (n >> 1) ^ -(n & 1)

    def union_branch(self) -> bool:
        """Whether the ``["null", T]`` union holds T."""
        start = self.pos
        index = self.long()
        if index not in (0, 1):
            raise self.fail(f"union branch {index} out of range (0 null, 1 value)", start)
        return index == 1

    def enum(self, symbols: tuple[_S, ...]) -> _S:
        start = self.pos
        index = self.int()
        if not 0 <= index < len(symbols):
            raise self.fail(f"enum index {index} out of range (0..{len(symbols) - 1})", start)
        return symbols[index]

    def blob(self) -> bytes:
        start = self.pos
        length = self.long()
        left = len(self.data) - self.pos
        if length < 0:
            raise self.fail(f"negative length {length}", start)
        if length > left:
            raise self.fail(f"length {length} but only {left} bytes left", start)
        self.pos += length
        return self.data[self.pos - length : self.pos]

    def string(self) -> str:
        start = self.pos
        raw = self.blob()
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise self.fail(f"invalid UTF-8 ({e.reason}) in the string", start) from None

    def options(self) -> tuple[CreateOption, ...]:
        items: list[CreateOption] = []
        while True:
            start = self.pos
            count = self.long()
            if count == 0:
                return tuple(items)
            size: int | None = None
            if count < 0:
                count = -count
                size_at = self.pos
                size = self.long()
                left = len(self.data) - self.pos
                if not 0 <= size <= left:
                    raise self.fail(f"array block size {size} outside 0..{left} (the bytes left)", size_at)
            if count > MAX_OPTIONS - len(items):
                raise self.fail(f"array block of {count} items after {len(items)}: more than {MAX_OPTIONS}", start)
            block_start = self.pos
            for _ in range(count):
                items.append(self.enum(CREATE_OPTIONS))
            if size is not None and self.pos - block_start != size:
                raise self.fail(f"array block says {size} bytes but its items took {self.pos - block_start}", start)


def decode(data: bytes) -> MetadataEvent:
    """The event ``data`` encodes; :class:`MetadataEventError` for anything else (see the module's docstring)."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise MetadataEventError(f"decode takes bytes, found {type(data).__name__}")
    r = _Reader(bytes(data))
    r.field = "expectedVersion"
    expected_version = r.long() if r.union_branch() else None
    r.field = "lastUpdatedTimestamp"
    last_updated_timestamp = r.long()
    r.field = "options"
    options = r.options() if r.union_branch() else None
    r.field = "path"
    path = r.string() if r.union_branch() else None
    r.field = "sourceCluster"
    source_cluster = r.string() if r.union_branch() else None
    r.field = "type"
    kind = r.enum(NOTIFICATION_TYPES) if r.union_branch() else None
    r.field = "value"
    value = r.blob() if r.union_branch() else None
    r.field = "version"
    version = r.int()
    if r.pos != len(r.data):
        r.field = "(end)"
        raise r.fail(f"{len(r.data) - r.pos} trailing bytes after the record")
    return MetadataEvent(
        path=path,
        value=value,
        options=options,
        expected_version=expected_version,
        last_updated_timestamp=last_updated_timestamp,
        source_cluster=source_cluster,
        type=kind,
        version=version,
    )


# --- to the oracle ----------------------------------------------------------------------------------------------


def to_write(event: MetadataEvent) -> MetadataWrite:
    """The oracle's view of ``event``: a deletion (value None) for ``Deleted``, else a write of its value.

    Pulsar 4.0.8 applies any type but ``Deleted`` as a put of the value; here a ``ChildrenChanged`` event (a
    notification, not a write) and a put without a value are refused, as is an event without a path, a source
    cluster or a timestamp the oracle accepts: :class:`MetadataEventError`.
    """
    if event.type == "ChildrenChanged":
        raise MetadataEventError(f"a ChildrenChanged event of {event.path!r} is a notification, not a write")
    if event.path is None:
        raise MetadataEventError("an event without a path")
    if event.source_cluster is None:
        raise MetadataEventError(f"an event of {event.path!r} without its source cluster")
    value = None if event.type == "Deleted" else event.value
    if value is None and event.type != "Deleted":
        raise MetadataEventError(f"a {event.type or 'typeless'} event of {event.path!r} without a value")
    try:
        return MetadataWrite(event.path, value, event.source_cluster, event.last_updated_timestamp)
    except ValueError as e:
        raise MetadataEventError(str(e)) from None
