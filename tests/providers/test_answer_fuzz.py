"""Fuzzing the answer parser: whatever a URL provider sends, ``ControlledConfiguration.from_json`` (which also
validates the auth parameters and builds the ``pulsar.ServiceInfo``) returns a configuration or raises
``ConfigurationRejected``, nothing else, fast and in bounded memory.

Memory is measured with ``tracemalloc`` (Python allocations; the C++ client's own are not seen).
"""

from __future__ import annotations

import base64
import json
import time
import tracemalloc
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulsar_ha_providers.controlled_config import FIELDS, ConfigurationRejected, ControlledConfiguration

MAX_SECONDS = 1.0
MAX_PEAK_BYTES = 256 * 1024 * 1024
FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def valid_answers(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, str]]:
    root = tmp_path_factory.mktemp("fuzz")
    for name, text in {
        "token": "t0k3n",
        "cert.pem": "cert",
        "key.pem": "key",
        "oauth.json": json.dumps({"client_id": "i", "client_secret": "s"}),
    }.items():
        (root / name).write_text(text)
    data_key = "data:application/json;base64," + base64.b64encode(b'{"client_id":"i","client_secret":"s"}').decode()
    url = "pulsar://broker-a.example:6650,broker-b.example:6650"
    return [
        {"serviceUrl": "pulsar://127.0.0.1:6650"},
        {"serviceUrl": url, "authPluginClassName": "token", "authParamsString": "token:abc.def.ghi"},
        {"serviceUrl": url, "authPluginClassName": "token", "authParamsString": f"file://{root}/token"},
        {
            "serviceUrl": "pulsar+ssl://h:6651",
            "tlsTrustCertsFilePath": str(root / "cert.pem"),
            "authPluginClassName": "tls",
            "authParamsString": f"tlsCertFile:{root}/cert.pem,tlsKeyFile:{root}/key.pem",
        },
        {
            "serviceUrl": url,
            "authPluginClassName": "basic",
            "authParamsString": json.dumps({"userId": "u", "password": "p"}),
        },
        {
            "serviceUrl": url,
            "authPluginClassName": "org.apache.pulsar.client.impl.auth.oauth2.AuthenticationOAuth2",
            "authParamsString": json.dumps(
                {"issuerUrl": "https://auth.example", "privateKey": data_key, "audience": "a", "scope": "s"}
            ),
        },
        {
            "serviceUrl": url,
            "authPluginClassName": "oauth2",
            "authParamsString": json.dumps(
                {"issuerUrl": "https://auth.example", "privateKey": f"file://{root}/oauth.json"}
            ),
        },
    ]


def parse_within_bounds(body: bytes) -> None:
    """The property: only ConfigurationRejected, under a second, under 256 MiB of Python allocations."""
    tracemalloc.start()  # only around the parse: tracing Hypothesis itself would slow it tenfold
    began = time.perf_counter()
    try:
        config = ControlledConfiguration.from_json(body)
        config.service_info()
    except ConfigurationRejected as exc:
        assert "\n" not in str(exc)
    finally:
        took = time.perf_counter() - began
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert took < MAX_SECONDS, f"{took:.2f}s for a {len(body)}-byte answer"
    assert peak < MAX_PEAK_BYTES, f"{peak / 2**20:.0f} MiB for a {len(body)}-byte answer"


def test_the_valid_answers_are_valid(valid_answers: list[dict[str, str]]) -> None:
    for answer in valid_answers:
        ControlledConfiguration.from_json(json.dumps(answer).encode()).service_info()


@st.composite
def byte_mutations(draw: st.DrawFn, answers: list[dict[str, str]]) -> bytes:
    body = bytearray(json.dumps(draw(st.sampled_from(answers))).encode())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(body)))
        kind = draw(st.sampled_from(["flip", "truncate", "insert", "delete", "nest"]))
        if kind == "flip" and at < len(body):
            body[at] ^= draw(st.integers(1, 255))
        elif kind == "truncate":
            del body[at:]
        elif kind == "insert":
            body[at:at] = draw(st.binary(min_size=1, max_size=64))
        elif kind == "delete":
            del body[at : at + draw(st.integers(1, 16))]
        else:
            depth = draw(st.integers(1, 40_000))
            opener = draw(st.sampled_from([b"[", b'{"k":']))
            closer = b"]" if opener == b"[" else b"}"
            body[at:at] = opener * depth + closer * draw(st.integers(0, depth))
    return bytes(body)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
TEXTISH = st.text(max_size=80) | st.sampled_from(
    [
        "token",
        "tls",
        "basic",
        "oauth2",
        "file:///dev/zero",
        "file:///etc",
        "env:PATH",
        "env:",
        "data:",
        "{}",
        "pulsar://h:1",
        "pulsar://",
        "pulsar+ssl://h:65535,",
        "tlsCertFile:/dev/zero,tlsKeyFile:/dev/zero",
        '{"issuerUrl": "https://a", "privateKey": "file:///dev/zero"}',
        '{"userId": "u", "password": 1}',
    ]
)


@st.composite
def field_mutations(draw: st.DrawFn, answers: list[dict[str, str]]) -> bytes:
    answer: dict[str, Any] = dict(draw(st.sampled_from(answers)))
    for key in draw(st.lists(st.sampled_from([*FIELDS, "extra"]), min_size=1, max_size=4)):
        answer[key] = draw(JSON_VALUES | TEXTISH)
    if draw(st.booleans()):
        answer.pop(draw(st.sampled_from(FIELDS)), None)
    return json.dumps(answer).encode()


@FUZZ
@given(data=st.data())
def test_byte_level_mutations_are_accepted_or_rejected_never_raise(
    data: st.DataObject, valid_answers: list[dict[str, str]]
) -> None:
    parse_within_bounds(data.draw(byte_mutations(valid_answers)))


@FUZZ
@given(data=st.data())
def test_random_json_values_in_every_field_are_accepted_or_rejected_never_raise(
    data: st.DataObject, valid_answers: list[dict[str, str]]
) -> None:
    parse_within_bounds(data.draw(field_mutations(valid_answers)))


@FUZZ
@given(body=st.binary(max_size=512))
def test_arbitrary_bytes_are_rejected_or_accepted_never_raise(body: bytes) -> None:
    parse_within_bounds(body)
