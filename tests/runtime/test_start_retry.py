"""An environment start is tried again only when a port was taken under it; every other failure is at once."""

from __future__ import annotations

import pytest

from pytest_pulsar_ha.errors import StartupError
from pytest_pulsar_ha.runtime.start_retry import start_with_retry


def _starter(failures: list[str]) -> tuple[list[int], object]:
    calls: list[int] = []

    def start() -> str:
        calls.append(1)
        if len(calls) <= len(failures):
            raise StartupError(failures[len(calls) - 1])
        return "env"

    return calls, start


def test_a_port_clash_is_tried_once_more_and_said() -> None:
    said: list[str] = []
    calls, start = _starter(["broker exited\nCaused by: java.net.BindException: Address already in use"])
    assert start_with_retry(start, say=said.append) == "env"  # type: ignore[arg-type]
    assert len(calls) == 2
    assert "BindException: Address already in use" in said[0]


def test_other_failures_are_not_retried() -> None:
    calls, start = _starter(["broker exited\nERROR ZooKeeper session expired"])
    with pytest.raises(StartupError, match="session expired"):
        start_with_retry(start, say=lambda _: None)  # type: ignore[arg-type]
    assert len(calls) == 1


def test_a_clash_every_time_is_reported_after_the_last_attempt() -> None:
    clash = "Address already in use"
    calls, start = _starter([clash, clash, clash])
    with pytest.raises(StartupError, match=clash):
        start_with_retry(start, attempts=2, say=lambda _: None)  # type: ignore[arg-type]
    assert len(calls) == 2
