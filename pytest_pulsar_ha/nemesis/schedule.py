"""The schedule of a scenario's faults: when the nemesis applies and undoes each one, which of them a switch
window pins (:mod:`~pytest_pulsar_ha.nemesis.scheduler` moves them onto the provider's checks), and, for a pinned
end that leaves its cluster recovering, what keeps clients off it and settles it (:mod:`.settle`)."""

from __future__ import annotations

from typing import Any

from pytest_pulsar_ha.nemesis.primitives import FaultTarget, fault_context
from pytest_pulsar_ha.nemesis.scheduler import ScheduledFault
from pytest_pulsar_ha.nemesis.settle import settler
from pytest_pulsar_ha.scenario.expectations import SwitchBackExpectation, SwitchExpectation
from pytest_pulsar_ha.scenario.model import Scenario


def pinned_faults(scenario: Scenario) -> tuple[set[int], set[int]]:
    """(faults whose start, faults whose end) a switch or switch-back window is measured from."""
    starts: set[int] = set()
    ends: set[int] = set()
    for expectation in scenario.expect:
        if isinstance(expectation, SwitchExpectation):
            spec = expectation.switch
            (starts if spec.of == "fault_start" else ends).add(spec.fault)
        elif isinstance(expectation, SwitchBackExpectation):
            ends.add(expectation.switch_back.fault)
    return starts, ends


def fault_offsets(fault: Any) -> tuple[float, float]:
    """When the nemesis applies and undoes ``fault``, in seconds from the workload's start (before any pin)."""
    start = float(fault.at.seconds)
    duration = getattr(fault, "for_", None)
    end = start + (duration.seconds if duration is not None else 0.2)
    if fault.facts.instant:
        end = start + 0.01
    return start, end


def cold_ends(scenario: Scenario) -> set[int]:
    """The faults whose end a ``cold`` switch-back is measured from: no quiet end, clients meet the cold cluster."""
    return {e.switch_back.fault for e in scenario.expect if isinstance(e, SwitchBackExpectation) and e.switch_back.cold}


def schedule_faults(target: FaultTarget) -> list[ScheduledFault]:
    """The scenario's faults as the nemesis runs them: start and end offsets, label, primitive and pins."""
    starts, ends = pinned_faults(target.scenario)
    cold = cold_ends(target.scenario)
    out = []
    for index, fault in enumerate(target.scenario.faults):
        start, end = fault_offsets(fault)
        make = fault_context(target, fault)
        cluster = fault.target
        quiet = settle = None
        if index in ends and index not in cold and fault.facts.quiet_end and cluster is not None:
            quiet = target.env.cluster(cluster).clients_cut
            settle = settler(target, cluster)
        out.append(
            ScheduledFault(
                index,
                fault.label(index),
                cluster,
                start,
                end,
                make,
                pin_start=index in starts,
                pin_end=index in ends,
                quiet=quiet,
                settle=settle,
                end_at_undo=index in cold,
            )
        )
    return out
