"""The one error a URL provider's answer can cause: it is rejected (the poll fails, nothing switches)."""

from __future__ import annotations


class ConfigurationRejected(Exception):
    """The URL provider's answer cannot be applied; the message says why, on one line, and never holds secrets."""
