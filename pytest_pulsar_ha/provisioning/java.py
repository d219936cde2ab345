"""Find a Java runtime that Pulsar accepts (17 or newer)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from pytest_pulsar_ha.errors import ProvisioningError

MIN_JAVA = 17


def java_major(java: str) -> int | None:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def find_java() -> Path:
    """The java binary that ``bin/pulsar`` will run: ``$JAVA_HOME/bin/java`` or ``java`` on PATH."""
    java_home = os.environ.get("JAVA_HOME")
    candidate = str(Path(java_home) / "bin" / "java") if java_home else shutil.which("java")
    if not candidate or not Path(candidate).exists():
        raise ProvisioningError(
            "Java is needed to run Pulsar and none was found (no JAVA_HOME, no java on PATH). "
            f"Install a JDK or JRE {MIN_JAVA}+ (e.g. `apt-get install openjdk-17-jre-headless`) or set JAVA_HOME."
        )
    major = java_major(candidate)
    if major is None or major < MIN_JAVA:
        raise ProvisioningError(
            f"{candidate} is Java {major or 'of unknown version'}; Pulsar needs Java {MIN_JAVA} or newer. "
            "Point JAVA_HOME at a newer JDK."
        )
    return Path(candidate).resolve()
