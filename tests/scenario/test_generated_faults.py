"""`generate:` draws faults from the seed: the same seed gives the same faults, every draw respects the declared
space (count, span, lengths, gaps, concurrency, never every cluster at once), and a space that cannot be drawn
from is refused at load time with its line."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_pulsar_ha.scenario.errors import ScenarioError
from pytest_pulsar_ha.scenario.generate import draw_faults, hit, with_drawn_faults
from pytest_pulsar_ha.scenario.loader import parse_scenarios
from pytest_pulsar_ha.scenario.model import Scenario

CLUSTERS = ("cluster-a", "cluster-b", "cluster-c")


def scenario(generate: str, duration: str = "60s") -> Scenario:
    text = textwrap.dedent(
        f"""\
        scenarios:
          - name: s
            topology: {{clusters: [cluster-a, cluster-b, cluster-c]}}
            workload: {{duration: {duration}}}
            generate: {generate}
            expect: [{{no_loss: true}}]
        """
    )
    (case,) = parse_scenarios(text, "g.pulsar-ha.yaml")
    return case.scenario


def error_of(generate: str, duration: str = "60s") -> str:
    with pytest.raises(ScenarioError) as info:
        scenario(generate, duration)
    return str(info.value)


def test_the_same_seed_draws_the_same_faults_and_another_seed_others() -> None:
    s = scenario("{count: 4, kinds: [outage, latency, replication_cut]}")
    assert draw_faults(s, 7) == draw_faults(s, 7)
    assert any(draw_faults(s, 7) != draw_faults(s, seed) for seed in range(8, 12))
    assert len(with_drawn_faults(s, 7).faults) == 4


@settings(max_examples=150, deadline=None)
@given(
    count=st.integers(1, 6),
    low=st.integers(1, 40),
    spread=st.integers(0, 60),
    gap_low=st.integers(0, 30),
    gap_spread=st.integers(0, 50),
    seed=st.integers(0, 2**32),
)
def test_one_at_a_time_every_draw_keeps_to_the_space(
    count: int, low: int, spread: int, gap_low: int, gap_spread: int, seed: int
) -> None:
    """Lengths and gaps in tenths of a second; spaces that do not fit are refused (and skipped here)."""
    space = (
        f"{{count: {count}, kinds: [outage, kill, latency, replication_cut], start: 2s, end_margin: 5s, "
        f"length: [{low / 10}s, {(low + spread) / 10}s], gap: [{gap_low / 10}s, {(gap_low + gap_spread) / 10}s]}}"
    )
    try:
        s = scenario(space)
    except ScenarioError as exc:
        assert "draw fewer or shorter faults" in str(exc)
        return
    faults = draw_faults(s, seed)
    assert len(faults) == count
    previous_end = None
    for fault in faults:
        at, length = fault.at.seconds, fault.for_.seconds
        assert at >= 2 - 1e-9 and at + length <= 55 + 1e-9, (at, length)
        assert low / 10 - 1e-9 <= length <= (low + spread) / 10 + 1e-9
        if previous_end is not None:
            assert at - previous_end >= gap_low / 10 - 0.1 - 1e-9
        previous_end = at + length
        if fault.kind == "replication_cut":
            assert fault.from_ != fault.to and {fault.from_, fault.to} <= set(CLUSTERS)
        else:
            assert fault.cluster in CLUSTERS


@settings(max_examples=60, deadline=None)
@given(count=st.integers(2, 8), concurrent=st.integers(2, 3), seed=st.integers(0, 2**32))
def test_several_at_once_never_more_than_allowed_and_never_every_cluster(
    count: int, concurrent: int, seed: int
) -> None:
    s = scenario(f"{{count: {count}, kinds: [outage, pause, replication_cut], max_concurrent: {concurrent}}}")
    faults = draw_faults(s, seed)
    assert len(faults) == count
    for moment in {f.at.seconds for f in faults}:
        holding = [f for f in faults if f.at.seconds <= moment < f.at.seconds + f.for_.seconds]
        assert len(holding) <= concurrent
        assert set().union(*(hit(f) for f in holding)) != set(CLUSTERS)


def test_a_space_that_cannot_be_drawn_from_is_refused_with_its_line() -> None:
    assert "g.pulsar-ha.yaml:5: scenarios[0].generate.count: 10 faults of at least 5s with gaps of at least 2s" in (
        error_of("{count: 10, kinds: [outage], length: [5s, 6s], gap: [2s, 3s]}")
    )
    assert "unknown cluster 'cluster-z'" in error_of("{count: 1, kinds: [outage], clusters: [cluster-z]}")
    assert "replication_cut needs two clusters" in error_of(
        "{count: 1, kinds: [replication_cut], clusters: [cluster-a], all_clusters_at_once: true}"
    )
    assert "with one cluster every outage fault hits all clusters" in error_of(
        "{count: 1, kinds: [outage], clusters: [cluster-a]}"
    )
    assert "expected [earliest, latest] with earliest <= latest" in error_of(
        "{count: 1, kinds: [outage], length: [6s, 2s]}"
    )
    assert "expected one of" in error_of("{count: 1, kinds: [meteor]}")


def test_the_readme_example_is_valid() -> None:
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "scenario-format.md").read_text()
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", readme, re.S) if b.startswith("generate:")]
    body = block.split("\n", 1)[1]  # the keys under generate:
    keys = "{" + ", ".join(line.split("#")[0].strip() for line in body.splitlines() if line.strip()) + "}"
    s = scenario(keys)
    assert s.generate is not None and s.generate.count == 3
    assert len(draw_faults(s, 1)) == 3
