"""The scenario format: the typed model of one entry of a ``*.pulsar-ha.yaml`` file, its loader, its JSON Schema.

The format is described in ``docs/reference/scenario-format.md``. The model's parts are typed in their own
modules (topology, providers, workload, faults, expectations, modes, generate), its cross-field rules listed in
:mod:`pytest_pulsar_ha.spec.rules`. This layer imports nothing of the runtime, the checks or pytest.
"""

from pytest_pulsar_ha.spec.errors import Problem, ScenarioError, ScenarioFailed
from pytest_pulsar_ha.spec.expectations import (
    AvailabilityExpectation,
    AvailabilitySpec,
    Expectation,
    MaxDuplicatesExpectation,
    NoLossExpectation,
    NoSwitchExpectation,
    OrderingExpectation,
    OrderingSpec,
    SwitchBackExpectation,
    SwitchBackSpec,
    SwitchExpectation,
    SwitchSpec,
)
from pytest_pulsar_ha.spec.faults import (
    BandwidthFault,
    Fault,
    KillFault,
    LatencyFault,
    OperatorSwitchFault,
    OutageFault,
    PauseFault,
    ReplicationCutFault,
    ResetFault,
    TimeoutFault,
    UrlProviderFault,
)
from pytest_pulsar_ha.spec.loader import (
    FILE_SUFFIX,
    ScenarioCase,
    is_scenario_file,
    load_scenarios,
    parse_scenarios,
    stable_seed,
)
from pytest_pulsar_ha.spec.providers import AutoProvider, ControlledProvider, NativeProvider, NoProvider, Provider
from pytest_pulsar_ha.spec.quantities import Bandwidth, Duration, Rate, Size
from pytest_pulsar_ha.spec.scenario import Scenario
from pytest_pulsar_ha.spec.topology import Topology
from pytest_pulsar_ha.spec.workload import Topic, Workload

__all__ = [
    "FILE_SUFFIX",
    "AutoProvider",
    "AvailabilityExpectation",
    "AvailabilitySpec",
    "Bandwidth",
    "BandwidthFault",
    "ControlledProvider",
    "Duration",
    "Expectation",
    "Fault",
    "KillFault",
    "LatencyFault",
    "MaxDuplicatesExpectation",
    "NativeProvider",
    "NoLossExpectation",
    "NoProvider",
    "NoSwitchExpectation",
    "OperatorSwitchFault",
    "OrderingExpectation",
    "OrderingSpec",
    "OutageFault",
    "PauseFault",
    "Problem",
    "Provider",
    "Rate",
    "ReplicationCutFault",
    "ResetFault",
    "Scenario",
    "ScenarioCase",
    "ScenarioError",
    "ScenarioFailed",
    "Size",
    "SwitchBackExpectation",
    "SwitchBackSpec",
    "SwitchExpectation",
    "SwitchSpec",
    "TimeoutFault",
    "Topic",
    "Topology",
    "UrlProviderFault",
    "Workload",
    "is_scenario_file",
    "load_scenarios",
    "parse_scenarios",
    "stable_seed",
]
