"""The state file: written atomically and readable by its owner only, read back whole; a file that is not a state
(bad JSON, wrong fields, a digest that does not match, too big) is a reason, never a crash; a keeper that is gone
makes the state stale."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_pulsar_ha.process.pid_registry import process_start_ticks
from pytest_pulsar_ha.settings import HaSettings
from pytest_pulsar_ha.settings.clusters import ClusterSpec
from pytest_pulsar_ha.warm.description import EnvironmentDescription
from pytest_pulsar_ha.warm.state import MAX_STATE_BYTES, STATE_FILE, ClusterAddresses, WarmState, WarmStore

DESCRIPTION = EnvironmentDescription.of(HaSettings(clusters=(ClusterSpec("cluster-a"), ClusterSpec("cluster-b"))))


def _state(pid: int | None = None, ticks: int | None = None) -> WarmState:
    pid = os.getpid() if pid is None else pid
    addresses = ClusterAddresses(
        "pulsar://127.0.0.1:1", "http://127.0.0.1:2", "pulsar://127.0.0.1:3", "http://127.0.0.1:4", "t"
    )
    return WarmState(
        DESCRIPTION,
        pid,
        process_start_ticks(pid) or 0 if ticks is None else ticks,
        1.0,
        "/tmp/w",
        {"cluster-a": addresses},
        "http://127.0.0.1:5",
    )


def test_a_state_is_written_for_its_owner_only_and_read_back_whole(tmp_path: Path) -> None:
    store = WarmStore(tmp_path)
    path = store.write(_state())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert store.read(DESCRIPTION.digest) == _state()
    assert store.digests() == [DESCRIPTION.digest]
    assert store.read("0" * 16) is None


def test_a_live_keeper_is_up_a_gone_one_is_stale() -> None:
    assert _state().why_stale() is None
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True)
    gone = int(done.stdout)
    assert "is not running" in (_state(pid=gone, ticks=1).why_stale() or "")
    assert "is another process now" in (_state(ticks=1).why_stale() or "")


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"{", "not a warm environment's state (Expecting"),
        (b"[]", "not a JSON object"),
        (b'{"description": {}}', "not an environment description"),
        (b"\xff\xfe", "not a warm environment's state"),
        (b" " * (MAX_STATE_BYTES + 1), "larger than"),
    ],
)
def test_what_is_not_a_state_is_a_reason(tmp_path: Path, content: bytes, reason: str) -> None:
    store = WarmStore(tmp_path)
    folder = store.directory(DESCRIPTION.digest)
    folder.mkdir(parents=True)
    (folder / STATE_FILE).write_bytes(content)
    found = store.read(DESCRIPTION.digest)
    assert isinstance(found, str) and reason in found and str(folder) in found


def test_a_state_whose_digest_does_not_match_its_description_is_refused(tmp_path: Path) -> None:
    data = _state().to_json()
    data["description"]["heap"] = "9g"  # edited by hand: no longer what the digest names
    store = WarmStore(tmp_path)
    folder = store.directory(DESCRIPTION.digest)
    folder.mkdir(parents=True)
    (folder / STATE_FILE).write_text(json.dumps(data))
    assert "its digest does not match its description" in str(store.read(DESCRIPTION.digest))


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda c: st.lists(c) | st.dictionaries(st.text(max_size=12), c),
        max_leaves=30,
    )
)
def test_any_json_is_a_state_or_a_value_error(data: object) -> None:
    """Anything else (a TypeError, an AttributeError) would fail the test: a state file is read, never trusted."""
    with contextlib.suppress(ValueError):
        WarmState.from_json(data)


def test_a_keeper_killed_but_not_yet_reaped_is_gone() -> None:
    """A zombie (killed, its parent not looking yet) still has its /proc entry and start time: it is no keeper."""
    import signal
    import time

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        ticks = process_start_ticks(child.pid)
        assert ticks is not None and _state(pid=child.pid, ticks=ticks).why_stale() is None
        os.kill(child.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert "is not running" in (_state(pid=child.pid, ticks=ticks).why_stale() or "")  # a zombie, unreaped
    finally:
        child.wait()
