"""Which proposal a scenario exercises, for grouping the suite's results: PIP-188 when it migrates, PIP-136 when
its clusters sync metadata, PIP-7 when it places namespaces on failure domains, PIP-121 when a failover provider
chooses the cluster; anything else is "other"."""

from __future__ import annotations

from pytest_pulsar_ha.scenario.model import Scenario

PROPOSALS = (
    "PIP-121 cluster failover",
    "PIP-188 blue-green migration",
    "PIP-136 metadata sync",
    "PIP-7 failure domains",
    "other",
)
"""In the order the index page shows them."""


def proposal_of(scenario: Scenario) -> str:
    said = {f.facts.proposal for f in scenario.faults} | {e.facts.proposal for e in scenario.expect}
    if "PIP-188" in said:
        return PROPOSALS[1]
    if scenario.topology.metadata_sync is not None or scenario.workload.metadata is not None or "PIP-136" in said:
        return PROPOSALS[2]
    if scenario.workload.anti_affinity_group is not None or "PIP-7" in said:
        return PROPOSALS[3]
    if scenario.provider.facts.fails_over:
        return PROPOSALS[0]
    return PROPOSALS[4]
