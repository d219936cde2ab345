"""The reference synchronizer's loop on an in-memory topic and in-memory clusters (the network faked: the loop's
own logic is under test; the real one runs in scenarios/metadata-sync.pulsar-ha.yaml): local writes published
once, remote ones applied by origin time, nothing applied is published back, a restart re-applies nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_pulsar_ha.errors import AdminError
from pytest_pulsar_ha.pips.metadata_sync.documents import ClusterDocuments, canonical_document, split_path
from pytest_pulsar_ha.pips.metadata_sync.event_codec import decode
from pytest_pulsar_ha.pips.metadata_sync.reference import ReferenceSynchronizer

NS = "/admin/policies/t/ns"


class FakeAdmin:
    """Namespaces' policies and tenants, as the admin API shows them."""

    def __init__(self) -> None:
        self.tenants: dict[str, dict[str, Any]] = {"t": {"adminRoles": [], "allowedClusters": ["a", "b"]}}
        self.namespaces: dict[str, dict[str, Any]] = {"t/ns": {"message_ttl_in_seconds": None}}
        self.calls: list[str] = []

    def get(self, path: str) -> Any:
        parts = path.split("/")
        if parts[0] == "tenants":
            return self._or_404(self.tenants.get(parts[1]), path)
        if len(parts) == 2:
            return [n for n in self.namespaces if n.startswith(parts[1] + "/")]
        return self._or_404(self.namespaces.get(f"{parts[1]}/{parts[2]}"), path)

    def _or_404(self, value: Any, path: str) -> Any:
        if value is None:
            raise AdminError("GET", path, 404, "not found")
        return json.loads(json.dumps(value))

    def post(self, path: str, body: Any) -> None:
        self.calls.append(f"POST {path}")
        parts = path.split("/")
        if parts[0] == "tenants":
            self.tenants[parts[1]] = body
        elif parts[3] == "messageTTL":
            self.namespaces[f"{parts[1]}/{parts[2]}"]["message_ttl_in_seconds"] = body

    def put(self, path: str, body: Any) -> None:
        self.calls.append(f"PUT {path}")
        parts = path.split("/")
        self.namespaces[f"{parts[1]}/{parts[2]}"] = body

    def delete(self, path: str) -> None:
        self.calls.append(f"DELETE {path}")


class Topic:
    def __init__(self) -> None:
        self.messages: list[bytes] = []


class Message:
    def __init__(self, data: bytes) -> None:
        self._data = data

    def data(self) -> bytes:
        return self._data


class Consumer:
    def __init__(self, topic: Topic, position: list[int]) -> None:
        self.topic, self.position = topic, position  # position: acknowledged count, shared like a subscription

    def receive(self, timeout_millis: int) -> Message:
        if self.position[0] >= len(self.topic.messages):
            raise TimeoutError("nothing")
        return Message(self.topic.messages[self.position[0]])

    def acknowledge(self, message: Message) -> None:
        self.position[0] += 1

    def negative_acknowledge(self, message: Message) -> None:
        pass

    def close(self) -> None:
        pass


class Producer:
    def __init__(self, topic: Topic) -> None:
        self.topic = topic

    def send(self, data: bytes) -> None:
        self.topic.messages.append(data)

    def close(self) -> None:
        pass


class Client:
    """Both clusters see one topic (geo-replication without delay); each subscription keeps its position."""

    def __init__(self, topic: Topic, subscriptions: dict[str, list[int]]) -> None:
        self.topic, self.subscriptions = topic, subscriptions

    def create_producer(self, topic: str, **_: Any) -> Producer:
        return Producer(self.topic)

    def subscribe(self, topic: str, name: str, **_: Any) -> Consumer:
        return Consumer(self.topic, self.subscriptions.setdefault(name, [0]))


class World:
    def __init__(self, tmp_path: Path) -> None:
        self.topic = Topic()
        self.subscriptions: dict[str, list[int]] = {}
        self.admins = {"a": FakeAdmin(), "b": FakeAdmin()}
        self.now = 1_000
        self.tmp_path = tmp_path
        self.syncs = {name: self.sync(name) for name in self.admins}

    def sync(self, name: str) -> ReferenceSynchronizer:
        documents = ClusterDocuments(self.admins[name], ["t"])  # type: ignore[arg-type]
        client = Client(self.topic, self.subscriptions)
        return ReferenceSynchronizer(name, documents, client, self.tmp_path / f"{name}.json", clock_ms=self.clock)

    def clock(self) -> int:
        self.now += 10
        return self.now

    def rounds(self, count: int = 3) -> None:
        for _ in range(count):
            for sync in self.syncs.values():
                sync.step(receive_ms=50)

    def ttl(self, name: str) -> Any:
        return self.admins[name].namespaces["t/ns"]["message_ttl_in_seconds"]

    def published(self) -> list[tuple[str | None, str | None]]:
        events = [decode(m) for m in self.topic.messages]
        return [(e.source_cluster, e.path) for e in events]


def test_a_write_on_one_cluster_reaches_the_other_and_is_not_published_back(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.rounds()
    start = len(world.topic.messages)  # the tracked documents of both, published once at the start
    world.admins["a"].namespaces["t/ns"]["message_ttl_in_seconds"] = 60
    world.rounds()
    assert world.ttl("b") == 60
    assert world.published()[start:] == [("a", NS)]  # b applied it and did not publish it back


def test_the_later_origin_time_wins_in_both_orders_of_arrival(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.rounds()
    world.admins["a"].namespaces["t/ns"]["message_ttl_in_seconds"] = 1
    world.admins["b"].namespaces["t/ns"]["message_ttl_in_seconds"] = 2
    world.rounds()
    assert world.ttl("a") == world.ttl("b") == 2  # b saw its write after a did (its clock read later)


def test_a_restart_applies_nothing_again_and_publishes_nothing_again(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.rounds()
    world.admins["a"].namespaces["t/ns"]["message_ttl_in_seconds"] = 60
    world.rounds()
    published, calls = len(world.topic.messages), list(world.admins["b"].calls)
    world.syncs["b"].close()
    world.subscriptions[next(n for n in world.subscriptions if n.endswith("-b"))][0] = 0  # redelivered from the start
    world.syncs["b"] = world.sync("b")
    world.rounds()
    assert len(world.topic.messages) == published
    assert world.admins["b"].calls == calls


def test_a_state_file_of_another_cluster_or_garbage_is_refused(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.rounds()
    (tmp_path / "b.json").write_text((tmp_path / "a.json").read_text())
    with pytest.raises(ValueError, match="state of cluster a"):
        world.sync("b")
    (tmp_path / "b.json").write_text("{not json")
    with pytest.raises(ValueError, match="not a reference synchronizer state"):
        world.sync("b")


def test_documents_map_paths_and_apply_only_what_they_know(tmp_path: Path) -> None:
    assert split_path("/admin/policies/t") == ("t", None)
    assert split_path("/admin/policies/t/ns") == ("t", "t/ns")
    assert split_path("/admin/clusters/a") is None
    assert split_path("/admin/policies/t/ns/x") is None
    admin = FakeAdmin()
    documents = ClusterDocuments(admin, ["t"])  # type: ignore[arg-type]
    doc = {"message_ttl_in_seconds": 5, "deduplicationEnabled": True}
    applied = documents.apply(NS, canonical_document(doc))
    assert applied.fields == ["message_ttl_in_seconds"] and applied.skipped == ["deduplicationEnabled"]
    created = documents.apply("/admin/policies/t/new", canonical_document({"message_ttl_in_seconds": 7}))
    assert created.created and admin.namespaces["t/new"] == {"message_ttl_in_seconds": 7}
