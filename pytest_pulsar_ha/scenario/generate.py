"""Faults drawn at random from a scenario's seed (``generate:``), for nightly runs: many schedules from one
file, each one replayed exactly by its seed.

:func:`space_problems` says at load time whether the declared space can be drawn from at all (the clusters
exist, the faults fit in the workload); :func:`draw_faults` draws the concrete faults for one seed, as the
same fault models a written ``faults:`` list gives, so the nemesis, the checks and the report treat them alike.
Times are whole tenths of a second.

One at a time (``max_concurrent: 1``): the lengths are drawn, then the gaps; when they do not fit, the lengths
shrink towards the shortest and the gaps take what is left, so every draw has ``count`` faults. Several at once:
each fault's start is drawn over the whole span and a draw that breaks a constraint (more than
``max_concurrent`` faults holding, or the faults holding together hitting every cluster) is drawn again.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, Strict, TypeAdapter, model_validator

from pytest_pulsar_ha.scenario.base import ClusterName, Loc, Window, _check_window, _duplicates, _Model, _raise_problems
from pytest_pulsar_ha.scenario.faults import FAULT_CLASSES, Fault
from pytest_pulsar_ha.scenario.quantities import Duration

if TYPE_CHECKING:
    from pytest_pulsar_ha.scenario.model import Scenario

_ATTEMPTS = 2000
_FAULT = TypeAdapter(Fault)


DRAWN_KINDS: tuple[str, ...] = tuple(kind for kind, cls in FAULT_CLASSES.items() if cls.drawn)
"""The kinds a generator may draw: those whose class says so (``drawn``), each drawn by its ``draw``."""
if TYPE_CHECKING:
    DrawnKind = str
else:
    DrawnKind = Literal[DRAWN_KINDS]


class FaultSpace(_Model):
    """Faults drawn at random from the run's seed, beside the fixed `faults` (a nightly run draws new ones with
    each seed; the printed replay command draws the same ones again). The drawn timeline is in the evidence."""

    count: Annotated[int, Strict(), Field(ge=1, le=50)]
    """How many faults to draw."""
    kinds: tuple[DrawnKind, ...] = Field(min_length=1)
    """The kinds drawn from, each equally likely."""
    clusters: tuple[ClusterName, ...] | None = None
    """The clusters faults may hit (replication cuts: links between them). Default: the topology's clusters."""
    start: Duration = Duration("2s")
    """No fault before this time."""
    end_margin: Duration = Duration("5s")
    """No fault in the last part of the workload (so clients recover before it ends)."""
    length: Window = Field(default_factory=lambda: (Duration("2s"), Duration("6s")))
    """`[shortest, longest]` a fault lasts (default `[2s, 6s]`)."""
    gap: Window = Field(default_factory=lambda: (Duration("1s"), Duration("5s")))
    """`[shortest, longest]` quiet time between one fault's end and the next one's start, one at a time
    (default `[1s, 5s]`)."""
    latency: Window = Field(default_factory=lambda: (Duration("100ms"), Duration("500ms")))
    """`[least, most]` delay of a `latency` fault (default `[100ms, 500ms]`)."""
    max_concurrent: Annotated[int, Strict(), Field(ge=1, le=5)] = 1
    """How many faults may hold at once (1: one after the other, with `gap` between them)."""
    all_clusters_at_once: Annotated[bool, Strict()] = False
    """Whether the faults holding at one moment may together hit every cluster (replication cuts hit none)."""

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        """The clusters named to draw from, with where (below ``generate``)."""
        for index, name in enumerate(self.clusters or ()):
            yield ("clusters", index), name

    @model_validator(mode="after")
    def _check(self) -> FaultSpace:
        problems: list[tuple[Loc, str]] = []
        window: object = Window
        for key in (name for name, field in type(self).model_fields.items() if field.annotation == window):
            problems += [((key, *loc[1:]), m) for loc, m in _check_window(getattr(self, key))]
        if self.length[0].seconds <= 0:
            problems.append((("length", 0), f"a fault lasts more than 0s, found {self.length[0]}"))
        if self.clusters is not None:
            problems += _duplicates(self.clusters, ("clusters",), "cluster")
        _raise_problems(problems)
        return self


def targets(space: FaultSpace, scenario: Scenario) -> tuple[str, ...] | None:
    return space.clusters or scenario.topology.clusters


def _span(space: FaultSpace, scenario: Scenario) -> tuple[float, float]:
    return space.start.seconds, scenario.workload.duration.seconds - space.end_margin.seconds


def space_problems(space: FaultSpace, scenario: Scenario) -> list[tuple[Loc, str]]:
    problems: list[tuple[Loc, str]] = []
    clusters = targets(space, scenario)
    if clusters is None:
        return [(("clusters",), "name the clusters faults may hit: generate.clusters or topology.clusters")]
    if len(clusters) < 2:
        for kind in dict.fromkeys(space.kinds):
            why = FAULT_CLASSES[kind].drawn_needs_two
            if why is not None:
                problems.append((("kinds",), f"{kind} needs two clusters {why}"))
    down = [kind for kind in space.kinds if FAULT_CLASSES[kind].facts.takes_cluster_down]
    hits = bool(down)
    if hits and len(clusters) < 2 and not space.all_clusters_at_once:
        problems.append(
            (
                ("all_clusters_at_once",),
                f"with one cluster every {'/'.join(down)} fault hits all "
                "clusters: add clusters or set all_clusters_at_once: true",
            )
        )
    begin, end = _span(space, scenario)
    shortest, gap = space.length[0].seconds, space.gap[0].seconds
    needed = shortest if space.max_concurrent > 1 else space.count * shortest + (space.count - 1) * gap
    if begin + needed > end + 1e-9:
        problems.append(
            (
                ("count",),
                f"{space.count} faults of at least {space.length[0]}"
                + (f" with gaps of at least {space.gap[0]}" if space.max_concurrent == 1 else "")
                + f" need {needed:g}s, but faults may only happen from {space.start} to {end:g}s (workload.duration "
                f"{scenario.workload.duration} minus end_margin {space.end_margin}); draw fewer or shorter faults",
            )
        )
    return problems


