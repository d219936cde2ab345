"""Compatibility: moved to :mod:`pytest_pulsar_ha.pytest.plugin` (the same module object; an install made
before the move still names this path as its pytest11 entry point)."""

import sys

from pytest_pulsar_ha.pytest import plugin as _moved

sys.modules[__name__] = _moved
