"""A small typed client of toxiproxy's HTTP API, and the toxiproxy server as a managed process."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.errors import PulsarHaError
from pytest_pulsar_ha.process.pid_registry import PidRegistry
from pytest_pulsar_ha.process.ports import LOOPBACK, free_ports
from pytest_pulsar_ha.process.processes import ManagedProcess
from pytest_pulsar_ha.process.readiness import HttpWait


class ToxiproxyError(PulsarHaError):
    pass


@dataclass(frozen=True)
class Proxy:
    name: str
    listen_port: int
    upstream: str

    @property
    def listen(self) -> str:
        return f"{LOOPBACK}:{self.listen_port}"


class ToxiproxyClient:
    """Talks to one toxiproxy server's HTTP API (``http://host:port``)."""

    def __init__(self, api_url: str, timeout: float = 10.0) -> None:
        self.api_url = api_url.rstrip("/")
        self.timeout = timeout

    def _call(self, method: str, path: str, payload: dict[str, Any] | None = None) -> Any:
        data = json.dumps(payload).encode() if payload is not None else None
        request = urllib.request.Request(
            self.api_url + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = response.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode(errors="replace")
            raise ToxiproxyError(f"toxiproxy {method} {path} answered HTTP {exc.code}: {detail}") from exc
        except OSError as exc:
            raise ToxiproxyError(f"toxiproxy at {self.api_url} unreachable ({method} {path}): {exc}") from exc
        return json.loads(body) if body.strip() else None

    def version(self) -> str:
        return str(self._call("GET", "/version"))

    def create_proxy(self, name: str, listen_port: int, upstream: str) -> Proxy:
        self._call("POST", "/proxies", {"name": name, "listen": f"{LOOPBACK}:{listen_port}", "upstream": upstream})
        return Proxy(name, listen_port, upstream)

    def set_enabled(self, proxy: str, enabled: bool) -> None:
        """Disabling a proxy closes its open connections and stops listening (connects are refused)."""
        self._call("POST", f"/proxies/{proxy}", {"enabled": enabled})

    def is_enabled(self, proxy: str) -> bool:
        return bool(self._call("GET", f"/proxies/{proxy}")["enabled"])

    def add_toxic(
        self,
        proxy: str,
        name: str,
        toxic_type: str,
        attributes: dict[str, Any],
        *,
        stream: str = "downstream",
        toxicity: float = 1.0,
    ) -> None:
        self._call(
            "POST",
            f"/proxies/{proxy}/toxics",
            {
                "name": name,
                "type": toxic_type,
                "stream": stream,
                "toxicity": toxicity,
                "attributes": attributes,
            },
        )

    def remove_toxic(self, proxy: str, name: str) -> None:
        self._call("DELETE", f"/proxies/{proxy}/toxics/{name}")

    def toxics(self, proxy: str) -> list[dict[str, Any]]:
        return list(self._call("GET", f"/proxies/{proxy}/toxics"))

    def reset(self) -> None:
        """Enable every proxy and remove every toxic."""
        self._call("POST", "/reset")


class ToxiproxyServer:
    """The toxiproxy server, on a free loopback port, as a managed process."""

    def __init__(self, binary: Path, work_dir: Path, registry: PidRegistry, timeout: float = 30.0) -> None:
        (self.port,) = free_ports(1)
        self.process = ManagedProcess(
            "toxiproxy",
            [str(binary), "-host", LOOPBACK, "-port", str(self.port)],
            cwd=work_dir,
            log_path=work_dir / "toxiproxy.log",
            registry=registry,
        )
        self.api_url = f"http://{LOOPBACK}:{self.port}"
        self.client = ToxiproxyClient(self.api_url)
        self._timeout = timeout

    def start(self) -> None:
        self.process.start()
        HttpWait(
            url=self.api_url + "/version",
            timeout=self._timeout,
            poll_interval=0.1,
            hint="toxiproxy did not answer on its API port; is the binary a toxiproxy server?",
        ).wait(self.process)

    def stop(self) -> None:
        self.process.stop(grace_seconds=5)
