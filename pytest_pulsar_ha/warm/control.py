"""The keeper's control socket (``<folder>/control.sock``, mode 0600): what an attached session cannot do itself
because the keeper owns the processes (kill, pause, resume, start a process or a whole cluster, read a log tail).

One JSON object per line each way. A request names its target (``{"cluster": "cluster-a", "process":
"broker:0"}``, ``"zookeeper"``, ``"bookie"``, or no process: the cluster) and an ``action``; the answer is
``{"ok": true, "value": ...}`` or ``{"ok": false, "error": "..."}``. A request is read within 10 s and 64 KiB,
and must be flat JSON: anything else is an error answer, never a crashed keeper.
"""

from __future__ import annotations

import json
import os
import socket
import socketserver
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.errors import PulsarHaError
from pytest_pulsar_ha.process.control import VERBS

CONTROL_SOCKET = "control.sock"
MAX_REQUEST = 64 * 1024
READ_TIMEOUT_S = 10.0
ACTIONS = VERBS
"""The process-control protocol's verbs: a request names one of them, or ``ping``."""


class ControlError(PulsarHaError):
    """The keeper refused or failed a request, or could not be reached."""


def _target(nodes: Mapping[str, Any], request: Mapping[str, Any]) -> Any:
    cluster = request.get("cluster")
    if not isinstance(cluster, str) or cluster not in nodes:
        raise ValueError(f"no cluster {cluster!r}; this environment has {', '.join(nodes)}")
    node = nodes[cluster]
    process = request.get("process")
    if process is None:
        return node
    if process in ("zookeeper", "bookie"):
        found = getattr(node, process)
        if found is None:
            raise ValueError(f"cluster {cluster} has no {process} process of its own")
        return found
    if isinstance(process, str) and process.startswith("broker:") and process[7:].isdigit():
        index = int(process[7:])
        if index < len(node.brokers):
            return node.brokers[index]
    raise ValueError(f"no process {process!r} in cluster {cluster} (broker:<i>, zookeeper or bookie)")


def answer(nodes: Mapping[str, Any], line: bytes) -> dict[str, Any]:
    """The answer to one request line (never raises)."""
    try:
        request = json.loads(line)
        if not isinstance(request, dict) or any(isinstance(v, dict | list) for v in request.values()):
            raise ValueError("a request is one flat JSON object")
        action = request.get("action")
        if action == "ping":
            return {"ok": True, "value": "pong"}
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}; valid: ping, {', '.join(ACTIONS)}")
        target = _target(nodes, request)
        if action == "log_tail":
            lines = request.get("lines", 40)
            if not isinstance(lines, int) or not 0 < lines <= 1000:
                raise ValueError("lines must be an integer from 1 to 1000")
            return {"ok": True, "value": target.log_tail(lines)}
        value = getattr(target, action)()
        return {"ok": True, "value": value if isinstance(value, bool) else None}
    except RecursionError:
        return {"ok": False, "error": "the request is nested too deeply"}
    except Exception as exc:  # an answer, whatever went wrong: the keeper serves on
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}


class _Handler(socketserver.StreamRequestHandler):
    timeout = READ_TIMEOUT_S

    def handle(self) -> None:
        try:
            line = self.rfile.readline(MAX_REQUEST + 1)
        except OSError:  # a client that trickles or never ends its line
            return
        if len(line) > MAX_REQUEST or not line.endswith(b"\n"):
            reply = {"ok": False, "error": f"a request is one line of at most {MAX_REQUEST} bytes"}
        else:
            reply = answer(self.server.nodes, line)  # type: ignore[attr-defined]
        self.wfile.write(json.dumps(reply).encode() + b"\n")


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class ControlServer:
    """Serves ``nodes`` (cluster name -> ClusterNode) on ``<folder>/control.sock`` from a thread of its own."""

    def __init__(self, folder: Path, nodes: Mapping[str, Any]) -> None:
        self.path = folder / CONTROL_SOCKET
        self.path.unlink(missing_ok=True)
        old = os.umask(0o177)
        try:
            self._server = _Server(str(self.path), _Handler)
        finally:
            os.umask(old)
        self._server.nodes = nodes  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, name="warm-control", daemon=True)

    def start(self) -> ControlServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self.path.unlink(missing_ok=True)


class ControlClient:
    """Asks the keeper listening on ``path``; ``timeout`` bounds each request (a start waits for readiness)."""

    def __init__(self, path: Path, timeout: float = 300.0) -> None:
        self.path = path
        self.timeout = timeout

    def call(self, action: str, cluster: str | None = None, process: str | None = None, **extra: Any) -> Any:
        request: dict[str, Any] = {"action": action, **extra}
        if cluster is not None:
            request["cluster"] = cluster
        if process is not None:
            request["process"] = process
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.settimeout(self.timeout)
                conn.connect(str(self.path))
                conn.sendall(json.dumps(request).encode() + b"\n")
                with conn.makefile("rb") as reply:
                    line = reply.readline(MAX_REQUEST * 16)
        except OSError as exc:
            raise ControlError(f"the warm environment's keeper at {self.path} did not answer {action}: {exc}") from None
        try:
            data = json.loads(line)
        except ValueError:
            raise ControlError(f"the keeper at {self.path} answered {action} with no JSON: {line[:200]!r}") from None
        if not data.get("ok"):
            raise ControlError(f"the keeper refused {action} on {cluster} {process or ''}: {data.get('error')}")
        return data.get("value")
