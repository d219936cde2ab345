"""``python -m spark_checks HISTORY [options]``: see :mod:`spark_checks.cli`."""

from __future__ import annotations

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
