import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_pulsar_ha.errors import StartupError
from pytest_pulsar_ha.process.pid_registry import PidRegistry, process_start_ticks
from pytest_pulsar_ha.process.ports import free_ports
from pytest_pulsar_ha.process.processes import ManagedProcess
from pytest_pulsar_ha.process.readiness import HttpWait, TcpWait


def _alive(pid: int) -> bool:
    return process_start_ticks(pid) is not None and "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]


def test_stop_kills_the_whole_group(tmp_path: Path) -> None:
    registry = PidRegistry(tmp_path / "run")
    proc = ManagedProcess(
        "sleepers",
        ["sh", "-c", "sleep 300 & sleep 300 & wait"],
        cwd=tmp_path,
        log_path=tmp_path / "log",
        registry=registry,
    )
    proc.start()
    assert len(registry.records()) == 1
    deadline = time.monotonic() + 10
    while len(members := registry.records()[0].members()) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(members) == 3  # the shell and both sleeps carry the run id
    proc.stop(grace_seconds=1)
    assert not any(_alive(pid) for pid in members)
    assert registry.records() == []


def test_orphans_of_a_dead_owner_are_reaped_and_live_owners_are_not(tmp_path: Path) -> None:
    registry = PidRegistry(tmp_path / "run")
    # An owner process that starts a group and dies without cleanup (as under SIGKILL).
    code = (
        "import sys; from pathlib import Path\n"
        "from pytest_pulsar_ha.process.pid_registry import PidRegistry\n"
        "from pytest_pulsar_ha.process.processes import ManagedProcess\n"
        f"r = PidRegistry(Path({str(tmp_path / 'run')!r}))\n"
        f"log = Path({str(tmp_path / 'o.log')!r})\n"
        "p = ManagedProcess('orphan', ['sleep', '300'], cwd=Path('.'), log_path=log, registry=r)\n"
        "p.start(); print(p.pid)\n"
    )
    orphan = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert _alive(orphan)
    mine = ManagedProcess("mine", ["sleep", "300"], cwd=tmp_path, log_path=tmp_path / "m.log", registry=registry)
    mine.start()
    try:
        reaped = registry.reap_orphans()
        assert [r.name for r in reaped] == ["orphan"]
        time.sleep(0.2)
        assert not _alive(orphan)
        assert mine.is_running(), "a process of a live owner must never be reaped"
    finally:
        mine.stop(grace_seconds=1)


def test_reaper_never_kills_a_group_without_the_run_marker(tmp_path: Path) -> None:
    registry = PidRegistry(tmp_path / "run")
    stranger = subprocess.Popen(["sleep", "300"], start_new_session=True)
    try:
        record = {
            "run_id": "deadbeef0000",
            "name": "forged",
            "pgid": stranger.pid,
            "owner_pid": 999_999_999,
            "owner_start": 1,
            "command": "sleep 300",
        }
        (tmp_path / "run" / f"deadbeef0000-{stranger.pid}.json").write_text(json.dumps(record))
        assert registry.reap_orphans() == []
        assert stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait()


def test_a_process_that_dies_is_reported_at_once_with_its_log(tmp_path: Path) -> None:
    proc = ManagedProcess(
        "doomed",
        ["sh", "-c", "echo boom: no such config; exit 3"],
        cwd=tmp_path,
        log_path=tmp_path / "doomed.log",
        registry=PidRegistry(tmp_path / "run"),
    )
    proc.start()
    began = time.monotonic()
    (port,) = free_ports(1)
    with pytest.raises(StartupError) as info:
        TcpWait(port=port, timeout=60, poll_interval=0.05).wait(proc)
    assert time.monotonic() - began < 10
    text = str(info.value)
    assert "exited with code 3" in text
    assert "boom: no such config" in text
    assert "command: sh -c" in text


