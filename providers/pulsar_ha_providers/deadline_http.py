"""An HTTP(S) GET with one deadline for the whole request: connect, TLS handshake, redirects, headers and body.

``urllib``'s ``timeout`` bounds each socket operation, not the request: a server that trickles its headers or
body one byte at a time, each byte within the timeout, holds the caller for as long as it likes. Here every
socket read is given only the time left until the deadline, so the request ends by the deadline whatever the
server does (DNS resolution aside: ``getaddrinfo`` cannot be interrupted; use an IP address or a local resolver
for the URL provider if that matters).
"""

from __future__ import annotations

import http.client
import socket
import ssl
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit


class DeadlineExceeded(TimeoutError):
    """The deadline passed; ``phase`` says where the request was."""

    def __init__(self, phase: str) -> None:
        super().__init__(phase)
        self.phase = phase


class HttpFailure(Exception):
    """The request failed for a reason other than the deadline (refused connection, invalid HTTP, redirects)."""


@dataclass(frozen=True)
class HttpAnswer:
    status: int
    body: bytes
    url: str


NO_ANSWER_YET = "no answer yet"
HEADERS_INCOMPLETE = "status line and headers incomplete"
BODY_INCOMPLETE = "body incomplete"


class _Clock:
    """The deadline and the phase the request is in (named in the timeout's message)."""

    def __init__(self, timeout: float) -> None:
        self.deadline = time.monotonic() + timeout
        self.phase = "connecting"

    def received(self, count: int) -> int:
        if count and self.phase == NO_ANSWER_YET:
            self.phase = HEADERS_INCOMPLETE
        return count

    def remaining(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise DeadlineExceeded(self.phase)
        return left


class _DeadlineSocket(socket.socket):
    """A socket whose every receive gets only the time left before the request's deadline."""

    clock: _Clock

    @classmethod
    def adopt(cls, sock: socket.socket, clock: _Clock) -> _DeadlineSocket:
        adopted = cls(sock.family, sock.type, sock.proto, fileno=sock.detach())
        adopted.clock = clock
        return adopted

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        self.settimeout(self.clock.remaining())
        try:
            return self.clock.received(super().recv_into(buffer, nbytes, flags))
        except TimeoutError:
            raise DeadlineExceeded(self.clock.phase) from None

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        self.settimeout(self.clock.remaining())
        try:
            data = super().recv(bufsize, flags)
            self.clock.received(len(data))
            return data
        except TimeoutError:
            raise DeadlineExceeded(self.clock.phase) from None


class _DeadlineTlsSocket(ssl.SSLSocket):
    """The TLS counterpart: each read (a whole TLS record, possibly several socket reads) gets the time left."""

    clock: _Clock

    def recv_into(self, buffer: Any, nbytes: int | None = None, flags: int = 0) -> int:
        self.settimeout(self.clock.remaining())
        try:
            return self.clock.received(super().recv_into(buffer, nbytes, flags))
        except TimeoutError:
            raise DeadlineExceeded(self.clock.phase) from None


def _connect(host: str, port: int, clock: _Clock) -> _DeadlineSocket:
    try:
        sock = socket.create_connection((host, port), timeout=clock.remaining())
    except TimeoutError:
        raise DeadlineExceeded(clock.phase) from None
    adopted = _DeadlineSocket.adopt(sock, clock)
    adopted.settimeout(clock.remaining())  # bounds sending the request too
    return adopted


class _Http(http.client.HTTPConnection):
    def __init__(self, host: str, port: int | None, clock: _Clock) -> None:
        super().__init__(host, port)
        self.clock = clock

    def connect(self) -> None:
        self.sock = _connect(self.host, self.port, self.clock)


class _Https(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int | None, clock: _Clock, context: ssl.SSLContext) -> None:
        super().__init__(host, port, context=context)
        self.clock = clock
        self.tls = context

    def connect(self) -> None:
        raw = _connect(self.host, self.port, self.clock)
        self.clock.phase = "in the TLS handshake"
        tls = self.tls.wrap_socket(raw, server_hostname=self.host, do_handshake_on_connect=False)
        if not isinstance(tls, _DeadlineTlsSocket):  # pragma: no cover - the context below always makes one
            raise HttpFailure("internal error: TLS socket without a deadline")
        tls.clock = self.clock
        tls.settimeout(self.clock.remaining())  # the handshake is one call with one overall timeout
        try:
            tls.do_handshake()
        except TimeoutError:
            raise DeadlineExceeded(self.clock.phase) from None
        self.sock = tls


def _tls_context() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.sslsocket_class = _DeadlineTlsSocket
    return context


def get(
    url: str,
    *,
    headers: dict[str, str],
    timeout: float,
    max_body: int,
    max_redirects: int,
) -> HttpAnswer:
    """GET ``url`` following up to ``max_redirects`` redirects, all within ``timeout`` seconds.

    Returns the final status (any, 200 or not) and at most ``max_body + 1`` bytes of its body. Raises
    :class:`DeadlineExceeded` (with the phase) or :class:`HttpFailure`.
    """
    clock = _Clock(timeout)
    seen: list[str] = []
    while True:
        status, location, body = _one_request(url, headers, clock, max_body)
        if status not in (301, 302, 303, 307, 308):
            return HttpAnswer(status, body, url)
        if not location:
            raise HttpFailure(f"the URL provider answered HTTP {status} without a Location")
        if len(seen) >= max_redirects:
            raise HttpFailure(f"the URL provider redirects too often (HTTP {status}, more than {max_redirects})")
        seen.append(url)
        url = urljoin(url, location)


def _one_request(url: str, headers: dict[str, str], clock: _Clock, max_body: int) -> tuple[int, str, bytes]:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise HttpFailure("the URL provider's address (or a redirect) is not a valid URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HttpFailure(f"the URL provider's address (or a redirect) is not an http(s) URL: {parts.scheme}://")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    clock.phase = "connecting"
    connection: http.client.HTTPConnection = (
        _Https(parts.hostname, port, clock, _tls_context())
        if parts.scheme == "https"
        else _Http(parts.hostname, port, clock)
    )
    response: http.client.HTTPResponse | None = None
    try:
        connection.connect()
        clock.phase = "sending the request"
        connection.request("GET", path, headers={**headers, "Connection": "close"})
        clock.phase = NO_ANSWER_YET
        response = connection.getresponse()
        clock.phase = BODY_INCOMPLETE
        body = bytearray()
        while len(body) <= max_body:
            chunk = response.read1(min(16 * 1024, max_body + 1 - len(body)))
            if not chunk:
                break
            body += chunk
        missing = response.length  # bytes still due by Content-Length (None without one)
        if len(body) <= max_body and missing:
            raise HttpFailure(f"the URL provider's answer ended {missing} bytes short of its Content-Length")
        clock.remaining()  # an answer completed after the deadline is discarded, not applied late
        return response.status, response.getheader("Location") or "", bytes(body)
    except DeadlineExceeded:
        raise
    except TimeoutError:
        raise DeadlineExceeded(clock.phase) from None
    except ssl.SSLError as exc:
        raise HttpFailure(f"the TLS connection to the URL provider failed ({type(exc).__name__})") from None
    except http.client.HTTPException as exc:
        raise HttpFailure(f"the URL provider's answer is not valid HTTP ({type(exc).__name__})") from None
    except OSError as exc:
        raise HttpFailure(f"the URL provider is unreachable: {exc.strerror or type(exc).__name__}") from None
    finally:
        if response is not None:
            response.close()
        connection.close()
