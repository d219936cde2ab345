"""The administrator's side of ControlledClusterFailover: a small HTTP URL-provider service.

``GET /`` (any path but ``/admin/...``) answers the active cluster's PIP-121 JSON. An operator switches with
``POST /admin/switch/<cluster>`` (or :meth:`UrlProviderService.switch_to`). For chaos tests it can also
misbehave on purpose (:meth:`misbehave`): every kind of bad answer a client must survive.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MISBEHAVIOURS = (
    "status-500",
    "hang",
    "invalid-json",
    "missing-service-url",
    "empty-service-url",
    "unknown-auth-plugin",
    "oversize",
    "redirect-loop",
)


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
        self._thread = threading.Thread(target=self._server.serve_forever, name="url-provider", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def switch_to(self, cluster: str) -> None:
        if cluster not in self.clusters:
            raise ValueError(f"unknown cluster {cluster!r}; known: {', '.join(self.clusters)}")
        with self._lock:
            self.active = cluster

    def misbehave(self, kind: str | None) -> None:
        """Answer badly from now on (one of MISBEHAVIOURS), or normally again with None."""
        if kind is not None and kind not in MISBEHAVIOURS:
            raise ValueError(f"unknown misbehaviour {kind!r}; valid: {', '.join(MISBEHAVIOURS)}")
        with self._lock:
            self.misbehaviour = kind

    def answer(self) -> tuple[int, dict[str, str], bytes]:
        """(status, headers, body) for a GET, given the current state."""
        with self._lock:
            kind, config = self.misbehaviour, dict(self.clusters[self.active])
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
        return 200, json_headers, json.dumps(config).encode()

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
                if service.misbehaviour == "hang":
                    time.sleep(3600)
                    return
                self._send(*service.answer())

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
