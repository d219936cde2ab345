"""One verdict per expectation, composed from the registered checkers over the history alone."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.checks import messages, metadata, metadata_order, migration, placement, timing  # noqa: F401  (they register their checkers)
from pytest_pulsar_ha.checks.registry import CHECKERS, CheckContext
from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.history import Event
from pytest_pulsar_ha.scenario.expectations import EXPECTATION_KINDS
from pytest_pulsar_ha.scenario.model import Scenario


def evaluate(
    scenario: Scenario,
    events: Sequence[Event],
    history_path: Path,
    spark: Callable[[], Any],
    *,
    primary: str,
    hit: Mapping[int, tuple[str, ...]] | None = None,
) -> list[CheckResult]:
    """Judge every expectation of ``scenario`` on the history (``events``, also written at ``history_path``):
    the history, the scenario and the name of the ``primary`` cluster are all it reads (no environment, no
    nemesis or provider object), so a stored history is judged again the same way.

    Each verdict rests on evidence in the history: a window needs the recorded fault event and an ack after it,
    ``no_switch`` needs acks, ``availability`` needs sends (acks without a send event do not count), and the
    Spark checks fail when what they judge is missing. An expectation kind with no registered checker raises
    ``ValueError``.
    """
    context = CheckContext(scenario, events, history_path, primary, spark, dict(hit or {}))
    try:
        results = []
        for expectation in scenario.expect:
            kind = getattr(expectation, "kind", type(expectation).__name__)
            judge = CHECKERS.get(kind)
            if judge is None:
                known = ", ".join(k for k in EXPECTATION_KINDS if k in CHECKERS)
                raise ValueError(f"no checker for expectation {kind!r}; known: {known}")
            results.append(judge(expectation, context))
        return results
    finally:
        context.close()
