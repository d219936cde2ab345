"""``file::name`` runs the scenario case ``name`` only (a replay command must not run its variants too), while
``file::name[variant]`` and the whole file select as usual."""

from __future__ import annotations

import pytest

SCENARIO = """
scenarios:
  - name: outage
    topology: {clusters: [cluster-a, cluster-b]}
    workload: {duration: 10s}
    expect:
      - no_loss: true
    variants:
      - id: slow
        workload: {duration: 20s}
      - id: fast
        workload: {duration: 5s}
"""


@pytest.fixture
def scenario_dir(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".pulsar-ha.yaml", chaos=SCENARIO)
    return pytester


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["chaos.pulsar-ha.yaml::outage"], ["chaos.pulsar-ha.yaml::outage"]),
        (["chaos.pulsar-ha.yaml::outage[fast]"], ["chaos.pulsar-ha.yaml::outage[fast]"]),
        (
            ["chaos.pulsar-ha.yaml::outage", "chaos.pulsar-ha.yaml::outage[slow]"],
            ["chaos.pulsar-ha.yaml::outage", "chaos.pulsar-ha.yaml::outage[slow]"],
        ),
        (
            ["chaos.pulsar-ha.yaml"],
            [
                "chaos.pulsar-ha.yaml::outage",
                "chaos.pulsar-ha.yaml::outage[slow]",
                "chaos.pulsar-ha.yaml::outage[fast]",
            ],
        ),
    ],
)
def test_a_case_named_by_its_id_is_the_only_one_collected(
    scenario_dir: pytest.Pytester, args: list[str], expected: list[str]
) -> None:
    result = scenario_dir.runpytest("--collect-only", "-q", *args)
    collected = [line for line in result.outlines if "::" in line]
    assert collected == expected, result.outlines
