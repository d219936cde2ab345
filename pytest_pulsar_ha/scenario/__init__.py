"""Compatibility: the scenario format moved to :mod:`pytest_pulsar_ha.spec` (the same names). pytest collection
lives in :mod:`pytest_pulsar_ha.pytest.collect`."""

from pytest_pulsar_ha.spec import *  # noqa: F403 (every public name of the format, as before the move)
from pytest_pulsar_ha.spec import __all__ as __all__
