"""Compatibility: moved to :mod:`pytest_pulsar_ha.spec.factories` (the same module object)."""

import sys

from pytest_pulsar_ha.spec import factories as _moved

sys.modules[__name__] = _moved
