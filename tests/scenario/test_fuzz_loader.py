"""Fuzzing the loader: mutations of the shipped scenario files never raise anything but ``ScenarioError`` and
never take more than a few seconds of CPU or 256 MiB per file (an alias bomb or a nesting bomb takes minutes; CPU
time, not wall time, so that a loaded machine does not fail the test)."""

from __future__ import annotations

import tempfile
import time
import tracemalloc
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_pulsar_ha.scenario import ScenarioError, load_scenarios

from .helpers import REPO

SHIPPED = sorted((REPO / "scenarios").glob("*.pulsar-ha.yaml"))
SEEDS = [path.read_bytes() for path in SHIPPED]

LAUGHS = b"".join(
    b"x-l%d: &l%d [%s]\n" % (i, i, b", ".join([b"*l%d" % (i - 1) if i else b"lol"] * 9)) for i in range(9)
)
SNIPPETS = [
    b"&a ",
    b"*a",
    b"*l8",
    b"[",
    b"]",
    b"{",
    b"}",
    b"<<: ",
    b"<<: *a\n",
    b"\t",
    b"\x00",
    b"\x07",
    b"\xff\xfe",
    b"\xe9",
    b"\xc3",
    b"1" * 400,
    b"1.0e+999",
    b".nan",
    b"-1",
    b"0s",
    b"null",
    b"[" * 300,
    b"{a: " * 100,
    b"\n- ",
    b": ",
    b"'",
    b'"',
    b"? ",
    b"---\n",
    b"!!python/object:os.system ",
    b"!!binary ",
    b"2001-13-45",
    LAUGHS,
]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["flip", "delete", "insert", "insert"]))
        if action == "flip" and at < len(data):
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif action == "delete":
            del data[at : at + draw(st.integers(1, 40))]
        else:
            data[at:at] = draw(st.sampled_from(SNIPPETS))
    return bytes(data)


_DIR = Path(tempfile.mkdtemp(prefix="scenario-fuzz-"))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_files_only_ever_raise_scenario_error_quickly(data: bytes) -> None:
    path = _DIR / "fuzz.pulsar-ha.yaml"
    path.write_bytes(data)
    tracemalloc.start()
    started = time.process_time()
    try:
        load_scenarios(path)
    except ScenarioError as exc:
        assert exc.problems and all(problem.line >= 1 for problem in exc.problems)
        lines = data.count(b"\n") + 1
        assert all(problem.line <= lines for problem in exc.problems), (str(exc), lines)
    finally:
        elapsed = time.process_time() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert elapsed < 3.0, f"took {elapsed:.2f}s of CPU"
    assert peak < 256 * 1024 * 1024, f"peak {peak / 2**20:.0f} MiB"


def test_the_seeds_are_the_shipped_files() -> None:
    assert len(SEEDS) >= 5 and all(b"scenarios:" in seed for seed in SEEDS)
