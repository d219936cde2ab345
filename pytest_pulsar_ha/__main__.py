import sys

from pytest_pulsar_ha.cli import main

sys.exit(main())
