"""A warm environment's state file (``<cache>/warm/<digest>/state.json``): its description, its keeper, the
addresses and tokens a session needs, written by the keeper once every cluster serves (mode 0600: it holds the
clusters' superuser tokens)."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.process.pid_registry import live_start_ticks
from pytest_pulsar_ha.warm.description import EnvironmentDescription

STATE_FILE = "state.json"
FAILED_FILE = "failed.txt"
"""Written by a keeper whose environment did not start: why (what ``pulsar-ha up`` prints)."""
KEEPER_LOG = "keeper.log"
MAX_STATE_BYTES = 1 << 20


@dataclass(frozen=True)
class ClusterAddresses:
    service_url: str
    admin_url: str
    direct_service_url: str
    direct_admin_url: str
    token: str | None = None


@dataclass(frozen=True)
class WarmState:
    description: EnvironmentDescription
    keeper_pid: int
    keeper_start_ticks: int
    created_at: float
    work_dir: str
    clusters: dict[str, ClusterAddresses] = field(default_factory=dict)
    toxiproxy_api: str = ""
    runtime: str = ""
    """how the keeper's backend has Pulsar (``4.2.4 (assembled ...)``), for a verdict's facts"""
    nodes: dict[str, Any] = field(default_factory=dict)
    """per cluster, what an attached session needs of its node (:func:`~pytest_pulsar_ha.warm.remote.node_info`)"""
    layout: dict[str, Any] = field(default_factory=dict)
    """the proxies (``ProxyLayout.to_json``)"""

    @property
    def digest(self) -> str:
        return self.description.digest

    def why_stale(self) -> str | None:
        """Why this environment is not running any more (its keeper is gone), or None while it is."""
        ticks = live_start_ticks(self.keeper_pid)
        if ticks is None:
            return f"its keeper (pid {self.keeper_pid}) is not running (a reboot, or it was killed)"
        if ticks != self.keeper_start_ticks:
            return f"pid {self.keeper_pid} is another process now, not its keeper (a reboot)"
        return None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["description"] = self.description.to_json()
        data["digest"] = self.digest
        return data

    @classmethod
    def from_json(cls, data: Any) -> WarmState:
        """ValueError saying what is wrong for anything but a state this version wrote."""
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        try:
            description = EnvironmentDescription.from_json(data["description"])
            if data.get("digest") != description.digest:
                raise ValueError("its digest does not match its description")
            clusters = {
                str(name): ClusterAddresses(
                    str(c["service_url"]),
                    str(c["admin_url"]),
                    str(c["direct_service_url"]),
                    str(c["direct_admin_url"]),
                    None if c.get("token") is None else str(c["token"]),
                )
                for name, c in dict(data["clusters"]).items()
            }
            return cls(
                description,
                int(data["keeper_pid"]),
                int(data["keeper_start_ticks"]),
                float(data["created_at"]),
                str(data["work_dir"]),
                clusters,
                str(data.get("toxiproxy_api", "")),
                str(data.get("runtime", "")),
                dict(data.get("nodes", {})),
                dict(data.get("layout", {})),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"missing or wrong field ({type(exc).__name__}: {exc})") from None


class WarmStore:
    """The warm environments under ``<cache>/warm``, one directory each, named by digest."""

    def __init__(self, cache_dir: Path) -> None:
        self.root = cache_dir / "warm"

    def directory(self, digest: str) -> Path:
        return self.root / digest

    def write(self, state: WarmState) -> Path:
        """Write ``state`` atomically, readable by its owner only."""
        folder = self.directory(state.digest)
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / (STATE_FILE + ".partial")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            json.dump(state.to_json(), out, indent=1)
        partial.replace(folder / STATE_FILE)
        return folder / STATE_FILE

    def read(self, digest: str) -> WarmState | str | None:
        """The state of environment ``digest``; a reason when its file cannot be read; None when there is none."""
        path = self.directory(digest) / STATE_FILE
        try:
            with path.open("rb") as handle:
                raw = handle.read(MAX_STATE_BYTES + 1)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"{path}: cannot be read ({exc.strerror})"
        if len(raw) > MAX_STATE_BYTES:
            return f"{path}: larger than {MAX_STATE_BYTES} bytes: not a state file"
        try:
            return WarmState.from_json(json.loads(raw))
        except ValueError as exc:  # JSONDecodeError included
            return f"{path}: not a warm environment's state ({exc})"

    def digests(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir())

    def remove(self, digest: str) -> None:
        """Forget environment ``digest``: its directory (state, logs, the clusters' data) goes."""
        shutil.rmtree(self.directory(digest), ignore_errors=True)
