"""The life of a warm environment on real clusters, as a user lives it: ``pulsar-ha up`` leaves it running;
a pytest session with ``--pulsar-ha-reuse`` attaches (and leaves a cluster killed, a proxy cut, a toxic and a
clock moved behind it); the next session attaches to the same processes and finds everything as a fresh start
would (the killed cluster started again); a session while another holds it is refused, told who; the reaper
leaves it alone while its keeper lives; a killed keeper makes it stale, and ``down`` removes what it left."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from typing import Any

import pytest

from pytest_pulsar_ha import HaSettings
from pytest_pulsar_ha.process.pid_registry import PidRegistry, live_group_members
from pytest_pulsar_ha.warm.lock import SessionLock
from pytest_pulsar_ha.warm.state import WarmState, WarmStore

pytestmark = pytest.mark.real_clusters

CLUSTERS = "warm-a,warm-b"  # names of their own: never a user's warm environment

FIRST = """
def test_leaves_a_mess(pulsar_ha):
    a = pulsar_ha.cluster("warm-a")
    assert a.node.is_running() and pulsar_ha.cluster("warm-b").node.is_running()
    a.node.kill()
    pulsar_ha.network.disable(pulsar_ha.layout.client_proxies("warm-b"))
    proxy = pulsar_ha.layout.http_proxies("warm-b")[0]
    pulsar_ha.network.client.add_toxic(proxy, "left-behind", "latency", {"latency": 3000}, stream="downstream")
    a.clock.set_offset(30.0)
"""

SECOND = """
import urllib.request

def test_finds_it_as_new(pulsar_ha):
    for name in ("warm-a", "warm-b"):
        cluster = pulsar_ha.cluster(name)
        assert cluster.node.is_running() and not cluster.node.is_paused()
        assert cluster.clock.offset_s() == 0.0
        with urllib.request.urlopen(cluster.admin_url + "/admin/v2/clusters", timeout=2) as answer:
            assert name in answer.read().decode()
    for proxy in pulsar_ha.layout.client_proxies("warm-b") + pulsar_ha.layout.http_proxies("warm-b"):
        assert pulsar_ha.network.client.is_enabled(proxy)
        assert pulsar_ha.network.client.toxics(proxy) == []
    namespace = pulsar_ha.create_geo_namespace()
    client = pulsar_ha.client("warm-a")
    producer = client.create_producer(f"persistent://{namespace}/t")
    producer.send(b"hello")
    client.close()
"""


def _cli(settings: HaSettings, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PULSAR_HA_CACHE_DIR": str(settings.cache_dir)}
    return subprocess.run(
        [sys.executable, "-m", "pytest_pulsar_ha", *args], capture_output=True, text=True, timeout=600, env=env
    )


def _owned(settings: HaSettings, state: WarmState) -> dict[str, int]:
    """The keeper's process groups by what they run (toxiproxy, or the cluster a standalone is)."""
    records = [r for r in PidRegistry(settings.cache_dir / "run").records() if r.owner_pid == state.keeper_pid]
    return {next((n for n in ("warm-a", "warm-b") if n in r.name), r.name): r.pgid for r in records}


def _status(settings: HaSettings, digest: str) -> dict[str, Any]:
    found = json.loads(_cli(settings, "status", "--json").stdout)
    return next(entry for entry in found if entry["digest"] == digest)


def _session(pytester: pytest.Pytester, settings: HaSettings, source: str) -> pytest.RunResult:
    pytester.makepyfile(test_session=source)
    return pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "-s",
        "--pulsar-ha-reuse",
        f"--pulsar-ha-clusters={CLUSTERS}",
        f"--pulsar-ha-cache-dir={settings.cache_dir}",
        f"--pulsar-ha-pulsar-version={settings.pulsar_version}",
        timeout=600,
    )


def test_the_life_of_a_warm_environment(pytester: pytest.Pytester, pulsar_ha_settings: HaSettings) -> None:
    settings = pulsar_ha_settings
    up = _cli(settings, "up", "--clusters", CLUSTERS, "--pulsar-version", settings.pulsar_version)
    assert up.returncode == 0, up.stdout + up.stderr
    digest = re.search(r" as ([0-9a-f]{16}) ", up.stdout).group(1)  # type: ignore[union-attr]
    store = WarmStore(settings.cache_dir)
    try:
        state = store.read(digest)
        assert isinstance(state, WarmState), state
        owned = _owned(settings, state)
        assert sorted(owned) == ["toxiproxy", "warm-a", "warm-b"], owned  # all the keeper's
        entry = _status(settings, digest)
        assert entry["status"] == "up" and entry["in_use_by"] is None
        assert entry["description"].startswith(f"pulsar {settings.pulsar_version}, embedded, warm-a:1,warm-b:1")
        again = _cli(settings, "up", "--clusters", CLUSTERS, "--pulsar-version", settings.pulsar_version)
        assert f"already up: {digest}" in again.stdout and f"keeper pid {state.keeper_pid}" in again.stdout

        first = _session(pytester, settings, FIRST)
        first.assert_outcomes(passed=1)
        first.stdout.fnmatch_lines([f"pulsar-ha: reuse=on: warm environment {digest} *"])
        assert f"attached to the warm environment {digest}" in first.stderr.str()

        second = _session(pytester, settings, SECOND)
        second.assert_outcomes(passed=1)
        after = _owned(settings, state)  # every process still the keeper's
        assert after["warm-a"] != owned["warm-a"]  # the killed one started again
        assert after["toxiproxy"] == owned["toxiproxy"] and after["warm-b"] == owned["warm-b"]  # the others kept
        assert all(live_group_members(pgid) for pgid in after.values())

        with SessionLock(store.directory(digest), "a session that holds it"):
            busy = _session(pytester, settings, SECOND)
            assert busy.ret != 0
            assert "is in use by a session that holds it" in busy.stdout.str() + busy.stderr.str()
            assert _status(settings, digest)["in_use_by"].startswith("a session that holds it")

        reap = _cli(settings, "reap")  # its owner, the keeper, lives: nothing of it is touched
        assert reap.returncode == 0
        assert all(live_group_members(pgid) for pgid in after.values()), reap.stdout

        os.kill(state.keeper_pid, signal.SIGKILL)  # as a reboot or an OOM kill would leave it
        deadline = time.monotonic() + 10
        while _status(settings, digest)["status"] != "stale" and time.monotonic() < deadline:
            time.sleep(0.2)
        stale = _status(settings, digest)
        assert stale["status"] == "stale" and "is not running" in stale["why"], stale

        down = _cli(settings, "down", digest)
        assert down.returncode == 0, down.stderr
        assert "killed leftover" in down.stdout, down.stdout
        assert not any(live_group_members(pgid) for pgid in after.values())
        assert digest not in store.digests()
    finally:
        _cli(settings, "down", digest)