def _tenths(value: float) -> float:
    return round(value * 10) / 10


def _floor_tenths(value: float) -> float:
    return math.floor(value * 10 + 1e-9) / 10


def _fault(rng: random.Random, space: FaultSpace, clusters: Sequence[str], at: float, length: float) -> Any:
    kind = rng.choice(space.kinds)
    fields: dict[str, Any] = {"kind": kind, "at": f"{at:g}s", "for": f"{length:g}s"}
    return fields | FAULT_CLASSES[kind].draw(rng, space, clusters)


def hit(fault: Any) -> set[str]:
    """The clusters a fault makes unavailable (a replication cut: none)."""
    cluster = fault.target
    return {cluster} if fault.facts.takes_cluster_down and cluster else set()


def _serial(rng: random.Random, space: FaultSpace, clusters: Sequence[str], begin: float, end: float) -> list[Any]:
    count = space.count
    low, high = space.length[0].seconds, space.length[1].seconds
    gap_low, gap_high = space.gap[0].seconds, space.gap[1].seconds
    lengths = [rng.uniform(low, high) for _ in range(count)]
    room = end - begin - (count - 1) * gap_low
    extra = sum(length - low for length in lengths)
    if count * low + extra > room and extra > 0:  # shrink towards the shortest until they fit
        scale = max(0.0, room - count * low) / extra
        lengths = [low + (length - low) * scale for length in lengths]
    lengths = [max(low, _floor_tenths(length)) for length in lengths]
    free = max(0.0, end - begin - sum(lengths) - (count - 1) * gap_low)
    share = free / count
    out, t = [], begin + _floor_tenths(rng.uniform(0, min(gap_high, share)))
    for index, length in enumerate(lengths):
        out.append(_fault(rng, space, clusters, t, length))
        if index + 1 < count:
            t = _floor_tenths(t + length + gap_low + rng.uniform(0, min(gap_high - gap_low, share)))
    return out


def _overlapping(rng: random.Random, space: FaultSpace, clusters: Sequence[str], begin: float, end: float) -> list[Any]:
    low, high = space.length[0].seconds, min(space.length[1].seconds, end - begin)
    placed: list[Any] = []
    while len(placed) < space.count:
        for _ in range(_ATTEMPTS):
            length = _tenths(rng.uniform(low, high))
            at = _tenths(rng.uniform(begin, end - length))
            candidate = _FAULT.validate_python(_fault(rng, space, clusters, at, length))
            if _allowed([*placed, candidate], space, clusters):
                placed.append(candidate)
                break
        else:
            raise ValueError(
                f"could not place fault {len(placed) + 1} of {space.count} within the constraints after "
                f"{_ATTEMPTS} draws: allow more concurrent faults, more clusters or a longer workload"
            )
    return sorted(placed, key=lambda f: f.at.seconds)


def _allowed(faults: Sequence[Any], space: FaultSpace, clusters: Sequence[str]) -> bool:
    moments = sorted({f.at.seconds for f in faults})
    for moment in moments:
        holding = [f for f in faults if f.at.seconds <= moment < f.at.seconds + f.for_.seconds]
        if len(holding) > space.max_concurrent:
            return False
        down = set().union(*(hit(f) for f in holding)) if holding else set()
        if not space.all_clusters_at_once and down >= set(clusters):
            return False
    return True


def draw_faults(scenario: Scenario, seed: int) -> tuple[Any, ...]:
    """The faults ``scenario.generate`` draws for ``seed`` (empty without ``generate``), in time order."""
    space = scenario.generate
    if space is None:
        return ()
    clusters = targets(space, scenario)
    if clusters is None:  # pragma: no cover - refused at load time
        raise ValueError("generate needs the clusters faults may hit")
    rng = random.Random(f"generate:{seed}")
    begin, end = _span(space, scenario)
    if space.max_concurrent == 1:
        drawn = [_FAULT.validate_python(fields) for fields in _serial(rng, space, clusters, begin, end)]
    else:
        drawn = _overlapping(rng, space, clusters, begin, end)
    return tuple(drawn)


def with_drawn_faults(scenario: Scenario, seed: int) -> Scenario:
    """``scenario`` with its drawn faults after its written ones (itself without ``generate``)."""
    drawn = draw_faults(scenario, seed)
    if not drawn:
        return scenario
    return scenario.model_copy(update={"faults": (*scenario.faults, *drawn)})


# -- the rule ------------------------------------------------------------------------------------------------


def check_generate(scenario: Scenario) -> list[tuple[Loc, str]]:
    """The drawn faults must be able to hit what they name and fit in the workload (see
    :func:`space_problems`)."""
    space = scenario.generate
    if space is None:
        return []
    return [(("generate", *loc), message) for loc, message in space_problems(space, scenario)]
