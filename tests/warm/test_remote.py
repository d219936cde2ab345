"""An attached session's nodes (``warm/remote.py``) over the keeper's socket, on stand-in processes: each verb of the
process-control protocol reaches the keeper's process or cluster as a request, with its arguments by name, and its
answer comes back (the real nodes: test_warm_life_real.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_pulsar_ha.process.control import VERBS, Controlled
from pytest_pulsar_ha.settings.clusters import ClusterSpec
from pytest_pulsar_ha.warm.control import ControlClient, ControlServer
from pytest_pulsar_ha.warm.remote import RemoteNode


class Stand:
    """A process that records the verbs it was asked."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls: list[str] = []
        self.running = True
        self.stopped = False

    def kill(self) -> None:
        self.calls.append("kill")
        self.running = False

    def start(self) -> None:
        self.calls.append("start")
        self.running = True

    def pause(self) -> None:
        self.calls.append("pause")
        self.stopped = True

    def resume(self) -> None:
        self.calls.append("resume")
        self.stopped = False

    def is_running(self) -> bool:
        return self.running

    def is_paused(self) -> bool:
        return self.stopped

    def log_tail(self, lines: int = 40) -> str:
        return f"{lines} lines of {self.name}"


class Node(Controlled):
    def __init__(self) -> None:
        self.zookeeper = Stand("zookeeper")
        self.bookie = None
        self.brokers = [Stand("broker 0"), Stand("broker 1")]

    def processes(self) -> list[Stand]:
        return [self.zookeeper, *self.brokers]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Node, RemoteNode]]:
    node = Node()
    server = ControlServer(tmp_path, {"cluster-a": node}).start()
    info = {
        "token": None,
        "broker_url": "pulsar://127.0.0.1:1",
        "web_url": "http://127.0.0.1:2",
        "dir": str(tmp_path / "cluster-a"),
        "clock": False,
        "brokers": [{"name": "broker 0"}, {"name": "broker 1"}],
        "zookeeper": "zookeeper",
        "bookie": None,
    }
    try:
        yield node, RemoteNode(ControlClient(server.path, timeout=5), ClusterSpec(name="cluster-a"), info)
    finally:
        server.close()


def test_each_verb_reaches_the_keepers_process_and_its_answer_comes_back(served: tuple[Node, RemoteNode]) -> None:
    node, remote = served
    remote.brokers[1].kill()
    assert node.brokers[1].calls == ["kill"] and node.brokers[0].calls == []
    assert remote.brokers[1].is_running() is False and remote.is_running() is False
    remote.brokers[1].start()
    assert node.brokers[1].calls == ["kill", "start"] and remote.is_running() is True
    with remote.paused():
        assert remote.is_paused() is True
        assert [s.calls[-1] for s in node.processes()] == ["pause"] * 3
    assert remote.is_paused() is False
    assert remote.zookeeper is not None and remote.zookeeper.log_tail(3) == "3 lines of zookeeper"
    assert remote.brokers[0].log_tail() == "40 lines of broker 0", "a default argument is sent too"
    assert (
        remote.log_tail(2)
        == "--- zookeeper\n2 lines of zookeeper\n--- broker 0\n2 lines of broker 0\n--- broker 1\n2 lines of broker 1"
    )


def test_only_the_protocols_verbs_are_forwarded(served: tuple[Node, RemoteNode]) -> None:
    _, remote = served
    assert {verb for verb in VERBS if callable(getattr(remote.process, verb))} == set(VERBS)
    with pytest.raises(AttributeError):
        remote.process.format_disk  # noqa: B018
