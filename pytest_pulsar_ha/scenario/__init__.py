"""The scenario format: the typed model of one entry of a ``*.pulsar-ha.yaml`` file, its loader, its JSON Schema.

The format is described in ``docs/reference/scenario-format.md``. The model's parts are typed in their own
modules (topology, providers, workload, faults, expectations, modes, generate; each fault and expectation kind with
its facts), its cross-field rules listed in
:mod:`pytest_pulsar_ha.scenario.rules`. This layer imports nothing of the runtime, the checks or pytest.
"""

from pytest_pulsar_ha.scenario import expectations, faults
from pytest_pulsar_ha.scenario.errors import Problem, ScenarioError, ScenarioFailed
from pytest_pulsar_ha.scenario.expectations import *  # noqa: F403
from pytest_pulsar_ha.scenario.facts import ExpectationFacts, FaultFacts
from pytest_pulsar_ha.scenario.faults import *  # noqa: F403
from pytest_pulsar_ha.scenario.loader import (
    FILE_SUFFIX,
    ScenarioCase,
    is_scenario_file,
    load_scenarios,
    parse_scenarios,
    stable_seed,
)
from pytest_pulsar_ha.scenario.model import Scenario
from pytest_pulsar_ha.scenario.providers import AutoProvider, ControlledProvider, NativeProvider, NoProvider, Provider
from pytest_pulsar_ha.scenario.quantities import Bandwidth, Duration, Rate, Size
from pytest_pulsar_ha.scenario.topology import Topology
from pytest_pulsar_ha.scenario.workload import Topic, Workload

__all__ = [
    "FILE_SUFFIX",
    "AutoProvider",
    "Bandwidth",
    "ControlledProvider",
    "Duration",
    "ExpectationFacts",
    "FaultFacts",
    "NativeProvider",
    "NoProvider",
    "Problem",
    "Provider",
    "Rate",
    "Scenario",
    "ScenarioCase",
    "ScenarioError",
    "ScenarioFailed",
    "Size",
    "Topic",
    "Topology",
    "Workload",
    "is_scenario_file",
    "load_scenarios",
    "parse_scenarios",
    "stable_seed",
]
__all__ += expectations.__all__  # every expectation kind and its spec
__all__ += faults.__all__  # every fault kind
