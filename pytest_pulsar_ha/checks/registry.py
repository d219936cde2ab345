"""Checkers registered by expectation kind (the YAML names), and what every checker gets: the history.

A checker is a function ``(expectation, context) -> CheckResult``. The :class:`CheckContext` holds the scenario,
its history (the events, sorted by time, and the file they were written to) and what the run knows of its
environment by name only (the primary cluster, the brokers each fault hit); nothing else. Checkers that need the
Spark job share one loaded history through :meth:`CheckContext.spark_history`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pytest_pulsar_ha.checks.faults import RecordedFault, recorded_faults
from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.history import Event
from pytest_pulsar_ha.scenario.expectations import EXPECTATION_KINDS
from pytest_pulsar_ha.scenario.model import Scenario

if TYPE_CHECKING:
    from spark_checks.spark.load import History


@dataclass
class CheckContext:
    """What a checker may read: the scenario and its history (plus names the run resolved)."""

    scenario: Scenario
    events: Sequence[Event]
    history_path: Path
    primary: str
    spark: Callable[[], Any]
    hit: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    faults: dict[int, RecordedFault] = field(init=False)
    _spark_history: Any = field(init=False, default=None)
    _spark_error: str | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.events = sorted(self.events, key=lambda e: e.ts_ns)
        self.faults = recorded_faults(self.events, self.scenario)

    def spark_history(self) -> History | str:
        """The history loaded once for the Spark checks, or why it is not usable (a reason, never a pass)."""
        from spark_checks.spark.load import load_history
        from spark_checks.spark.reading import HistoryInputError

        if self._spark_history is None and self._spark_error is None:
            try:
                self._spark_history = load_history(self.spark(), str(self.history_path))
            except HistoryInputError as exc:
                self._spark_error = f"the history is not usable: {exc}"
        return self._spark_error if self._spark_error is not None else self._spark_history

    def close(self) -> None:
        if self._spark_history is not None:
            self._spark_history.close()
            self._spark_history = None


Checker = Callable[[Any, CheckContext], CheckResult]
CHECKERS: dict[str, Checker] = {}
"""Expectation kind -> its checker; filled by the modules of this package at import."""

_C = TypeVar("_C", bound=Checker)


def checker(kind: str) -> Callable[[_C], _C]:
    """Register the decorated function as the checker of expectations of ``kind`` (one of the model's kinds)."""
    if kind not in EXPECTATION_KINDS:
        raise ValueError(f"{kind!r} is not an expectation kind of the scenario model: {', '.join(EXPECTATION_KINDS)}")

    def register(function: _C) -> _C:
        if kind in CHECKERS:
            raise ValueError(f"two checkers for expectation kind {kind!r}")
        CHECKERS[kind] = function
        return function

    return register
