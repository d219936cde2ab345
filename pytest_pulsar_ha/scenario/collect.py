"""Compatibility: moved to :mod:`pytest_pulsar_ha.pytest.collect` (the same module object)."""

import sys

from pytest_pulsar_ha.pytest import collect as _moved

sys.modules[__name__] = _moved
