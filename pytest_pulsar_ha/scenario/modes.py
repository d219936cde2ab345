"""How a scenario runs beyond its faults: written to fail (``expect_failure:``), or as a soak (``soak:``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import (
    ConfigDict,
    Discriminator,
    Field,
    Strict,
    StringConstraints,
    Tag,
    model_validator,
)

from pytest_pulsar_ha.scenario.base import (
    Loc,
    _duplicates,
    _Model,
    _raise_problems,
)

if TYPE_CHECKING:
    from pytest_pulsar_ha.scenario.model import Scenario
from pytest_pulsar_ha.scenario import expected_failure
from pytest_pulsar_ha.scenario.expectations import EXPECTATION_CLASSES
from pytest_pulsar_ha.scenario.known_deadlocks import KNOWN_DEADLOCKS

# -- the scenario --------------------------------------------------------------------------------------------


ExpectationRef = Annotated[str, StringConstraints(pattern=f"^{expected_failure.REF_PATTERN}$")]
PulsarVersion = Annotated[str, StringConstraints(pattern=r"^\d+\.\d+\.\d+$")]
FigureName = Annotated[str, StringConstraints(pattern=f"^{expected_failure.FIGURE_NAME_PATTERN}$")]


class ExpectFailure(_Model):
    """This scenario is written to fail: the expectations it names must fail, on evidence, with the `figure` it
    names in its range, and every other expectation must hold; then it reports XFAIL with the evidence. A pass,
    another failing expectation, another figure or a verdict that is a lack of evidence is a failure (on every
    backend); with `intermittent`, a pass is XPASS, not a failure. Every entry names a figure, or a `deadlock`."""

    model_config = ConfigDict(
        **_Model.model_config, json_schema_extra={"anyOf": [{"required": ["figure"]}, {"required": ["deadlock"]}]}
    )

    expectation: ExpectationRef | tuple[ExpectationRef, ...]
    """The expectation that must fail: its kind (`converged`), or `kind#n` for the n-th of a kind that appears
    more than once; a list names several that must all fail. With `deadlock`: the expectations the deadlock may
    make fail (every other one must hold)."""
    deadlock: str | None = None
    """A known Pulsar deadlock (its name in the harness's catalogue, checks/deadlocks.py) this scenario can run
    into: a run where it stops a broker after the faults started is XFAIL when only the named expectations
    failed; a run without it is judged as usual. A deadlock found before the faults is an error of the
    environment, never an expected failure."""
    measured: str | None = None
    """Besides the figure, a regular expression the first named expectation's measured text must match: for
    what it says in words (`no send acknowledged by green`); a number is a `figure`."""
    figure: dict[FigureName, tuple[float, float]] | None = None
    """The figure that shows the failure and the range it must fall in, both ends included, read from the first
    named expectation's verdict (its figures, by name: `{lost: [40, 120]}`, `{seconds: [20, 70]}` for a window,
    `{target_acks: [0, 0]}` for a target never reached). Required unless `deadlock` is given. State the range
    the mechanism allows, with the runs it was seen in, not just "some"."""
    reason: str = Field(min_length=1)
    """Why it fails: what the failing expectation demonstrates."""
    issue: str | None = None
    """Where the behaviour is tracked (an issue URL or number)."""
    intermittent: Annotated[bool, Strict()] = False
    """The failure is a race that shows in some runs only: a run where every expectation holds reports XPASS
    and passes; when it fails, it must still be exactly the announced failure."""
    versions: tuple[PulsarVersion, ...] | None = None
    """The Pulsar versions the failure was seen on (X.Y.Z, as the brokers answer `GET /admin/v2/brokers/version`).
    On any other version it does not apply: every expectation must hold. Leave it out only for a failure that
    does not depend on the release (a misconfiguration shown, a rule of the proposal itself)."""

    def applies_to(self, versions: set[str]) -> bool:
        """Whether the failure is expected on clusters that answered ``versions`` (every one must be listed)."""
        return self.versions is None or (bool(versions) and versions <= set(self.versions))

    @property
    def names(self) -> tuple[str, ...]:
        """The named expectations, as a tuple."""
        return (self.expectation,) if isinstance(self.expectation, str) else self.expectation

    @model_validator(mode="after")
    def _check(self) -> ExpectFailure:
        problems: list[tuple[Loc, str]] = []
        if not self.names:
            problems.append((("expectation",), "name at least one expectation that must fail"))
        problems += _duplicates(self.names, ("expectation",), "expectation")
        if self.versions is not None and not self.versions:
            problems.append((("versions",), "name at least one Pulsar version the failure was seen on"))
        if self.deadlock is not None:
            known = [k.name for k in KNOWN_DEADLOCKS]
            if self.deadlock not in known:
                problems.append((("deadlock",), f"unknown deadlock {self.deadlock!r}; known: {', '.join(known)}"))
            if self.measured is not None or self.figure is not None:
                problems.append((("deadlock",), "a deadlock names the expectations it may fail, not a figure"))
            if self.versions is None:
                problems.append((("versions",), "name the Pulsar versions the deadlock was seen on"))
        if self.figure is None and self.deadlock is None:
            problems.append(
                (
                    ("figure",),
                    "name the figure that shows the failure and its range, read from the first named expectation "
                    "(e.g. {lost: [40, 120]}, {seconds: [20, 70]}), or the known deadlock: without one, a run "
                    "without evidence would show it",
                )
            )
        if self.figure is not None:
            if len(self.figure) != 1:
                problems.append((("figure",), "name one figure and its range, e.g. {lost: [40, 120]}"))
            problems += [
                (("figure", name), f"the range's low end {low:g} is above its high end {high:g}")
                for name, (low, high) in self.figure.items()
                if low > high
            ]
        if self.measured is not None:
            problem = expected_failure.regex_problem(self.measured)
            if problem is not None:
                problems.append((("measured",), problem))
        _raise_problems(problems)
        return self


def _one_or_several(value: Any) -> str:
    return "several" if isinstance(value, list | tuple) else "one"


ExpectFailures = Annotated[
    Annotated[ExpectFailure, Tag("one")] | Annotated[tuple[ExpectFailure, ...], Tag("several")],
    Discriminator(_one_or_several),
]
"""One expected failure, or a list of them, each for the Pulsar versions it was seen on (a release may fail
otherwise, with another figure)."""


SOAK_KINDS = tuple(kind for kind, cls in EXPECTATION_CLASSES.items() if cls.facts.in_soak)
"""What a soak may expect (the kinds whose facts say ``in_soak``)."""


class Soak(_Model):
    """Run as a soak: the history is streamed to Parquet as it happens (at most `row_group_rows` events in
    memory, besides the faults and switches) and judged on Spark over the whole file, so a run of hours stays
    within bounded memory. Acks and receipts carry their cluster where the ledger ids name it (the embedded
    backend's standalones); elsewhere they are not attributed (that would read every entry back from the
    brokers). A soak expects only what Spark judges from the whole history: no_loss, ordering and
    max_duplicates."""

    row_group_rows: int = Field(default=20_000, ge=1_000, le=1_000_000)
    """Events buffered before they are written to the Parquet history as one row group."""


# -- the rules -----------------------------------------------------------------------------------------------


def check_soak(scenario: Scenario) -> list[tuple[Loc, str]]:
    """A soak keeps no history in memory: only the expectations Spark judges from the file, no metadata."""
    if scenario.soak is None:
        return []
    problems: list[tuple[Loc, str]] = [
        (
            ("expect", index, expectation.kind),
            f"a soak judges its history on Spark only; {expectation.kind} reads it in memory "
            f"(a soak may expect: {', '.join(SOAK_KINDS)}; measure windows in a scenario without soak)",
        )
        for index, expectation in enumerate(scenario.expect)
        if not expectation.facts.in_soak
    ]
    if scenario.workload.metadata is not None:
        problems.append((("workload", "metadata"), "a soak runs no metadata writes (they are judged in memory)"))
    return problems


def check_expect_failure(scenario: Scenario) -> list[tuple[Loc, str]]:
    """Each expectation named to fail is one of this scenario's; in a list, each entry names the versions it was
    seen on, and no two entries are the same failure."""
    several = isinstance(scenario.expect_failure, tuple)
    kinds = [e.kind for e in scenario.expect]
    problems: list[tuple[Loc, str]] = []
    if several and not scenario.expected_failures:
        problems.append((("expect_failure",), "name at least one expected failure (or leave expect_failure out)"))
    shapes: dict[tuple[frozenset[str], str | None, str, str | None], int] = {}
    for number, entry in enumerate(scenario.expected_failures):
        where: Loc = ("expect_failure", number) if several else ("expect_failure",)
        names = entry.names
        loc: Loc = (*where, "expectation")
        problems += [
            ((*loc, index) if len(names) > 1 else loc, place)
            for index, name in enumerate(names)
            if isinstance(place := expected_failure.resolve(name, kinds), str)
        ]
        if not several:
            continue
        if entry.versions is None:
            problems.append(
                ((*where, "versions"), "in a list of expected failures, each names the Pulsar versions it was seen on")
            )
        shape = (frozenset(names), entry.measured, repr(entry.figure), entry.deadlock)
        earlier = scenario.expected_failures[shapes[shape]] if shape in shapes else None
        if earlier is not None and set(entry.versions or ()) & set(earlier.versions or ()):
            problems.append(
                (where, f"the same failure as expect_failure[{shapes[shape]}] on the same versions: merge them")
            )
        shapes.setdefault(shape, number)
    return problems
