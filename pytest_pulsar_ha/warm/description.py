"""What a warm environment is, as one canonical text and its digest: a session attaches only to an environment of
the same description (clusters in order, brokers, broker settings, auth, metadata sync, ledger ids seeded apart,
Pulsar runtime, heap, backend), never to one that differs in any of them."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Any

from pytest_pulsar_ha.settings import HaSettings
from pytest_pulsar_ha.settings.clusters import ClusterSpec

DESCRIPTION_VERSION = 2
"""Bumped when what an environment's processes are changes in a way the fields below do not show."""


@dataclass(frozen=True)
class ClusterDescription:
    name: str
    brokers: int
    broker_settings: tuple[tuple[str, str], ...]
    auth: str
    metadata_sync: str
    ledger_ids_high: bool = False
    """its ledger ids seeded to sort above the other clusters' (``topology.ledger_ids_higher``)"""

    @classmethod
    def of(cls, spec: ClusterSpec) -> ClusterDescription:
        return cls(
            spec.name,
            spec.brokers,
            tuple(sorted((str(k), str(v)) for k, v in spec.broker_settings.items())),
            spec.auth or "none",
            spec.metadata_sync or "none",
            spec.ledger_ids_high,
        )

    def spec(self) -> ClusterSpec:
        return ClusterSpec(
            self.name,
            brokers=self.brokers,
            broker_settings=dict(self.broker_settings),
            auth=None if self.auth == "none" else self.auth,
            metadata_sync=None if self.metadata_sync == "none" else self.metadata_sync,
            ledger_ids_high=self.ledger_ids_high,
        )


@dataclass(frozen=True)
class EnvironmentDescription:
    backend: str
    pulsar_version: str
    pulsar_substitutions: tuple[tuple[str, str], ...]
    heap: str
    clusters: tuple[ClusterDescription, ...]
    version: int = DESCRIPTION_VERSION
    instance: str = ""
    """whose share it is where several run side by side (a pytest-xdist worker's id), '' for the only one"""

    @classmethod
    def of(cls, settings: HaSettings, instance: str = "") -> EnvironmentDescription:
        return cls(
            settings.backend,
            settings.pulsar_version,
            tuple(sorted(settings.pulsar_substitutions)),
            settings.heap,
            tuple(ClusterDescription.of(spec) for spec in settings.clusters),
            DESCRIPTION_VERSION,
            instance,
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> EnvironmentDescription:
        """The description a state file holds; ValueError (what is wrong) for anything else."""
        try:
            clusters = tuple(
                ClusterDescription(
                    str(c["name"]),
                    int(c["brokers"]),
                    tuple((str(k), str(v)) for k, v in c["broker_settings"]),
                    str(c["auth"]),
                    str(c["metadata_sync"]),
                    _flag(c.get("ledger_ids_high", False)),
                )
                for c in data["clusters"]
            )
            return cls(
                str(data["backend"]),
                str(data["pulsar_version"]),
                tuple((str(k), str(v)) for k, v in data["pulsar_substitutions"]),
                str(data["heap"]),
                clusters,
                int(data["version"]),
                str(data.get("instance", "")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not an environment description ({type(exc).__name__}: {exc})") from None

    def canonical(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    @property
    def digest(self) -> str:
        """16 hex digits of the SHA-256 of :meth:`canonical`: the environment's name under the cache."""
        return hashlib.sha256(self.canonical().encode()).hexdigest()[:16]

    def summary(self) -> str:
        """``pulsar 4.2.4, embedded, cluster-a:1,cluster-b:1[auth=token], heap 512m``."""
        parts = []
        for c in self.clusters:
            text = f"{c.name}:{c.brokers}"
            if c.broker_settings:
                text += "{" + ",".join(f"{k}={v}" for k, v in c.broker_settings) + "}"
            if c.auth != "none":
                text += f"[auth={c.auth}]"
            if c.metadata_sync != "none":
                text += f"[metadata_sync={c.metadata_sync}]"
            if c.ledger_ids_high:
                text += "[ledger-ids-high]"
            parts.append(text)
        pins = "".join(f" {k}={v}" for k, v in self.pulsar_substitutions)
        share = f", for {self.instance}" if self.instance else ""
        return f"pulsar {self.pulsar_version}{pins}, {self.backend}, {','.join(parts)}, heap {self.heap}{share}"

    def differences(self, other: EnvironmentDescription) -> list[str]:
        """What differs, field by field, as ``pulsar_version: 4.0.8 wanted, 4.2.4 running``."""
        out = []
        mine, theirs = self.to_json(), other.to_json()
        for key in mine:
            if mine[key] != theirs.get(key):
                out.append(f"{key}: {_short(mine[key])} wanted, {_short(theirs.get(key))} running")
        return out


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"ledger_ids_high is {value!r}, not true or false")
    return value


def _short(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))[:200]
