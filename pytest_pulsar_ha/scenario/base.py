"""The building blocks of the scenario model: locations, the problem error, name and count types, and the
frozen base model every part of a scenario is made of.

Every model is a frozen pydantic model that rejects unknown keys. Checks that involve several fields run once the
fields themselves are valid and report every problem at once, each with its location (see :data:`PROBLEMS_ERROR`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError

from pytest_pulsar_ha.scenario.quantities import AboveZero, Duration

Loc = tuple[str | int, ...]

#: The pydantic error type of the cross-field checks; its context holds `problems`: `[(loc, message), ...]`
#: with each `loc` relative to the model that raised it.
PROBLEMS_ERROR = "scenario_problems"

SCENARIO_NAME_PATTERN = r"[a-z0-9][a-z0-9_.-]*"
CLUSTER_NAME_PATTERN = r"[a-z][a-z0-9-]{0,39}"
MARK_NAME_PATTERN = r"[A-Za-z_][A-Za-z0-9_]*"
TOPIC_NAME_PATTERN = r"[A-Za-z0-9_][A-Za-z0-9_.=-]*"
DOMAIN_NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}"
SETTING_NAME_PATTERN = r"[A-Za-z][A-Za-z0-9_.]*"

_EPSILON = 1e-9  # durations are floats: 0.1s + 0.2s must still end by 0.3s


def dotted(loc: Loc) -> str:
    """`('faults', 1, 'for')` -> `faults[1].for`."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _raise_problems(problems: list[tuple[Loc, str]]) -> None:
    if problems:
        text = "; ".join(f"{dotted(loc)}: {message}" if loc else message for loc, message in problems)
        raise PydanticCustomError(PROBLEMS_ERROR, "{text}", {"text": text, "problems": problems})


def _matching(pattern: str, expected: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        if not re.fullmatch(pattern, value):
            raise PydanticCustomError("name", "{message}", {"message": f"expected {expected}, found {value!r}"})
        return value

    return check


def _string(pattern: str, description: str) -> WithJsonSchema:
    return WithJsonSchema({"type": "string", "pattern": f"^{pattern}$", "description": description})


def _true(value: bool) -> bool:
    if value is not True:
        raise PydanticCustomError(
            "true_only", "{message}", {"message": "expected true (leave the expectation out instead), found false"}
        )
    return value


ScenarioName = Annotated[
    str,
    AfterValidator(
        _matching(
            SCENARIO_NAME_PATTERN,
            "a name of lowercase letters, digits, '_', '.' and '-', starting with a letter or digit",
        )
    ),
    _string(SCENARIO_NAME_PATTERN, "Lowercase letters, digits, '_', '.' and '-', starting with a letter or digit."),
]
ClusterName = Annotated[
    str,
    AfterValidator(
        _matching(
            CLUSTER_NAME_PATTERN, "a cluster name of 1-40 lowercase letters, digits and '-', starting with a letter"
        )
    ),
    _string(CLUSTER_NAME_PATTERN, "A cluster name: 1-40 lowercase letters, digits and '-', starting with a letter."),
]
OUTCOME_MARKS = ("xfail", "skip", "skipif")
"""pytest marks that would decide a scenario's outcome, which only its verdicts do (checks.outcome)."""


def _not_an_outcome(value: str) -> str:
    if value in OUTCOME_MARKS:
        raise PydanticCustomError(
            "name",
            "{message}",
            {
                "message": f"{value!r} would decide the outcome, which the verdicts alone do: declare a known "
                "failure with expect_failure (the expectation and its figure); leave a scenario out with -m or -k"
            },
        )
    return value


MarkName = Annotated[
    str,
    AfterValidator(
        _matching(MARK_NAME_PATTERN, "a pytest mark name (letters, digits and '_', not starting with a digit)")
    ),
    AfterValidator(_not_an_outcome),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": f"^{MARK_NAME_PATTERN}$",
            "not": {"enum": list(OUTCOME_MARKS)},
            "description": "A pytest mark name (not xfail, skip or skipif: the verdicts decide the outcome).",
        }
    ),
]
TopicName = Annotated[
    str,
    AfterValidator(
        _matching(TOPIC_NAME_PATTERN, "a topic name of letters, digits, '_', '.', '=' and '-' (no namespace)")
    ),
    _string(TOPIC_NAME_PATTERN, "A topic's local name (the namespace is chosen by the runner)."),
]
DomainName = Annotated[
    str,
    AfterValidator(
        _matching(
            DOMAIN_NAME_PATTERN,
            "a name of 1-64 letters, digits, '_', '.' and '-', starting with a letter or digit",
        )
    ),
    _string(DOMAIN_NAME_PATTERN, "A failure domain or anti-affinity group name: 1-64 letters, digits, '_', '.', '-'."),
]
SettingName = Annotated[
    str,
    AfterValidator(_matching(SETTING_NAME_PATTERN, "a broker.conf key such as failureDomainsEnabled")),
    _string(SETTING_NAME_PATTERN, "A broker.conf key, e.g. failureDomainsEnabled."),
]
#: The most brokers a cluster may have (each is a JVM of its own; see pytest_pulsar_ha.settings.clusters.MAX_BROKERS).
MAX_BROKERS = 8
#: The largest whole number a count may be (Pulsar and its Java clients count with 32-bit ints).
MAX_COUNT = 2**31 - 1
#: The largest seed (a Java long).
MAX_SEED = 2**63 - 1

PositiveDuration = Annotated[Duration, AboveZero()]
TrueFlag = Annotated[bool, Strict(), AfterValidator(_true), WithJsonSchema({"const": True})]
Count = Annotated[int, Strict(), Field(ge=0, le=MAX_COUNT)]
PositiveCount = Annotated[int, Strict(), Field(ge=1, le=MAX_COUNT)]
Seed = Annotated[int, Strict(), Field(ge=0, le=MAX_SEED)]
BrokerCount = Annotated[int, Strict(), Field(ge=1, le=MAX_BROKERS)]
BrokerIndex = Annotated[int, Strict(), Field(ge=0, le=MAX_BROKERS - 1)]
SettingValue = (
    Annotated[str, Strict()] | Annotated[int, Strict()] | Annotated[float, Strict()] | Annotated[bool, Strict()]
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


def _duplicates(values: tuple[str, ...], loc: Loc, what: str) -> list[tuple[Loc, str]]:
    seen: set[str] = set()
    problems: list[tuple[Loc, str]] = []
    for index, value in enumerate(values):
        if value in seen:
            problems.append(((*loc, index), f"{what} {value!r} is listed twice"))
        seen.add(value)
    return problems


Window = tuple[Duration, Duration]


def _check_window(within: Window) -> list[tuple[Loc, str]]:
    low, high = within
    if low.seconds > high.seconds:
        return [(("within",), f"expected [earliest, latest] with earliest <= latest, found [{low}, {high}]")]
    return []


def _kind_of(model: Any) -> str:
    """The ``kind`` literal of a provider or fault model."""
    (kind,) = get_args(model.model_fields["kind"].annotation)
    return str(kind)


def _members(union: Any) -> tuple[Any, ...]:
    """The members of an ``Annotated[A | B | ..., ...]`` union, in order."""
    return get_args(get_args(union)[0])


def _seconds(value: float) -> str:
    return f"{value:g}s"
