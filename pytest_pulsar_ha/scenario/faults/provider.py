"""Faults on the failover provider's side (provider kind `controlled` only): an operator's switch, a URL
provider that answers badly."""

from __future__ import annotations

from typing import ClassVar, Literal

from pytest_pulsar_ha.scenario.base import ClusterName
from pytest_pulsar_ha.scenario.facts import FaultFacts
from pytest_pulsar_ha.scenario.faults.base import _Fault, _Timed, _Window

__all__ = ["OperatorSwitchFault", "UrlProviderAnswer", "UrlProviderFault"]


class _SwitchTo(_Fault):
    to: ClusterName
    """The cluster the URL provider serves from then on."""


class OperatorSwitchFault(_Timed, _SwitchTo):
    """The operator switches the URL provider to another cluster (provider kind `controlled` only)."""

    kind: Literal["operator_switch"]
    facts = FaultFacts("harness", instant=True, needs_provider=("controlled", "an operator switches the URL provider"))
    wording: ClassVar[dict[str, str]] = {"at": "When the operator switches, from the start of the workload."}

    @property
    def target(self) -> str | None:
        return str(self.to)

    def label(self, index: int) -> str:
        return f"#{index} operator_switch ->{self.to}"


UrlProviderAnswer = Literal[
    "status-500",
    "hang",
    "invalid-json",
    "missing-service-url",
    "empty-service-url",
    "unknown-auth-plugin",
    "oversize",
    "redirect-loop",
    "trickle",
    "trickle-headers",
    "deep-json",
    "bad-port",
    "bad-auth-params",
    "wrong-type",
]


class _Answering(_Fault):
    answer: UrlProviderAnswer
    """The kind of bad answer (docs/reliability/url-provider-answers.md shows what each one sends)."""


class UrlProviderFault(_Window, _Answering):
    """The URL provider answers badly for a while (provider kind `controlled` only): every poll gets `answer`."""

    kind: Literal["url_provider"]
    facts = FaultFacts("harness", needs_provider=("controlled", "only ControlledClusterFailover polls a URL provider"))
    wording: ClassVar[dict[str, str]] = {
        "at": "When the bad answers start, from the start of the workload.",
        "for_": "How long the URL provider answers badly.",
    }

    @property
    def target(self) -> str | None:
        return None

    def label(self, index: int) -> str:
        return f"#{index} url_provider {self.answer}"
