"""Run an installer command, pass its progress to a callback, keep the rest of its output for errors."""

from __future__ import annotations

import re
import subprocess
import time
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning.cache import Progress

# Maven (not in batch mode) redraws "Progress (1): 12/245 MB" with carriage returns.
_MAVEN_PROGRESS = re.compile(r"Progress \(\d+\): ([\d.]+)/([\d.]+) (MB|kB|B)")


class CommandFailed(ProvisioningError):
    """An installer command exited non-zero; ``output`` is the tail of what it printed."""

    def __init__(self, message: str, output: str) -> None:
        super().__init__(message)
        self.output = output


def run_with_progress(
    argv: Sequence[str],
    *,
    what: str,
    progress: Progress,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    hint: str,
    min_interval: float = 2.0,
) -> None:
    """Run ``argv``; every ``min_interval`` seconds report a progress line; raise with the output tail on failure."""
    tail: deque[str] = deque(maxlen=30)
    last_report = 0.0
    started = time.monotonic()
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    if process.stdout is None:  # stdout=PIPE always gives one; a replaced Popen might not
        process.kill()
        raise RuntimeError(f"{what}: the command {argv[0]} has no stdout pipe to read its progress from")
    buffer = b""
    while chunk := process.stdout.read1(65536):  # type: ignore[attr-defined]
        buffer += chunk
        *pieces, buffer = re.split(rb"[\r\n]", buffer)
        for raw in pieces:
            line = raw.decode(errors="replace").strip()
            if not line:
                continue
            match = _MAVEN_PROGRESS.search(line)
            now = time.monotonic()
            if match:
                if match.group(3) == "MB" and now - last_report >= min_interval:
                    done, total, unit = match.groups()
                    progress(f"{what}: {done}/{total} {unit}")
                    last_report = now
                continue
            tail.append(line)
            if line.startswith("go: downloading") and now - last_report >= min_interval:
                progress(f"{what}: {line}")
                last_report = now
    code = process.wait()
    if code != 0:
        output = "\n".join(tail)
        raise CommandFailed(f"{what} failed (exit {code}) running: {' '.join(argv)}\n{output}\nhint: {hint}", output)
    progress(f"{what}: done in {time.monotonic() - started:.0f}s")