def test_a_timeout_carries_the_last_check_and_the_hint(tmp_path: Path) -> None:
    proc = ManagedProcess(
        "silent",
        ["sleep", "30"],
        cwd=tmp_path,
        log_path=tmp_path / "s.log",
        registry=PidRegistry(tmp_path / "r"),
    )
    proc.start()
    (port,) = free_ports(1)
    try:
        with pytest.raises(StartupError) as info:
            HttpWait(url=f"http://127.0.0.1:{port}/x", timeout=0.5, poll_interval=0.1, hint="try harder").wait(proc)
    finally:
        proc.stop(grace_seconds=1)
    text = str(info.value)
    assert "not ready after" in text and "hint: try harder" in text and f"127.0.0.1:{port}" in text


def test_environment_marker_is_set(tmp_path: Path) -> None:
    registry = PidRegistry(tmp_path / "run", run_id="abc123")
    proc = ManagedProcess(
        "env",
        ["sh", "-c", 'echo "run=$PULSAR_HA_RUN_ID"'],
        cwd=tmp_path,
        log_path=tmp_path / "e.log",
        registry=registry,
    )
    proc.start()
    deadline = time.monotonic() + 5
    while proc.is_running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "run=abc123" in proc.log_tail()
    assert os.environ.get("PULSAR_HA_RUN_ID") is None


def test_a_start_up_report_names_the_first_error_not_only_the_shutdown(tmp_path: Path) -> None:
    """A broker that fails to bind logs the reason early and then a screenful of shutdown lines: the report must
    carry the reason."""
    from pytest_pulsar_ha.process.processes import first_errors

    log = tmp_path / "stdout.log"
    log.write_text(
        "INFO starting\n"
        "ERROR org.apache.pulsar.PulsarBrokerStarter - Failed to start pulsar service.\n"
        "java.io.IOException: Failed to bind to /127.0.0.1:16553\n"
        "Caused by: java.net.BindException: Address already in use\n"
        + "INFO shutting down\n" * 100
        + "ERROR org.apache.pulsar.PulsarBrokerStarter - Failed to start pulsar service.\n"
    )
    found = first_errors(log)
    assert "Address already in use" in found
    assert found.count("Failed to start pulsar service") == 1
    assert "shutting down" not in found
    assert first_errors(tmp_path / "missing.log") == ""


def test_pause_returns_only_once_every_thread_of_every_member_is_stopped(tmp_path: Path) -> None:
    """Busy threads in two processes of the group: when pause() returns, none of them runs any more (their
    counter no longer moves), and resume() lets them run again."""
    from pytest_pulsar_ha.process.processes import running_threads

    counter = tmp_path / "ticks"
    spin = (
        "import os, sys, threading\n"
        "n = [0]\n"
        "def busy():\n"
        "    while True: n[0] += 1\n"
        "for _ in range(4): threading.Thread(target=busy, daemon=True).start()\n"
        "import time\n"
        "while True:\n"
        f"    open({str(counter)!r} + str(os.getpid()), 'w').write(str(n[0])); time.sleep(0.001)\n"
    )
    proc = ManagedProcess(
        "spinners",
        ["sh", "-c", f'{sys.executable} -c "$0" & {sys.executable} -c "$0" & wait', spin],
        cwd=tmp_path,
        log_path=tmp_path / "log",
        registry=PidRegistry(tmp_path / "run"),
    )
    proc.start()
    try:
        deadline = time.monotonic() + 10
        while len(list(tmp_path.glob("ticks*"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.pid is not None and len(running_threads(proc.pid)) >= 2
        for _ in range(5):
            proc.pause()
            assert running_threads(proc.pid) == []
            frozen = {path: path.read_text() for path in tmp_path.glob("ticks*")}
            time.sleep(0.1)
            assert {path: path.read_text() for path in tmp_path.glob("ticks*")} == frozen
            proc.resume()
            time.sleep(0.05)
            assert running_threads(proc.pid) != []
    finally:
        proc.stop(grace_seconds=1)
