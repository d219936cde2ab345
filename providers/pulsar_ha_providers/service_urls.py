"""Validation of a Pulsar service URL as a URL provider may send it: ``pulsar://`` or ``pulsar+ssl://`` and a
comma-separated list of ``host[:port]``.

Rules (those of the Java client's ``ServiceURI``, narrowed to what the C++/Python client can use):

* scheme ``pulsar`` or ``pulsar+ssl``; nothing else (no user information, path, query or fragment; a single
  trailing ``/`` is tolerated);
* each host is a DNS name or an IPv4 address (the C++ client rejects IPv6 literals such as ``[::1]``);
* a port, when given, is ASCII digits in 1..65535 (omitted, the client uses 6650 or 6651).
"""

from __future__ import annotations

import re

from .controlled_errors import ConfigurationRejected

SCHEMES = ("pulsar://", "pulsar+ssl://")
MAX_URL = 2048
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST = re.compile(rf"^{_LABEL}(?:\.{_LABEL})*\.?$")
_PORT = re.compile(r"^[0-9]{1,5}$")


def _shown(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def validate_service_url(url: str) -> str:
    """Return ``url`` if a Pulsar client can use it, or raise :class:`ConfigurationRejected` saying why."""
    if len(url) > MAX_URL:
        raise ConfigurationRejected(f"serviceUrl is {len(url)} characters long, more than {MAX_URL}")
    scheme = next((s for s in SCHEMES if url.startswith(s)), None)
    if scheme is None:
        raise ConfigurationRejected(
            f"serviceUrl {_shown(url)} is not a pulsar:// or pulsar+ssl:// URL (expected pulsar://host:port)"
        )
    rest = url[len(scheme) :]
    if "@" in rest:  # the URL itself is not shown: user information may hold a password
        raise ConfigurationRejected(f"serviceUrl has user information (user@host); expected {scheme}host:port")
    rest = rest[:-1] if rest.endswith("/") else rest
    for mark, what in (("/", "a path"), ("?", "a query"), ("#", "a fragment")):
        if mark in rest:
            raise ConfigurationRejected(f"serviceUrl {_shown(url)} has {what}; expected {scheme}host:port[,host:port]")
    if not rest:
        raise ConfigurationRejected(f"serviceUrl {_shown(url)} has no host; expected {scheme}host:port")
    for address in rest.split(","):
        _validate_address(url, address)
    return url


def _validate_address(url: str, address: str) -> None:
    if not address:
        raise ConfigurationRejected(f"serviceUrl {_shown(url)} has an empty host in its host list")
    if address.startswith("["):
        raise ConfigurationRejected(
            f"serviceUrl {_shown(url)} names an IPv6 address, which the Python client cannot use; use a host name"
        )
    host, colon, port = address.partition(":")
    if not _HOST.match(host) or len(host) > 253:
        raise ConfigurationRejected(f"serviceUrl {_shown(url)}: host {_shown(host)} is not a valid host name")
    if colon and (not _PORT.match(port) or not 1 <= int(port) <= 65535):
        raise ConfigurationRejected(f"serviceUrl {_shown(url)}: port {_shown(port)} is not a number in 1..65535")
