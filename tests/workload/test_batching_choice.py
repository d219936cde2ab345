"""`workload.batching: auto` (the default): unbatched up to the rate two clusters take unbatched, batched above it,
never for the Java driver; as written otherwise."""

from __future__ import annotations

import pytest

from pytest_pulsar_ha.scenario.errors import ScenarioError
from pytest_pulsar_ha.scenario.loader import parse_scenarios
from pytest_pulsar_ha.workload.batching_choice import UNBATCHED_MSG_S, BatchingChoice, choose_batching
from tests.workload.fleet.test_processes_block import AUTO, auto_text


def chosen(workload: str, provider: str = AUTO, client: str = "{kind: python}") -> BatchingChoice:
    (case,) = parse_scenarios(auto_text(provider, workload, client), "b.pulsar-ha.yaml")
    return choose_batching(case.scenario)


def test_batching_defaults_to_auto_unbatched_up_to_the_stored_figure() -> None:
    (case,) = parse_scenarios(auto_text(AUTO, "rate: 20/s"), "b.pulsar-ha.yaml")
    assert case.scenario.workload.batching == "auto"
    assert not chosen("rate: 20/s").enabled
    assert not chosen(f"rate: {UNBATCHED_MSG_S}/s").enabled
    # the figure is the whole offer: producers x topics x namespaces at the per-producer rate
    assert not chosen(f"rate: {UNBATCHED_MSG_S // 2}/s, producers: 2").enabled
    assert chosen(f"rate: {UNBATCHED_MSG_S // 2 + 1}/s, producers: 2").enabled
    assert chosen(f"rate: {UNBATCHED_MSG_S // 4 + 1}/s, namespaces: 4").enabled


def test_auto_batches_above_the_figure_and_says_why() -> None:
    choice = chosen("rate: 20000/s")
    assert choice.enabled
    assert f"20,000 msg/s offered, over the {UNBATCHED_MSG_S:,} two clusters take unbatched" in choice.why


def test_written_batching_is_kept_at_any_rate() -> None:
    assert chosen("rate: 20000/s, batching: false") == BatchingChoice(False, "as written")
    assert chosen("rate: 20/s, batching: true") == BatchingChoice(True, "as written")


def test_auto_never_batches_the_java_driver_and_a_written_true_is_refused_for_it() -> None:
    java = dict(provider=AUTO.replace("}", ", probe: tcp}"), client="{kind: java}")
    choice = chosen("rate: 20000/s, processes: 1", **java)
    assert not choice.enabled and "Java driver" in choice.why
    with pytest.raises(ScenarioError, match=r"b.pulsar-ha.yaml:\d+: .*workload.batching: the Java driver sends"):
        chosen("rate: 20/s, batching: true", **java)


@pytest.mark.parametrize("value", ["'auto '", "1", "'yes'", "null"])
def test_a_bad_batching_value_is_a_file_line_error(value: str) -> None:
    with pytest.raises(ScenarioError, match=r"b.pulsar-ha.yaml:\d+: scenarios\[0\].workload.batching"):
        chosen(f"rate: 20/s, batching: {value}")
