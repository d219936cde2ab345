"""The PIP-136 event codec: Avro binary of the schema a Pulsar 4.0.8 broker registers, by hand; known vectors,
round trips (Hypothesis), and a decoder that answers any bytes with an event or MetadataEventError, nothing else."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_pulsar_ha.pips.metadata_sync import (
    CREATE_OPTIONS,
    MAX_OPTIONS,
    NOTIFICATION_TYPES,
    MetadataEvent,
    MetadataEventError,
    MetadataWrite,
    decode,
    encode,
    schema_text,
    to_write,
)

SMALL = MetadataEvent(
    path="/a",
    value=b"x",
    options=("Ephemeral",),
    expected_version=-1,
    last_updated_timestamp=300,
    source_cluster="c",
    type="Modified",
    version=3,
)
SMALL_BYTES = bytes.fromhex("0201" + "d804" + "02020000" + "02042f61" + "020263" + "0202" + "020278" + "06")


def test_a_small_event_encodes_to_the_bytes_derived_by_hand() -> None:
    """Field by field, in the schema's alphabetical order; a long or int is zig-zag (n << 1 ^ n >> 63: 0 -> 0,
    -1 -> 1, 1 -> 2, 3 -> 6) then a varint of 7 bits a byte, low bits first, the top bit set on all but the last;
    a ["null", T] union is its branch (0 null, 1 T) then T:

    - expectedVersion -1: branch 1 = 02, then zig-zag(-1) = 1 = 01
    - lastUpdatedTimestamp 300: zig-zag 600 = 0b100_1011000: 0x58 | 0x80 = d8, then 600 >> 7 = 4 = 04
    - options {Ephemeral}: branch 02, one block of 1 item: count 02, Ephemeral is symbol 0: 00; end of array 00
    - path "/a": branch 02, length 2 = 04, then 2f 61
    - sourceCluster "c": branch 02, length 1 = 02, then 63
    - type Modified: branch 02, symbol 1 = 02
    - value b"x": branch 02, length 1 = 02, then 78
    - version 3: 06
    """
    assert encode(SMALL) == SMALL_BYTES
    assert decode(SMALL_BYTES) == SMALL


def test_an_event_of_nulls_is_one_zero_byte_a_field() -> None:
    empty = MetadataEvent(path=None, last_updated_timestamp=0, source_cluster=None, type=None)
    assert encode(empty) == bytes(8)
    assert decode(bytes(8)) == empty


def test_a_block_with_a_negative_count_and_its_byte_size_decodes() -> None:
    """Writers may give a block's count negated and then its size in bytes (to let readers skip it)."""
    options = "02" + "03" + "04" + "0002" + "00"  # branch 1; count -2, size 2; Ephemeral, Sequential; end
    data = bytes.fromhex("00" + "00" + options + "00" * 5)
    event = decode(data)
    assert event.options == ("Ephemeral", "Sequential")
    assert encode(event) == bytes.fromhex("00" + "00" + "0204000200" + "00" * 5)


def test_the_shipped_schema_is_the_one_the_codec_writes() -> None:
    schema = json.loads(schema_text())
    assert schema["name"] == "MetadataEvent"
    assert schema["namespace"] == "org.apache.pulsar.metadata.api"
    fields = {f["name"]: f["type"] for f in schema["fields"]}
    assert (
        list(fields)
        == sorted(fields)
        == [
            "expectedVersion",
            "lastUpdatedTimestamp",
            "options",
            "path",
            "sourceCluster",
            "type",
            "value",
            "version",
        ]
    )
    assert fields["lastUpdatedTimestamp"] == "long"
    assert fields["version"] == "int"
    assert tuple(fields["options"][1]["items"]["symbols"]) == CREATE_OPTIONS
    assert tuple(fields["type"][1]["symbols"]) == NOTIFICATION_TYPES
    for name in ("expectedVersion", "options", "path", "sourceCluster", "type", "value"):
        assert fields[name][0] == "null"


def _hex(*parts: str) -> bytes:
    return bytes.fromhex("".join(parts))


