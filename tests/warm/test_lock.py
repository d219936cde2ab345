"""One session at a time: a second holder is refused at once, told who holds it; the lock goes with its holder,
also when the holder is killed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pytest_pulsar_ha.warm.lock import EnvironmentBusy, SessionLock


def test_a_second_session_is_refused_naming_the_first_then_gets_it_once_released(tmp_path: Path) -> None:
    busy = pytest.raises(EnvironmentBusy, match=r"in use by pytest session one \(pid \d+, since")
    with SessionLock(tmp_path, "pytest session one"), busy:
        SessionLock(tmp_path, "pytest session two").acquire()
    with SessionLock(tmp_path, "pytest session two"):
        pass


def test_a_holder_that_is_killed_lets_go(tmp_path: Path) -> None:
    code = (
        "import sys, time; from pathlib import Path; from pytest_pulsar_ha.warm.lock import SessionLock; "
        "SessionLock(Path(sys.argv[1]), 'doomed').acquire(); print('held', flush=True); time.sleep(60)"
    )
    holder = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(EnvironmentBusy, match="in use by doomed"):
            SessionLock(tmp_path, "next").acquire()
    finally:
        holder.kill()
        holder.wait()
    with SessionLock(tmp_path, "next"):
        pass


def test_who_holds_it_is_read_without_taking_it(tmp_path: Path) -> None:
    from pytest_pulsar_ha.warm.lock import holder

    assert holder(tmp_path) is None
    with SessionLock(tmp_path, "session one"):
        assert (holder(tmp_path) or "").startswith("session one (pid ")
    assert holder(tmp_path) is None
