"""Compatibility: moved to :mod:`pytest_pulsar_ha.spec.reference` (the same module object);
``python -m pytest_pulsar_ha.scenario.reference`` still runs it."""

import sys

from pytest_pulsar_ha.spec.reference import main

if __name__ == "__main__":
    sys.exit(main())
else:
    from pytest_pulsar_ha.spec import reference as _moved

    sys.modules[__name__] = _moved