# Up to and including options (all null), then what follows path
PREFIX = "00" + "00" + "00"
AFTER_PATH = "00" + "00" + "00" + "00"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(b"", "field 'expectedVersion': truncated long .* at byte 0", id="empty"),
        pytest.param(_hex(PREFIX, "02"), "field 'path': truncated long .* at byte 4", id="truncated-length"),
        pytest.param(_hex(PREFIX, "02", "06", "2f61"), "length 3 but only 2 bytes left", id="truncated-string"),
        pytest.param(_hex("02", "ff" * 10, "00"), "long varint longer than 10 bytes at byte 1", id="long-varint-11"),
        pytest.param(_hex("02", "ff" * 9, "7f"), "long varint does not fit in 64 bits at byte 1", id="long-70-bits"),
        pytest.param(_hex("00" * 7, "ff" * 5, "0f"), "'version': int varint longer than 5 bytes", id="int-varint-6"),
        pytest.param(_hex("00" * 7, "ffffffff7f"), "'version': int varint does not fit in 32 bits", id="int-35-bits"),
        pytest.param(_hex("04"), "union branch 2 out of range", id="union-2"),
        pytest.param(_hex("01"), "union branch -1 out of range", id="union-negative"),
        pytest.param(_hex("00" * 5, "0208"), "'type': enum index 4 out of range", id="enum-type"),
        pytest.param(_hex("00" * 5, "0201"), "'type': enum index -1 out of range", id="enum-negative"),
        pytest.param(_hex("0000", "02", "02", "04", "00"), "'options': enum index 2 out of range", id="enum-option"),
        pytest.param(_hex(PREFIX, "02", "01"), "negative length -1 at byte 4", id="negative-length"),
        pytest.param(_hex(PREFIX, "02", "c801", "61"), "length 100 but only 1 bytes left", id="length-past-end"),
        pytest.param(_hex(PREFIX, "02", "02", "ff", AFTER_PATH), "invalid UTF-8 .* at byte 4", id="utf8"),
        pytest.param(_hex(PREFIX, "02", "04", "eda080", AFTER_PATH), "invalid UTF-8", id="utf8-surrogate"),
        pytest.param(
            _hex("00" * 8, "00"), "field '\\(end\\)': 1 trailing bytes after the record at byte 8", id="trail"
        ),
        pytest.param(_hex("0000", "02", "22", "00" * 17, "00"), "block of 17 items after 0: more than 16", id="17"),
        pytest.param(
            _hex("0000", "02", "14", "00" * 10, "14", "00" * 10, "00"), "block of 10 items after 10", id="blocks-sum"
        ),
        pytest.param(
            _hex("0000", "02", "ffffffffffffffffff01", "00", "00" * 5), "more than 16", id="count-minus-2**63"
        ),
        pytest.param(_hex("0000", "02", "03", "01", "0002", "00"), "block size -1 outside", id="block-size-negative"),
        pytest.param(_hex("0000", "02", "03", "c801", "0002"), "block size 100 outside", id="block-size-past-end"),
        pytest.param(_hex("0000", "02", "03", "06", "0002", "00", "00" * 5), "says 3 bytes but", id="block-size-off"),
    ],
)
def test_hostile_input_is_refused_saying_what_and_where(data: bytes, message: str) -> None:
    with pytest.raises(MetadataEventError, match=message):
        decode(data)


def test_a_length_of_2_to_the_62_is_refused_at_once() -> None:
    length = 2**62
    zigzag, varint = length << 1, bytearray()
    while zigzag > 0x7F:
        varint.append((zigzag & 0x7F) | 0x80)
        zigzag >>= 7
    varint.append(zigzag)
    for field_prefix in (_hex(PREFIX, "02"), _hex("00" * 6, "02")):  # path (string), value (bytes)
        start = time.perf_counter()
        with pytest.raises(MetadataEventError, match=f"length {length} but only"):
            decode(field_prefix + bytes(varint) + b"abc")
        assert time.perf_counter() - start < 0.1


