"""Compatibility: moved to :mod:`pytest_pulsar_ha.spec.schema` (the same module object);
``python -m pytest_pulsar_ha.scenario.schema`` still runs it."""

import sys

from pytest_pulsar_ha.spec.schema import main

if __name__ == "__main__":
    sys.exit(main())
else:
    from pytest_pulsar_ha.spec import schema as _moved

    sys.modules[__name__] = _moved
