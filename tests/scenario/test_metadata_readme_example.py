"""The docs' PIP-136 example (how-to/pip-136.md) is a valid scenario (wrapped with a name and a provider), and
the forms its comment names (per-cluster modes) are too; a mode for a cluster the topology does not have is refused."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from pytest_pulsar_ha.scenario.errors import ScenarioError
from pytest_pulsar_ha.scenario.loader import parse_scenarios

README = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "pip-136.md"


def readme_example() -> str:
    text = README.read_text()
    section = text[text.index("# Metadata sync (PIP-136)") :]
    match = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert match is not None, "the PIP-136 section has no yaml example"
    return match.group(1)


def wrap(body: str) -> str:
    return "scenarios:\n  - name: example\n    provider: {kind: none, primary: cluster-a}\n" + textwrap.indent(
        body, "    "
    )


def test_the_readme_example_is_a_valid_scenario() -> None:
    (case,) = parse_scenarios(wrap(readme_example()), "README.md")
    topology = case.scenario.topology
    assert topology.sync_of("cluster-a") == topology.sync_of("cluster-b") == "pulsar"


def test_modes_per_cluster() -> None:
    body = readme_example().replace("metadata_sync: pulsar", "metadata_sync: {cluster-a: pulsar, cluster-b: reference}")
    (case,) = parse_scenarios(wrap(body), "README.md")
    assert case.scenario.topology.sync_of("cluster-b") == "reference"


def test_a_mode_for_an_unknown_cluster_and_a_missing_one_are_named() -> None:
    body = readme_example().replace("metadata_sync: pulsar", "metadata_sync: {cluster-a: pulsar, cluster-c: reference}")
    with pytest.raises(ScenarioError) as info:
        parse_scenarios(wrap(body), "README.md")
    assert "unknown cluster 'cluster-c'" in str(info.value)
    assert "missing: cluster-b" in str(info.value)
