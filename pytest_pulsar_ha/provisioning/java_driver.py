"""The Java client driver (``drivers/java``, a Maven project): built once per source and client version into
the cache, ``<cache>/java-driver/<hash>/`` (its jar and ``lib/``, the runtime classpath), with Maven's progress
shown. The hash covers every file of the project and the client version, so an edited driver is built again."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning.cache import Progress
from pytest_pulsar_ha.provisioning.java import find_java, required_java
from pytest_pulsar_ha.provisioning.streaming import run_with_progress

DRIVER_SOURCES = Path(__file__).resolve().parents[2] / "drivers" / "java"
MAIN_CLASS = "io.pulsarha.driver.Main"
_COMPLETE = ".pytest-pulsar-ha-complete"
LOG_OPTIONS = (
    "-Dorg.slf4j.simpleLogger.showDateTime=true",
    "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
)
"""The client's log (slf4j-simple, on the driver's stderr: java-client.log) with times, to line it up with the
history (e.g. a producer's reconnect attempts around a switch)."""


@dataclass(frozen=True)
class JavaDriver:
    """A built driver: ``command(config)`` is the argv that runs it."""

    home: Path
    java: Path
    client_version: str

    @property
    def classpath(self) -> str:
        jars = sorted(self.home.glob("*.jar")) + sorted((self.home / "lib").glob("*.jar"))
        return ":".join(str(jar) for jar in jars)

    def command(self, config: Path) -> list[str]:
        return [str(self.java), "-Xmx256m", *LOG_OPTIONS, "-cp", self.classpath, MAIN_CLASS, str(config)]


def source_hash(sources: Path, client_version: str) -> str:
    """A digest of every file of the Maven project (paths and contents) and the client version."""
    digest = hashlib.sha256(client_version.encode())
    for path in sorted(p for p in sources.rglob("*") if p.is_file() and "target" not in p.parts):
        digest.update(str(path.relative_to(sources)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def ensure_java_driver(
    client_version: str, cache_dir: Path, progress: Progress, sources: Path = DRIVER_SOURCES
) -> JavaDriver:
    """The driver built against ``org.apache.pulsar:pulsar-client:<client_version>``: from the cache, or built
    now with Maven (once, under a lock)."""
    java = find_java(required_java(client_version))
    if not (sources / "pom.xml").is_file():
        raise ProvisioningError(
            f"the Java client driver's sources are not at {sources} (expected pom.xml there): client kind java "
            "needs a checkout of pytest-pulsar-ha with its drivers/java folder"
        )
    home = cache_dir / "java-driver" / f"{source_hash(sources, client_version)}-{client_version}"
    if (home / _COMPLETE).exists():
        return JavaDriver(home, java, client_version)
    home.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(home.parent / f"{home.name}.lock"), timeout=1800):
        if not (home / _COMPLETE).exists():
            _build(sources, client_version, home, progress)
    return JavaDriver(home, java, client_version)


def _build(sources: Path, client_version: str, home: Path, progress: Progress) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise ProvisioningError(
            "Maven (mvn) is needed to build the Java client driver and none is on PATH. "
            "Install Maven (e.g. `apt-get install maven`)."
        )
    progress(f"building the Java client driver (pulsar-client {client_version}) into {home}")
    with tempfile.TemporaryDirectory(dir=home.parent, prefix="build-") as tmp:
        build = Path(tmp) / "out"
        run_with_progress(
            [
                mvn,
                "--strict-checksums",
                f"-Ddriver.build.dir={build}",
                f"-Dpulsar.client.version={client_version}",
                "package",
            ],
            what=f"build the Java client driver (pulsar-client {client_version})",
            progress=progress,
            cwd=sources,
            hint=f"check that org.apache.pulsar:pulsar-client:{client_version} exists and that Maven can reach "
            "Maven Central (proxy settings in ~/.m2/settings.xml)",
        )
        if home.exists():
            shutil.rmtree(home)  # an interrupted earlier build
        home.mkdir()
        for jar in build.glob("*.jar"):
            jar.rename(home / jar.name)
        (build / "lib").rename(home / "lib")
    (home / _COMPLETE).write_text(client_version + "\n")
    progress(f"Java client driver ready at {home}")
