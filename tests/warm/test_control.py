"""The keeper's control socket on stand-in nodes (the protocol and its hostile input; the real nodes are the
embedded backend's, exercised in test_warm_life_real.py): every request gets an answer, nothing crashes the
keeper, a client that trickles or floods is cut off."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_pulsar_ha.warm.control import MAX_REQUEST, ControlClient, ControlError, ControlServer, answer


class Process:
    def __init__(self, name: str) -> None:
        self.name = name
        self.running = True
        self.calls: list[str] = []

    def kill(self) -> None:
        self.calls.append("kill")
        self.running = False

    def start(self) -> None:
        self.calls.append("start")
        self.running = True

    def is_running(self) -> bool:
        return self.running

    def log_tail(self, lines: int = 40) -> str:
        return f"{lines} lines of {self.name}"


class Node(Process):
    def __init__(self) -> None:
        super().__init__("node")
        self.brokers = [Process("broker 0"), Process("broker 1")]
        self.zookeeper = Process("zookeeper")
        self.bookie = None


NODES: dict[str, Any] = {"cluster-a": Node()}


def _ask(request: Any) -> dict[str, Any]:
    return answer(NODES, json.dumps(request).encode())


def test_requests_reach_the_cluster_its_brokers_and_its_zookeeper() -> None:
    assert _ask({"action": "ping"}) == {"ok": True, "value": "pong"}
    assert _ask({"action": "kill", "cluster": "cluster-a", "process": "broker:1"}) == {"ok": True, "value": None}
    assert NODES["cluster-a"].brokers[1].calls == ["kill"]
    assert _ask({"action": "is_running", "cluster": "cluster-a", "process": "broker:1"})["value"] is False
    assert _ask({"action": "log_tail", "cluster": "cluster-a", "process": "zookeeper", "lines": 3})["value"] == (
        "3 lines of zookeeper"
    )
    assert _ask({"action": "is_running", "cluster": "cluster-a"})["value"] is True


@pytest.mark.parametrize(
    ("request_", "error"),
    [
        ({"action": "format_disk", "cluster": "cluster-a"}, "unknown action 'format_disk'"),
        ({"action": "kill", "cluster": "cluster-z"}, "no cluster 'cluster-z'; this environment has cluster-a"),
        ({"action": "kill", "cluster": "cluster-a", "process": "broker:7"}, "no process 'broker:7' in cluster"),
        ({"action": "kill", "cluster": "cluster-a", "process": "bookie"}, "has no bookie process of its own"),
        ({"action": "log_tail", "cluster": "cluster-a", "lines": 10**6}, "lines must be an integer from 1 to 1000"),
        ({"action": "kill", "cluster": ["cluster-a"]}, "a request is one flat JSON object"),
        ([1, 2], "a request is one flat JSON object"),
    ],
)
def test_a_bad_request_is_an_error_answer(request_: Any, error: str) -> None:
    reply = _ask(request_)
    assert reply["ok"] is False and error in reply["error"]


def test_bad_bytes_and_deep_json_are_error_answers() -> None:
    assert answer(NODES, b"\xff\xfe{")["ok"] is False
    assert answer(NODES, b"[" * 100_000 + b"]" * 100_000)["ok"] is False


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_get_an_answer(raw: bytes) -> None:
    reply = answer(NODES, raw)
    assert set(reply) <= {"ok", "value", "error"} and isinstance(reply["ok"], bool)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ControlServer]:
    served = ControlServer(tmp_path, {"cluster-a": Node()}).start()
    yield served
    served.close()


def test_a_client_asks_over_the_socket_and_a_refusal_is_an_error(server: ControlServer) -> None:
    client = ControlClient(server.path, timeout=5)
    assert client.call("ping") == "pong"
    assert client.call("is_running", "cluster-a", "broker:0") is True
    with pytest.raises(ControlError, match="no cluster 'nowhere'"):
        client.call("kill", "nowhere")
    assert oct(server.path.stat().st_mode & 0o777) == "0o600"


def test_a_flood_or_a_line_that_never_ends_is_cut_off_and_the_server_serves_on(server: ControlServer) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(str(server.path))
        conn.sendall(b"x" * (MAX_REQUEST + 10) + b"\n")
        assert b"a request is one line of at most" in conn.recv(4096)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as trickler:
        trickler.connect(str(server.path))
        trickler.sendall(b'{"action": "pi')  # and nothing more: the server does not wait on it
        assert ControlClient(server.path, timeout=5).call("ping") == "pong"


def test_no_keeper_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ControlError, match="did not answer ping"):
        ControlClient(tmp_path / "control.sock", timeout=2).call("ping")
