"""What consumers received: nothing lost, in order, few duplicates (judged by the Spark job)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pytest_pulsar_ha.scenario.base import Count, TrueFlag, _Model
from pytest_pulsar_ha.scenario.expectations.base import _Expectation
from pytest_pulsar_ha.scenario.facts import ExpectationFacts

__all__ = ["MaxDuplicatesExpectation", "NoLossExpectation", "OrderingExpectation", "OrderingSpec"]


class OrderingSpec(_Model):
    """Messages are received in the order they were sent, among messages acknowledged by one cluster: the first
    receipt of each message, and each cluster's own deliveries (a cluster may deliver a message again after a
    reconnect, rewinding its stream; it may not deliver one it never delivered after a later one)."""

    per: Literal["key", "producer"]
    """Order is checked per message key or per producer."""


class NoLossExpectation(_Expectation):
    """Every acknowledged message is received in the end."""

    kind: ClassVar[str] = "no_loss"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts(None, needs_consumer=True, in_soak=True)
    no_loss: TrueFlag


class OrderingExpectation(_Expectation):
    """Messages arrive in order, per key or per producer."""

    kind: ClassVar[str] = "ordering"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts(None, needs_consumer=True, in_soak=True)
    ordering: OrderingSpec


class MaxDuplicatesExpectation(_Expectation):
    """At most this many messages are received more than once."""

    kind: ClassVar[str] = "max_duplicates"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts(None, needs_consumer=True, in_soak=True)
    max_duplicates: Count
