"""The checker: every expectation kind is a checker over the history alone, registered by kind
(:mod:`~pytest_pulsar_ha.checks.registry`), composed into one verdict type (:class:`CheckResult`, one per
expectation) by :func:`evaluate`; the figures of a run (:mod:`~pytest_pulsar_ha.checks.figures`) beside them.

* :mod:`~pytest_pulsar_ha.checks.timing`: switch, switch_back, no_switch, availability;
* :mod:`~pytest_pulsar_ha.checks.messages`: no_loss, ordering, max_duplicates (the Spark job, :mod:`spark_checks`);
* :mod:`~pytest_pulsar_ha.checks.placement`: placement, reassigned (PIP-7).
"""

from pytest_pulsar_ha.checks.registry import CHECKERS, CheckContext, checker
from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.checks.verdict import evaluate

__all__ = ["CHECKERS", "CheckContext", "CheckResult", "checker", "evaluate"]
