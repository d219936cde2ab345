"""Ports are chosen below the kernel's ephemeral range (where outgoing connections never take them), distinct,
and free when chosen; the kernel's choice only when that range leaves no room."""

from __future__ import annotations

import random
import socket
from pathlib import Path

import pytest

from pytest_pulsar_ha.process import ports


def test_ports_are_distinct_free_and_below_the_ephemeral_range() -> None:
    low, _ = ports.ephemeral_range()
    chosen = ports.free_ports(40, random.Random(7))
    assert len(set(chosen)) == 40
    assert all(ports.LOWEST <= p < low for p in chosen)
    for port in chosen:
        with socket.socket() as sock:
            sock.bind((ports.LOOPBACK, port))  # still free: nothing holds it


def test_a_port_in_use_is_skipped() -> None:
    with socket.socket() as held:
        held.bind((ports.LOOPBACK, 0))
        held.listen()
        taken = held.getsockname()[1]

        class Fixed(random.Random):
            def randrange(self, *args: object, **kwargs: object) -> int:  # type: ignore[override]
                self.calls = getattr(self, "calls", 0) + 1
                return taken if self.calls == 1 else 20000 + self.calls

        (port,) = ports.free_ports(1, Fixed())
        assert port != taken


def test_without_room_below_the_ephemeral_range_the_kernel_chooses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "range"
    fake.write_text("1024\t65535\n")
    monkeypatch.setattr(ports, "EPHEMERAL_RANGE_FILE", fake)
    assert ports.ephemeral_range() == (1024, 65535)
    (port,) = ports.free_ports(1)
    assert port > 0


def test_an_unreadable_range_file_gives_the_usual_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ports, "EPHEMERAL_RANGE_FILE", tmp_path / "missing")
    assert ports.ephemeral_range() == ports.DEFAULT_EPHEMERAL


def test_separate_calls_never_hand_out_the_same_port() -> None:
    """Ports are bound by their processes long after they are chosen, so a second caller must not get one again,
    even when its random choices repeat the first caller's."""
    first = ports.free_ports(10, random.Random(11))
    second = ports.free_ports(10, random.Random(11))  # the same draws: every first choice is refused
    assert not set(first) & set(second)
    assert len(set(second)) == 10
