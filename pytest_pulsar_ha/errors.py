"""Errors raised by pytest-pulsar-ha: each says what went wrong, where, and how to fix it."""

from __future__ import annotations


class PulsarHaError(Exception):
    """Base class of every error this package raises on purpose."""


class ConfigurationError(PulsarHaError):
    """A setting (CLI option, ini value, environment variable) has a value that cannot work."""


class ProvisioningError(PulsarHaError):
    """Pulsar or toxiproxy could not be made available on this machine."""


class StartupError(PulsarHaError):
    """A managed process did not become ready; the message carries its command line and last log lines."""


class AdminError(PulsarHaError):
    """A Pulsar admin REST call answered with an error."""

    def __init__(self, method: str, url: str, status: int, body: str) -> None:
        super().__init__(f"{method} {url} answered HTTP {status}: {body.strip()[:500]}")
        self.method = method
        self.url = url
        self.status = status
        self.body = body
