"""Compatibility: moved to :mod:`pytest_pulsar_ha.pytest.runner` (the same module object: ``run_scenario``,
``execute``, ``ScenarioResult``)."""

import sys

from pytest_pulsar_ha.pytest import runner as _moved

sys.modules[__name__] = _moved
