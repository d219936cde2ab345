"""The quiet end's last gate: a recovered cluster passes the provider's probe, each time well within its timeout,
for a steady stretch before clients may reach it (pure logic, on a fake clock)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pytest_pulsar_ha.nemesis.settle import wait_steady


@dataclass
class Result:
    ok: bool
    latency_s: float = 0.01
    error: str = ""


class FakeProbe:
    """Answers from a script, one per call; the fake clock moves by each answer's latency and by each sleep."""

    def __init__(self, answers: list[Result]) -> None:
        self.answers = answers
        self.now = 0.0
        self.calls: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def run(self) -> Result:
        self.calls.append(self.now)
        answer = self.answers[min(len(self.calls) - 1, len(self.answers) - 1)]
        self.now += answer.latency_s
        return answer


def wait(probe: FakeProbe, deadline: float = 60.0) -> None:
    wait_steady(
        probe.run, "cluster-a", "lookup", 0.5, 0.4, deadline, steady_s=3.0, clock=probe.clock, sleep=probe.sleep
    )


def test_a_cluster_that_answers_at_once_waits_out_the_steady_stretch_on_the_check_interval() -> None:
    probe = FakeProbe([Result(True)])
    wait(probe)
    assert probe.calls == pytest.approx([0.5 * i for i in range(7)])  # passes from 0 s to 3 s, every 0.5 s


def test_a_failure_in_the_stretch_starts_it_again() -> None:
    probe = FakeProbe([Result(True)] * 3 + [Result(False, error="timed out")] + [Result(True)])
    wait(probe)
    assert len(probe.calls) == 4 + 7 and probe.calls[-1] == pytest.approx(1.5 + 0.5 + 3.0)


def test_an_answer_only_just_within_the_timeout_does_not_count() -> None:
    slow = Result(True, latency_s=0.3)  # passes the provider's 0.4 s timeout, but not by half
    probe = FakeProbe([slow, slow, Result(True)])
    wait(probe)
    assert probe.calls[0] == 0.0 and probe.calls[2] == pytest.approx(1.0) and len(probe.calls) == 2 + 7


def test_a_cluster_that_never_steadies_is_a_timeout_naming_the_cluster_and_the_last_error() -> None:
    probe = FakeProbe([Result(True), Result(False, error="Connection refused")])
    with pytest.raises(TimeoutError, match=r"cluster-a did not pass the lookup probe steadily: Connection refused"):
        wait(probe, deadline=5.0)
    slow = FakeProbe([Result(True, latency_s=0.35)])
    with pytest.raises(TimeoutError, match=r"answered in 0\.35s, over half its 0\.4s timeout"):
        wait(slow, deadline=5.0)
