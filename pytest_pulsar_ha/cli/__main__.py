"""``python -m pytest_pulsar_ha.cli``: the ``pulsar-ha`` command."""

import sys

from pytest_pulsar_ha.cli import main

sys.exit(main())
