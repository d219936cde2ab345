"""The conftest of a pytester session that runs scenario tests through the plugin's real collection, runner and
summary without clusters: the environment is one whose brokers answer a given version, and ``execute`` (which
would need clusters) is a fake the test writes, returning the result a run would give (the runner decides its
outcome, as it does a real run's)."""

from __future__ import annotations

import textwrap

HEADER = """
import pytest
from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.pytest import runner as scenario_runner

class Brokers:
    def broker_versions(self):
        return {"cluster-a": ANSWER}

@pytest.fixture(scope="session")
def pulsar_ha():
    return Brokers()

"""


def fake_run_conftest(execute: str, answer: str = "4.2.4", **constants: object) -> str:
    """``execute``: the source of a ``fake_execute(case, env, *, evidence_dir, spark, seed=None, ...)`` function;
    ``constants``: module-level names it reads (written with ``repr``), besides ``ANSWER``, the brokers' answer."""
    names = "".join(f"{name} = {value!r}\n" for name, value in {"ANSWER": answer, **constants}.items())
    return (
        HEADER
        + names
        + "\n"
        + textwrap.dedent(execute).strip()
        + "\n\nscenario_runner.execute = lambda *a, judge=None, **k: fake_execute(*a, **k)\n"
    )
