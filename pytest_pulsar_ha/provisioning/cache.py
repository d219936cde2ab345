"""Where fetched binaries live: a per-user cache outside any repository."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

CACHE_DIR_ENV = "PULSAR_HA_CACHE_DIR"

Progress = Callable[[str], None]


def default_cache_dir() -> Path:
    """``$PULSAR_HA_CACHE_DIR``, else ``$XDG_CACHE_HOME/pytest-pulsar-ha``, else ``~/.cache/pytest-pulsar-ha``."""
    explicit = os.environ.get(CACHE_DIR_ENV)
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pytest-pulsar-ha"
