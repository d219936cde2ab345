"""Compatibility: moved to :mod:`pytest_pulsar_ha.pytest.hookspecs` (the same module object)."""

import sys

from pytest_pulsar_ha.pytest import hookspecs as _moved

sys.modules[__name__] = _moved
