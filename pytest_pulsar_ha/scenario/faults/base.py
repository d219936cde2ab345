"""What every fault kind shares: its ``kind``, its facts, when it strikes (``at``, and ``for`` when it lasts), the
cluster it hits, its label; and :func:`kinds_in`, which finds the kinds a family module declares.

Each shared field is declared once, on a base; a kind inherits the bases it needs. Pydantic lists a base's fields
before its subclass's, and of several bases the last one's first: a kind names ``_Timed`` or ``_Window`` first and
the bases that say where it strikes after them, so that ``at`` and ``for`` come after ``cluster`` (or ``from`` and
``to``) in the schema and the reference, as a scenario file writes them. A kind words a shared field its own way
with ``wording`` (the field's description in the schema and the reference)."""

from __future__ import annotations

import random
import typing
from collections.abc import Iterator, Sequence
from copy import copy
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from pytest_pulsar_ha.scenario.base import ClusterName, Loc, PositiveDuration, _Model
from pytest_pulsar_ha.scenario.facts import FaultFacts
from pytest_pulsar_ha.scenario.quantities import Duration

if TYPE_CHECKING:
    from pytest_pulsar_ha.scenario.generate import FaultSpace
    from pytest_pulsar_ha.scenario.model import Scenario


class _Fault(_Model):
    kind: str
    facts: ClassVar[FaultFacts]
    """What the harness needs to know of the kind (:mod:`~pytest_pulsar_ha.scenario.facts`)."""
    wording: ClassVar[dict[str, str]] = {}
    """The kind's own description of a field it inherits, by field name."""
    drawn: ClassVar[bool] = False
    """A fault generator may draw it (``generate.kinds``); :meth:`draw` says how."""
    drawn_needs_two: ClassVar[str | None] = None
    """Why a generator needs two clusters to draw it (e.g. ``to cut a link between``), or None."""
    if TYPE_CHECKING:  # declared by _Timed, which every kind derives from, and by _Window (or the kind)
        at: Duration
        for_: Duration | None

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        own = cls.__dict__.get("wording")
        if not own:
            return
        for name, text in own.items():
            field = copy(cls.__pydantic_fields__[name])
            field.description = text
            cls.__pydantic_fields__[name] = field
        cls.model_rebuild(force=True)

    @classmethod
    def draw(cls, rng: random.Random, space: FaultSpace, clusters: Sequence[str]) -> dict[str, Any]:
        """The fields a generator draws for the kind besides ``kind``, ``at`` and ``for``, from ``clusters`` and
        the ``generate`` block ``space``: the same ``rng`` calls in the same order for a seed to replay them."""
        raise NotImplementedError(f"fault kind {cls.__name__} is not drawn")

    @property
    def start(self) -> float:
        """Seconds from the start of the workload to the start of the fault."""
        return self.at.seconds

    @property
    def end(self) -> float | None:
        """Seconds from the start of the workload to the end of the fault; None for a fault without a duration."""
        for_: Duration | None = getattr(self, "for_", None)
        return None if for_ is None else self.at.seconds + for_.seconds

    @property
    def target(self) -> str | None:
        """The cluster the fault hits (its clients, processes or brokers; the cluster a link or a migration
        leaves; the cluster an operator switches to), or None (a URL provider's answers hit no cluster)."""
        raise NotImplementedError(f"fault kind {self.kind} does not say which cluster it hits")

    @property
    def cuts_links(self) -> bool:
        """Whether it cuts its cluster's replication links too: its kind's ``cuts_replication`` fact, unless the
        fault says otherwise (an outage with ``replication: false``)."""
        return self.facts.cuts_replication

    def label(self, index: int) -> str:
        """The fault's label as fault ``index`` of its scenario: the ``detail`` of its ``fault_start`` and
        ``fault_end`` events, by which a history names its faults (e.g. ``#0 outage cluster-a``)."""
        return f"#{index} {self.kind} {self.target or ''}".strip()

    def problems(self, scenario: Scenario) -> list[tuple[Loc, str]]:
        """What the fault's own kind finds wrong with it in ``scenario`` (e.g. a topic the workload lacks), each
        with its location below the fault; the rules that span kinds are in
        :mod:`~pytest_pulsar_ha.scenario.fault_rules`."""
        return []

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        """Every cluster this fault names, with the key that names it."""
        for key in ("cluster", "from", "to"):
            field = {"from": "from_"}.get(key, key)
            value = getattr(self, field, None)
            if isinstance(value, str):
                yield (key,), value


class _Timed(_Fault):
    at: Duration
    """When the fault starts, from the start of the workload."""


class _Window(_Timed):
    for_: PositiveDuration = Field(alias="for")
    """How long the fault lasts."""


class _OnCluster(_Fault):
    cluster: ClusterName
    """The cluster hit by the fault."""

    @property
    def target(self) -> str | None:
        return str(self.cluster)

    @classmethod
    def draw(cls, rng: random.Random, space: FaultSpace, clusters: Sequence[str]) -> dict[str, Any]:
        return {"cluster": rng.choice(list(clusters))}


def is_kind(cls: object) -> bool:
    """Whether ``cls`` is a fault kind: a fault model whose ``kind`` is one literal (not a shared base)."""
    if not (isinstance(cls, type) and issubclass(cls, _Fault)):
        return False
    return typing.get_origin(cls.model_fields["kind"].annotation) is Literal


def kinds_in(*families: ModuleType) -> tuple[type[_Fault], ...]:
    """The fault kinds each family module declares, in the order of the modules and of their classes."""
    return tuple(
        cls
        for family in families
        for cls in vars(family).values()
        if is_kind(cls) and cls.__module__ == family.__name__
    )
