"""target_url_problems: each rule, and a fuzz (never raises, always a list of str)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_pulsar_ha.pips.migration import ClusterEndpoint, target_url_problems

GOOD = {"serviceUrl": "http://green:8080", "brokerServiceUrl": "pulsar://green:6650"}


def test_a_body_with_a_broker_url_is_usable() -> None:
    assert target_url_problems(GOOD) == []
    assert target_url_problems({"brokerServiceUrlTls": "pulsar+ssl://green:6651"}) == []


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, "no brokerServiceUrl or brokerServiceUrlTls"),  # what 4.0.8 accepts (inverted isEmpty)
        ({"serviceUrl": "http://green:8080"}, "no brokerServiceUrl"),
        ({"brokerServiceUrl": ""}, "no brokerServiceUrl"),
        ({"brokerServiceUrl": "http://green:6650"}, "must start with pulsar://"),
        ({"brokerServiceUrlTls": "pulsar://green:6651"}, "must start with pulsar+ssl://"),
        ({"brokerServiceUrl": "pulsar://green"}, "names no port"),
        ({"brokerServiceUrl": "pulsar://green:0"}, "names no port"),
        ({"brokerServiceUrl": "pulsar://green:99999"}, "not a number from 0 to 65535"),
        ({"brokerServiceUrl": "pulsar://:6650"}, "names no host"),
        ({"brokerServiceUrl": "pulsar://a:6650,b:6650"}, "several hosts"),
        ({"brokerServiceUrl": "pulsar://[::1:6650"}, "is not a URL (Invalid IPv6 URL)"),  # found by Hypothesis
        ({**GOOD, "serviceUrl": "pulsar://green:8080"}, "serviceUrl 'pulsar://green:8080' must start with http://"),
        ({**GOOD, "serviceUrlTls": ""}, "serviceUrlTls is empty"),
        ({**GOOD, "brokerUrl": "pulsar://green:6650"}, "unknown keys brokerUrl"),
        (["pulsar://green:6650"], "expected a JSON object"),
        (None, "expected a JSON object"),
    ],
)
def test_each_rule(body: Any, expected: str) -> None:
    problems = target_url_problems(body)
    assert any(expected in p for p in problems), problems


def test_the_endpoint_builds_the_body_from_its_urls() -> None:
    green = ClusterEndpoint("green", "http://g:8080", broker_service_url="pulsar+ssl://g:6651")
    assert green.cluster_url() == {"serviceUrl": "http://g:8080", "brokerServiceUrlTls": "pulsar+ssl://g:6651"}
    assert target_url_problems(ClusterEndpoint("green", "http://g:8080").cluster_url())


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=20), inner, max_size=5),
    max_leaves=20,
)
URLISH = st.text(alphabet="pulsar+ssl:/htp[]@%0123456789.,:-ab ", max_size=40)
BODIES = st.dictionaries(
    st.sampled_from(["serviceUrl", "serviceUrlTls", "brokerServiceUrl", "brokerServiceUrlTls", "other"]),
    URLISH | JSON,
    max_size=5,
)


@settings(max_examples=400, deadline=None)
@given(JSON | BODIES)
def test_never_raises_and_always_returns_a_list_of_str(body: Any) -> None:
    problems = target_url_problems(body)
    assert isinstance(problems, list)
    assert all(isinstance(p, str) and p for p in problems)
