"""A migration's producers redirected in time, its consumers drained before they move (PIP-188)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from pydantic import Field

from pytest_pulsar_ha.scenario.base import ClusterName, Loc, _Model
from pytest_pulsar_ha.scenario.expectations.base import _Expectation, _WindowSpec
from pytest_pulsar_ha.scenario.facts import ExpectationFacts

__all__ = [
    "DrainedBeforeRedirectExpectation",
    "DrainedSpec",
    "ProducersRedirectedExpectation",
    "RedirectSpec",
]


class RedirectSpec(_WindowSpec):
    """Producers are redirected to a cluster within a time window (PIP-188), measured from a fault's start or end
    (the `migrate` entry's start, or e.g. the end of a replication cut): the first send acknowledged by `to`."""


class DrainedSpec(_Model):
    """Consumers leave a cluster only once they have received everything it acknowledged (PIP-188)."""

    from_: ClusterName = Field(alias="from")
    """The cluster consumers drain ("blue")."""
    to: ClusterName
    """The cluster they are redirected to ("green")."""


class ProducersRedirectedExpectation(_Expectation):
    """Producers are redirected in time (first ack by the target cluster)."""

    kind: ClassVar[str] = "producers_redirected"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts("PIP-188")
    producers_redirected: RedirectSpec

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        yield ("producers_redirected", "to"), self.producers_redirected.to


class DrainedBeforeRedirectExpectation(_Expectation):
    """Every subscription receives all that `from` acknowledged before any message delivered by `to`."""

    kind: ClassVar[str] = "drained_before_redirect"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts("PIP-188", needs_consumer=True)
    drained_before_redirect: DrainedSpec

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        spec = self.drained_before_redirect
        yield ("drained_before_redirect", "from"), spec.from_
        yield ("drained_before_redirect", "to"), spec.to
