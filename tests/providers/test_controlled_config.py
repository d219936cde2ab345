"""Parsing of the URL provider's answers and the ControlledClusterFailover poll loop over real HTTP (no Pulsar)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import pytest

from pulsar_ha_providers import ClusterEndpoint, ControlledClusterFailover, ControlledConfiguration, UrlProviderService
from pulsar_ha_providers.controlled_config import ConfigurationRejected
from pulsar_ha_providers.durations import seconds
from pulsar_ha_providers.events import PollEvent, SwitchEvent
from pulsar_ha_providers.url_provider_service import MISBEHAVIOURS

SECRET = "s3cr3t-token-value"


def test_durations() -> None:
    assert seconds("500ms") == 0.5 and seconds("3s") == 3 and seconds("1m") == 60 and seconds(2) == 2.0
    with pytest.raises(ValueError, match="'3 parsecs' is not a duration"):
        seconds("3 parsecs")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{", "not valid JSON at line 1 column 2"),
        (b"[]", "expected an object"),
        (b"{}", "no serviceUrl"),
        (b'{"serviceUrl": ""}', "no serviceUrl"),
        (b'{"serviceUrl": "http://x:1"}', "not a pulsar://"),
        (
            b'{"serviceUrl": "pulsar://x:1", "authPluginClassName": "a.B", "authParamsString": "'
            + SECRET.encode()
            + b'"}',
            "unknown authPluginClassName 'a.B'",
        ),
        (b'{"serviceUrl": "pulsar://x:1", "authPluginClassName": "token"}', "needs a token"),
    ],
)
def test_bad_answers_are_rejected_with_the_reason_and_no_secret(body: bytes, message: str) -> None:
    with pytest.raises(ConfigurationRejected) as info:
        ControlledConfiguration.from_json(body)
    assert message in str(info.value)
    assert SECRET not in str(info.value)


def test_secrets_never_appear_in_the_repr() -> None:
    config = ControlledConfiguration.from_json(
        b'{"serviceUrl": "pulsar://x:1", '
        b'"authPluginClassName": "org.apache.pulsar.client.impl.auth.AuthenticationToken", '
        b'"authParamsString": "token:' + SECRET.encode() + b'"}'
    )
    assert SECRET not in repr(config) and SECRET not in str(config)
    assert SECRET not in repr(ClusterEndpoint("pulsar://x:1", token=SECRET))


@pytest.fixture
def service() -> Iterator[UrlProviderService]:
    clusters = {"a": {"serviceUrl": "pulsar://127.0.0.1:1"}, "b": {"serviceUrl": "pulsar://127.0.0.1:2"}}
    with UrlProviderService(clusters, "a", required_headers={"X-Team": "ops"}) as svc:
        yield svc


@pytest.fixture
def provider(service: UrlProviderService) -> Iterator[tuple[ControlledClusterFailover, list[Any]]]:
    updates: list[Any] = []
    p = ControlledClusterFailover(
        ClusterEndpoint("pulsar://127.0.0.1:1", name="a"),
        service.url,
        check_interval="1s",
        headers={"X-Team": "ops"},
        request_timeout="300ms",
    )
    p._update = updates.append  # what initialize() wires to the client; polls are driven by the test
    yield p, updates
    p.close()


def test_the_same_configuration_does_nothing_even_on_the_first_poll(
    provider: tuple[ControlledClusterFailover, list[Any]],
) -> None:
    p, updates = provider
    p.poll()
    p.poll()
    assert updates == []
    assert [type(e) for e in p.events.recent] == [PollEvent, PollEvent]


def test_a_changed_answer_switches_once(
    provider: tuple[ControlledClusterFailover, list[Any]], service: UrlProviderService
) -> None:
    p, updates = provider
    service.switch_to("b")
    p.poll()
    p.poll()
    assert [u.service_url for u in updates] == ["pulsar://127.0.0.1:2"]
    assert [e.to_cluster for e in p.events.switches()] == ["pulsar://127.0.0.1:2"]


def test_missing_headers_are_an_error_not_a_switch(service: UrlProviderService) -> None:
    p = ControlledClusterFailover(ClusterEndpoint("pulsar://127.0.0.1:1"), service.url, request_timeout="300ms")
    p._update = lambda info: pytest.fail("must not switch")
    service.switch_to("b")
    p.poll()
    event = p.events.recent[-1]
    assert isinstance(event, PollEvent) and "HTTP 401" in event.error


@pytest.mark.parametrize("kind", MISBEHAVIOURS)
def test_every_bad_answer_is_survived_without_a_switch_and_logged_once(
    kind: str,
    provider: tuple[ControlledClusterFailover, list[Any]],
    service: UrlProviderService,
    caplog: pytest.LogCaptureFixture,
) -> None:
    p, updates = provider
    service.switch_to("b")  # a switch is pending: a bad answer must not trigger it
    service.misbehave(kind)
    with caplog.at_level(logging.WARNING, logger="pulsar_ha_providers"):
        for _ in range(3):
            p.poll()
    assert updates == []
    errors = [e for e in p.events.recent if isinstance(e, PollEvent)]
    assert len(errors) == 3 and not any(e.ok for e in errors)
    warnings = [r for r in caplog.records if "ignoring the URL provider" in r.getMessage()]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    assert "secret-params" not in caplog.text
    service.misbehave(None)
    p.poll()
    assert [u.service_url for u in updates] == ["pulsar://127.0.0.1:2"]
    assert isinstance(p.events.recent[-1], SwitchEvent)


def test_a_misbehaviour_can_last_a_while_and_end_by_itself(service: UrlProviderService) -> None:
    service.misbehave("status-500", for_s=0.2)
    assert service.answer()[0] == 500
    time.sleep(0.25)
    assert service.answer()[0] == 200 and service.misbehaviour is None
    with service.misbehaving("wrong-type"):
        assert json.loads(service.answer()[2])["serviceUrl"] == 6650
    assert service.answer()[0] == 200 and service.misbehaviour is None
    with pytest.raises(ValueError, match="unknown misbehaviour 'nope'"):
        service.misbehave("nope")
