"""The administrator's side of ControlledClusterFailover: a small HTTP URL-provider service.

``GET /`` (any path but ``/admin/...``) answers the active cluster's PIP-121 JSON. An operator switches with
``POST /admin/switch/<cluster>`` (or :meth:`UrlProviderService.switch_to`). For chaos tests it can also
misbehave on purpose (:meth:`misbehave`, for a while with ``for_s`` or :meth:`misbehaving`): every kind of bad
answer a client must survive (:data:`MISBEHAVIOURS`, described in :data:`MISBEHAVIOUR_HELP`).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

MISBEHAVIOUR_HELP = {
    "status-500": "answers HTTP 500",
    "hang": "accepts the request and never answers",
    "invalid-json": "answers a truncated JSON document",
    "missing-service-url": "answers the active cluster's JSON without serviceUrl",
    "empty-service-url": "answers an empty serviceUrl",
    "unknown-auth-plugin": "names an auth plugin no client knows",
    "oversize": "answers a 1 MiB document",
    "redirect-loop": "redirects to itself forever",
    "trickle": "sends the active cluster's (valid) answer one byte every 30 ms, 3 s in all",
    "trickle-headers": "sends the status line and headers one byte every 30 ms, 3 s in all",
    "deep-json": "answers JSON nested 30000 levels deep (under the size limit)",
    "bad-port": "answers the active cluster's host with a non-numeric port",
    "bad-auth-params": "names the oauth2 plugin with parameters that are not JSON",
    "wrong-type": "answers serviceUrl as a number",
}
MISBEHAVIOURS = tuple(MISBEHAVIOUR_HELP)
TRICKLE_PAUSE_S = 0.03
TRICKLE_BYTES = 100


class UrlProviderService:
    """Serve ``clusters[active]`` as JSON on ``http://host:port/``; thread-safe; a context manager."""

    def __init__(
        self,
        clusters: Mapping[str, Mapping[str, Any]],
        active: str,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        required_headers: Mapping[str, str] | None = None,
        admin_token: str | None = None,
    ) -> None:
        for name, config in clusters.items():
            if not config.get("serviceUrl"):
                raise ValueError(f"cluster {name!r} has no serviceUrl")
        if active not in clusters:
            raise ValueError(f"active cluster {active!r} is not one of {', '.join(clusters)}")
        self.clusters = {name: dict(config) for name, config in clusters.items()}
        self.active = active
        self.required_headers = dict(required_headers or {})
        self.admin_token = admin_token
        self.misbehaviour: str | None = None
        self.misbehave_until: float | None = None
        self.requests = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer((host, port), self._handler())
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/"

    def __enter__(self) -> UrlProviderService:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, name="url-provider", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def switch_to(self, cluster: str) -> None:
        if cluster not in self.clusters:
            raise ValueError(f"unknown cluster {cluster!r}; known: {', '.join(self.clusters)}")
        with self._lock:
            self.active = cluster

    def misbehave(self, kind: str | None, *, for_s: float | None = None) -> None:
        """Answer badly from now on (one of MISBEHAVIOURS), for ``for_s`` seconds if given; None: normally."""
        if kind is not None and kind not in MISBEHAVIOURS:
            raise ValueError(f"unknown misbehaviour {kind!r}; valid: {', '.join(MISBEHAVIOURS)}")
        if for_s is not None and for_s <= 0:
            raise ValueError(f"for_s={for_s} must be positive")
        with self._lock:
            self.misbehaviour = kind
            self.misbehave_until = None if for_s is None or kind is None else time.monotonic() + for_s

    @contextmanager
    def misbehaving(self, kind: str) -> Iterator[None]:
        """Answer badly (one of MISBEHAVIOURS) inside the ``with`` block, normally again after it."""
        self.misbehave(kind)
        try:
            yield
        finally:
            self.misbehave(None)

    def current_misbehaviour(self) -> str | None:
        with self._lock:
            if self.misbehave_until is not None and time.monotonic() >= self.misbehave_until:
                self.misbehaviour, self.misbehave_until = None, None
            return self.misbehaviour

    def answer(self) -> tuple[int, dict[str, str], bytes]:
        """(status, headers, body) for a GET, given the current state."""
        kind = self.current_misbehaviour()
        with self._lock:
            config = dict(self.clusters[self.active])
            self.requests += 1
        json_headers = {"Content-Type": "application/json"}
        if kind == "status-500":
            return 500, {}, b"internal error"
        if kind == "invalid-json":
            return 200, json_headers, b'{"serviceUrl": "pulsar://'
        if kind == "missing-service-url":
            config.pop("serviceUrl")
        elif kind == "empty-service-url":
            config["serviceUrl"] = ""
        elif kind == "unknown-auth-plugin":
            config.update(authPluginClassName="com.example.NoSuchAuth", authParamsString="secret-params")
        elif kind == "oversize":
            config["padding"] = "x" * (1024 * 1024)
        elif kind == "redirect-loop":
            return 302, {"Location": "/loop"}, b""
        elif kind == "deep-json":
            nested = b"[" * 30000 + b"]" * 30000
            return (
                200,
                json_headers,
                b'{"serviceUrl": ' + json.dumps(config["serviceUrl"]).encode() + b', "x": ' + nested + b"}",
            )
        elif kind == "bad-port":
            host = urlsplit(str(config["serviceUrl"])).hostname or "localhost"
            config["serviceUrl"] = f"pulsar://{host}:66x0"
        elif kind == "bad-auth-params":
            config.update(authPluginClassName="oauth2", authParamsString="secret-params, not JSON")
        elif kind == "wrong-type":
            config["serviceUrl"] = 6650
        body = json.dumps(config).encode()
        if kind in ("trickle", "trickle-headers"):
            body = body.ljust(TRICKLE_BYTES)  # JSON allows trailing spaces
        return 200, json_headers, body

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def _send(self, status: int, headers: Mapping[str, str], body: bytes) -> None:
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                for key, value in service.required_headers.items():
                    if self.headers.get(key) != value:
                        self._send(401, {}, f"missing or wrong header {key}".encode())
                        return
                kind = service.current_misbehaviour()
                if kind == "hang":
                    time.sleep(3600)
                    return
                status, headers, body = service.answer()
                if kind == "trickle":
                    self.send_response(status)
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self._trickle(body)
                elif kind == "trickle-headers":
                    head = f"HTTP/1.0 {status} OK\r\nContent-Type: application/json\r\n"
                    head += f"X-Padding: {'p' * (TRICKLE_BYTES - 80)}\r\nContent-Length: {len(body)}\r\n\r\n"
                    self._trickle(head.encode() + body)
                else:
                    self._send(status, headers, body)

            def _trickle(self, raw: bytes) -> None:
                """One byte every TRICKLE_PAUSE_S; stop quietly when the client has gone."""
                try:
                    self.wfile.flush()
                    for i in range(len(raw)):
                        self.wfile.write(raw[i : i + 1])
                        self.wfile.flush()
                        time.sleep(TRICKLE_PAUSE_S)
                except OSError:
                    return

            def do_POST(self) -> None:
                prefix = "/admin/switch/"
                if service.admin_token and self.headers.get("Authorization") != f"Bearer {service.admin_token}":
                    self._send(401, {}, b"admin token required")
                    return
                if not self.path.startswith(prefix):
                    self._send(404, {}, b"POST /admin/switch/<cluster>")
                    return
                try:
                    service.switch_to(self.path[len(prefix) :])
                except ValueError as exc:
                    self._send(404, {}, str(exc).encode())
                    return
                self._send(200, {"Content-Type": "application/json"}, json.dumps({"active": service.active}).encode())

        return Handler
