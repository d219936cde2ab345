"""A loopback HTTP server whose every answer is written by a test-supplied function (for hostile answers)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Respond = Callable[[BaseHTTPRequestHandler], None]


def send(handler: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
    handler.send_response(status)
    for key, value in (headers or {"Content-Type": "application/json"}).items():
        handler.send_header(key, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def trickle(handler: BaseHTTPRequestHandler, raw: bytes, pause_s: float) -> None:
    """Write ``raw`` one byte at a time, ``pause_s`` apart; stop quietly when the client has gone."""
    try:
        for i in range(len(raw)):
            handler.wfile.write(raw[i : i + 1])
            handler.wfile.flush()
            time.sleep(pause_s)
    except OSError:
        return


class ScriptedServer:
    """``GET`` on ``url`` calls ``respond(handler)``; swap ``respond`` at any time. A context manager."""

    def __init__(self, respond: Respond) -> None:
        self.respond = respond
        self.requests = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                server.requests += 1
                server.respond(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/"

    def __enter__(self) -> ScriptedServer:
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="scripted-http", daemon=True
        ).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