def test_decode_refuses_what_is_not_bytes() -> None:
    with pytest.raises(MetadataEventError, match="takes bytes"):
        decode(2**62)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"version": 2**31}, "version 2147483648 does not fit"),
        ({"last_updated_timestamp": 2**63}, "last_updated_timestamp .* does not fit"),
        ({"expected_version": -(2**63) - 1}, "expected_version .* does not fit"),
        ({"version": True}, "version is an int"),
        ({"options": ("Persistent",)}, "unknown create option"),
        ({"options": ("Ephemeral",) * (MAX_OPTIONS + 1)}, "at most 16"),
        ({"options": ["Ephemeral"]}, "options is a tuple"),
        ({"type": "Renamed"}, "unknown notification type"),
        ({"path": "/\ud800"}, "path cannot be UTF-8 encoded"),
        ({"value": bytearray(b"x")}, "value is bytes"),
    ],
)
def test_an_event_that_cannot_be_encoded_is_refused_when_made(fields: dict[str, object], message: str) -> None:
    base: dict[str, object] = {"path": "/p", "last_updated_timestamp": 1, "source_cluster": "a", "type": "Modified"}
    with pytest.raises(MetadataEventError, match=message):
        MetadataEvent(**{**base, **fields})  # type: ignore[arg-type]


def test_to_write_gives_the_oracle_a_value_or_a_tombstone() -> None:
    put = MetadataEvent(path="/p", value=b"v", last_updated_timestamp=7, source_cluster="east", type="Modified")
    assert to_write(put) == MetadataWrite("/p", b"v", "east", 7)
    created = MetadataEvent(path="/p", value=b"v", last_updated_timestamp=7, source_cluster="east", type="Created")
    assert to_write(created) == MetadataWrite("/p", b"v", "east", 7)
    deleted = MetadataEvent(path="/p", value=b"v", last_updated_timestamp=8, source_cluster="east", type="Deleted")
    assert to_write(deleted) == MetadataWrite("/p", None, "east", 8)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"type": "ChildrenChanged"}, "notification, not a write"),
        ({"path": None}, "without a path"),
        ({"source_cluster": None}, "without its source cluster"),
        ({"value": None}, "Modified event of '/p' without a value"),
        ({"last_updated_timestamp": -5}, "ts_ms"),
        ({"path": "relative"}, "starts with '/'"),
    ],
)
def test_to_write_refuses_what_is_not_a_write(fields: dict[str, object], message: str) -> None:
    base: dict[str, object] = {
        "path": "/p",
        "value": b"v",
        "last_updated_timestamp": 1,
        "source_cluster": "a",
        "type": "Modified",
    }
    with pytest.raises(MetadataEventError, match=message):
        to_write(MetadataEvent(**{**base, **fields}))  # type: ignore[arg-type]


events = st.builds(
    MetadataEvent,
    path=st.none() | st.text(max_size=20),
    value=st.none() | st.binary(max_size=40),
    options=st.none() | st.lists(st.sampled_from(CREATE_OPTIONS), max_size=MAX_OPTIONS).map(tuple),
    expected_version=st.none() | st.integers(-(2**63), 2**63 - 1),
    last_updated_timestamp=st.integers(-(2**63), 2**63 - 1),
    source_cluster=st.none() | st.text(max_size=10),
    type=st.none() | st.sampled_from(NOTIFICATION_TYPES),
    version=st.integers(-(2**31), 2**31 - 1),
)


@given(events)
def test_any_event_round_trips(event: MetadataEvent) -> None:
    assert decode(encode(event)) == event


@given(events)
def test_every_truncation_of_a_valid_encoding_is_refused(event: MetadataEvent) -> None:
    data = encode(event)
    for cut in range(len(data)):
        with pytest.raises(MetadataEventError):
            decode(data[:cut])


def _decodes_or_refuses(data: bytes) -> None:
    try:
        event = decode(data)
    except MetadataEventError:
        return
    assert isinstance(event, MetadataEvent)
    assert decode(encode(event)) == event  # not always encode(event) == data: over-long varints, array blocks


@settings(max_examples=500)
@given(st.binary(max_size=64))
def test_any_bytes_decode_to_an_event_or_a_metadata_event_error(data: bytes) -> None:
    _decodes_or_refuses(data)


@settings(max_examples=500)
@given(events, st.data())
def test_a_mangled_encoding_decodes_to_an_event_or_a_metadata_event_error(
    event: MetadataEvent, data: st.DataObject
) -> None:
    encoded = bytearray(encode(event))
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(encoded)))
        how = data.draw(st.sampled_from(["flip", "insert", "delete"]))
        if how == "insert" or at == len(encoded):
            encoded[at:at] = data.draw(st.binary(min_size=1, max_size=10))
        elif how == "flip":
            encoded[at] = data.draw(st.integers(0, 255))
        else:
            del encoded[at]
    _decodes_or_refuses(bytes(encoded))
