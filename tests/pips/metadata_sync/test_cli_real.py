"""``pulsar-ha metadata-sync`` on real clusters: two standalones with a configuration store each and nothing
syncing them (``metadata_sync="store"``); one command beside each keeps a namespace policy the same both ways,
and a restarted command publishes nothing again."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from pytest_pulsar_ha.pips.metadata_sync.bootstrap import EVENT_TOPIC
from pytest_pulsar_ha.process.processes import ManagedProcess
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.settings.clusters import ClusterSpec

pytestmark = pytest.mark.real_clusters

STORE_CLUSTERS = (ClusterSpec("sync-a", metadata_sync="store"), ClusterSpec("sync-b", metadata_sync="store"))


@contextmanager
def synchronizer(env: PulsarHaEnvironment, name: str, state: Path, log: Path) -> Iterator[ManagedProcess]:
    """The command as a process of the run (its own group, in the pid registry: reaped after a killed run)."""
    cluster = env.cluster(name)
    argv = [
        sys.executable, "-m", "pytest_pulsar_ha.cli", "metadata-sync",
        "--cluster", name,
        "--admin-url", cluster.direct_admin_url,
        "--service-url", cluster.direct_service_url,
        "--tenant", "pulsar-ha",
        "--state", str(state),
        "--report-every", "1",
    ]  # fmt: skip
    process = ManagedProcess(f"metadata-sync {name}", argv, cwd=log.parent, log_path=log, registry=env.registry)
    process.start()
    try:
        yield process
    finally:
        process.stop(grace_seconds=10)


def eventually(read: Callable[[], Any], want: Any, timeout: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + timeout
    seen = None
    while time.monotonic() < deadline:
        seen = read()
        if seen == want:
            return
        time.sleep(0.2)
    pytest.fail(f"{what}: wanted {want!r}, last read {seen!r}; the synchronizers said:\n{log.read_text()[-3000:]}")


def events_in(env: PulsarHaEnvironment, name: str) -> int:
    stats = env.cluster(name).admin.get(EVENT_TOPIC.replace("persistent://", "persistent/") + "/stats")
    return int(stats.get("msgInCounter", 0))


@pytest.mark.pulsar_ha_clusters(*STORE_CLUSTERS)
def test_the_command_syncs_both_ways_and_a_restart_publishes_nothing_again(
    pulsar_ha_marked_environment: PulsarHaEnvironment, tmp_path: Path
) -> None:
    env = pulsar_ha_marked_environment
    a, b = env.cluster("sync-a").admin, env.cluster("sync-b").admin
    namespace = "pulsar-ha/cli-synced"
    log = tmp_path / "sync.log"
    ttl = f"namespaces/{namespace}/messageTTL"
    with synchronizer(env, "sync-a", tmp_path / "a.json", log), synchronizer(env, "sync-b", tmp_path / "b.json", log):
        a.put(f"namespaces/{namespace}", {"replication_clusters": ["sync-a", "sync-b"]})
        eventually(lambda: b.get_raw(f"namespaces/{namespace}")[0], 200, 30, "the namespace created on a on b", log)
        a.post(ttl, 111)
        eventually(lambda: b.get(ttl), 111, 30, "a's TTL on b", log)
        b.post(ttl, 222)
        eventually(lambda: a.get(ttl), 222, 30, "b's TTL on a", log)
    before = events_in(env, "sync-b")
    with synchronizer(env, "sync-b", tmp_path / "b.json", log):
        time.sleep(5)  # several rounds: a restart from the state file must publish nothing
        assert events_in(env, "sync-b") == before, log.read_text()[-3000:]
        assert a.get(ttl) == b.get(ttl) == 222
