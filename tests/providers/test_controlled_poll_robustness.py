"""ControlledClusterFailover against hostile URL providers: slow answers, parser-breaking answers, refused switches.

Each test drives ``poll()`` by hand against a loopback HTTP server; a fake ``on_service_info_update`` records
whether the client was switched.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from pulsar_ha_providers import ClusterEndpoint, ControlledClusterFailover
from pulsar_ha_providers.events import PollEvent, SwitchEvent, SwitchFailedEvent

from .scripted_http import ScriptedServer, send, trickle

TIMEOUT = 0.3
SLACK = 0.25  # scheduling slack on a loaded 2-core machine
A = "pulsar://127.0.0.1:6650"
B = "pulsar://127.0.0.1:6651"
B_ANSWER = json.dumps({"serviceUrl": B}).encode()


def good_answer(handler: BaseHTTPRequestHandler) -> None:
    send(handler, 200, B_ANSWER)


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(good_answer) as srv:
        yield srv


class FakeClient:
    """Stands for the client's ``on_service_info_update``: records the updates, can refuse some."""

    def __init__(self) -> None:
        self.updates: list[Any] = []
        self.refuse = 0

    def __call__(self, info: Any) -> None:
        if self.refuse:
            self.refuse -= 1
            raise RuntimeError("the client refused the update")
        self.updates.append(info)


@pytest.fixture
def provider(server: ScriptedServer) -> Iterator[tuple[ControlledClusterFailover, FakeClient]]:
    client = FakeClient()
    p = ControlledClusterFailover(
        ClusterEndpoint(A, name="a"), server.url, check_interval="1s", request_timeout=TIMEOUT
    )
    p._update = client  # what initialize() wires to the client; polls are driven by the test
    yield p, client
    p.close()


def polls(p: ControlledClusterFailover) -> list[PollEvent]:
    return [e for e in p.events.recent if isinstance(e, PollEvent)]


# -- 1. a slow answer is cut at the request deadline and discarded ----------------------------------------


def trickled_body(handler: BaseHTTPRequestHandler) -> None:
    body = B_ANSWER + b" " * (100 - len(B_ANSWER))  # 100 bytes, 30 ms apart: 3 s in all
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.flush()
    trickle(handler, body, 0.03)


def trickled_headers(handler: BaseHTTPRequestHandler) -> None:
    head = b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nX-Padding: " + b"p" * 60 + b"\r\n"
    head += f"Content-Length: {len(B_ANSWER)}\r\n\r\n".encode()
    trickle(handler, head + B_ANSWER, 0.03)


@pytest.mark.parametrize("respond", [trickled_body, trickled_headers], ids=["body", "headers"])
def test_a_trickled_answer_is_cut_at_the_request_deadline_and_never_applied(
    respond: Any, server: ScriptedServer, provider: tuple[ControlledClusterFailover, FakeClient]
) -> None:
    p, client = provider
    server.respond = respond
    began = time.monotonic()
    p.poll()
    took = time.monotonic() - began
    assert took < TIMEOUT + SLACK, f"the poll took {took:.2f}s with request_timeout={TIMEOUT}s"
    assert client.updates == [] and p.events.switches() == []
    event = polls(p)[-1]
    assert not event.ok and f"did not answer within {TIMEOUT}s" in event.error, event


# -- 2. answers that break the parser or the client's constructors: a failed poll, logged once -------------

DEEP = b'{"serviceUrl": "' + B.encode() + b'", "x": ' + b"[" * 30000 + b"]" * 30000 + b"}"
UNPARSABLE = {
    "deep-json": DEEP,
    "basic-garbage": json.dumps(
        {"serviceUrl": B, "authPluginClassName": "basic", "authParamsString": "secret-params"}
    ).encode(),
    "non-numeric-port": json.dumps({"serviceUrl": "pulsar://127.0.0.1:66x0"}).encode(),
    "port-out-of-range": json.dumps({"serviceUrl": "pulsar://127.0.0.1:70000"}).encode(),
}


@pytest.mark.parametrize("kind", UNPARSABLE)
def test_an_answer_the_parser_or_client_cannot_take_is_a_failed_poll_logged_once_without_traceback(
    kind: str,
    server: ScriptedServer,
    provider: tuple[ControlledClusterFailover, FakeClient],
    caplog: pytest.LogCaptureFixture,
) -> None:
    p, client = provider
    body = UNPARSABLE[kind]
    server.respond = lambda handler: send(handler, 200, body)
    with caplog.at_level(logging.DEBUG, logger="pulsar_ha_providers"):
        for _ in range(3):
            p.poll()
    assert client.updates == [] and p.events.switches() == []
    events = polls(p)
    assert len(events) == 3 and not any(e.ok for e in events)
    reasons = {e.error for e in events}
    assert len(reasons) == 1 and "\n" not in events[0].error, reasons
    assert [r.exc_info for r in caplog.records] == [None], [r.getMessage() for r in caplog.records]
    assert "secret-params" not in caplog.text and "secret-params" not in events[0].error
    assert "switch" not in caplog.text.lower()


# -- the client refusing the update: a failed switch, not recorded, retried on the next poll ---------------


def test_a_switch_the_client_refuses_is_not_recorded_and_is_retried(
    provider: tuple[ControlledClusterFailover, FakeClient], caplog: pytest.LogCaptureFixture
) -> None:
    p, client = provider
    client.refuse = 1
    with caplog.at_level(logging.DEBUG, logger="pulsar_ha_providers"):
        p.poll()
    assert p.current.service_url == A, "a refused switch must not become the configuration in use"
    assert p.events.switches() == []
    failed = [e for e in p.events.recent if isinstance(e, SwitchFailedEvent)]
    assert len(failed) == 1 and "refused the update" in failed[0].error
    claims = [r.getMessage() for r in caplog.records if "switched" in r.getMessage() or "switching" in r.getMessage()]
    assert claims == [], "the log claims a switch that did not happen"
    assert all(r.exc_info is None for r in caplog.records)
    p.poll()
    assert [u.service_url for u in client.updates] == [B]
    assert p.current.service_url == B
    assert isinstance(p.events.recent[-1], SwitchEvent)
