"""The Pulsar runtime: an existing install, the binary distribution fetched once from Maven Central, or, where no
distribution of that version is served, a runtime assembled from its Maven artifacts
(:mod:`pytest_pulsar_ha.provisioning.pulsar_assembly`). A version with a committed lock (``locks/``: the tarball
of ``distribution-<version>.lock``, the jars of ``pulsar-<version>.lock``) is fetched without Maven; Maven is used
only for a version that has no lock."""

from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from filelock import FileLock

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning import pulsar_assembly
from pytest_pulsar_ha.provisioning.cache import Progress
from pytest_pulsar_ha.provisioning.java import find_java, required_java
from pytest_pulsar_ha.provisioning.maven_fetch import fetch_locked
from pytest_pulsar_ha.provisioning.maven_lock import LockEntry, read_lock
from pytest_pulsar_ha.provisioning.streaming import CommandFailed, run_with_progress

# The newest release that passes the demo here end to end (docs/how-to/pulsar-versions.md, "The default"): 4.2.4,
# assembled from Maven artifacts (no distribution is served here); its broker runs on Java 17. 5.0.1 (the LTS) runs
# from a lock written from its published metadata (Java 21+), and is not the default: see that page.
DEFAULT_PULSAR_VERSION = "4.2.4"
PULSAR_HOME_ENV = "PULSAR_HA_PULSAR_HOME"
ARTIFACT = "org.apache.pulsar:pulsar-server-distribution:{version}:tar.gz:bin"
_COMPLETE = ".pytest-pulsar-ha-complete"


Origin = Literal["distribution", "assembled", "PULSAR_HA_PULSAR_HOME"]


@dataclass(frozen=True)
class PulsarDistribution:
    home: Path
    version: str
    java: Path
    origin: Origin = "distribution"
    substitutions: tuple[tuple[str, str], ...] = ()
    """an assembled runtime's dependencies pinned to versions other than the release's (``group:artifact``, version)"""

    @property
    def launcher(self) -> Path:
        return self.home / "bin" / "pulsar"

    @property
    def label(self) -> str:
        """The version as shown in headers and verdicts: an assembled runtime says so, with its substitutions."""
        if self.origin == "assembled":
            return pulsar_assembly.label(self.version, dict(self.substitutions))
        if self.origin == "PULSAR_HA_PULSAR_HOME":
            return f"{self.version} (from ${PULSAR_HOME_ENV})"
        return self.version


def _validate_home(home: Path, origin: str) -> None:
    if not (home / "bin" / "pulsar").is_file() or not (home / "lib").is_dir():
        raise ProvisioningError(
            f"{home} (from {origin}) is not an unpacked Pulsar binary distribution: "
            "expected bin/pulsar and lib/ inside it."
        )


def _version_of(home: Path) -> str:
    jars = sorted((home / "lib").glob("org.apache.pulsar-pulsar-broker-common-*.jar"))
    if jars:
        return jars[0].name.removeprefix("org.apache.pulsar-pulsar-broker-common-").removesuffix(".jar")
    return "unknown"


def ensure_pulsar(
    version: str, cache_dir: Path, progress: Progress, substitutions: Mapping[str, str] | None = None
) -> PulsarDistribution:
    """Return a usable Pulsar install, fetching ``version`` into ``cache_dir`` if needed (once, under a lock): the
    binary distribution where Maven Central serves it, else a runtime assembled from the release's artifacts.
    ``substitutions`` (``group:artifact`` -> version) always assemble, with those dependencies pinned."""
    explicit = os.environ.get(PULSAR_HOME_ENV)
    if explicit:
        home = Path(explicit).expanduser()
        _validate_home(home, f"${PULSAR_HOME_ENV}")
        found = _version_of(home)
        return PulsarDistribution(home, found, find_java(required_java(found)), "PULSAR_HA_PULSAR_HOME")
    java = find_java(required_java(version))

    pins = pulsar_assembly.check_substitutions(substitutions or {})
    root = cache_dir / "pulsar"
    home = root / f"apache-pulsar-{version}"
    assembled = root / assembled_name(version, pins)
    if not pins and (home / _COMPLETE).exists():
        return PulsarDistribution(home, version, java)
    if _assembled_current(assembled, version, pins):
        return _assembled(assembled, version, java, pins)
    root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(root / f"{version}.lock"), timeout=3600):
        if not pins and (home / _COMPLETE).exists():  # another process fetched it while we waited
            return PulsarDistribution(home, version, java)
        if _assembled_current(assembled, version, pins):
            return _assembled(assembled, version, java, pins)
        locked = None if pins else read_lock("pulsar", version)
        if locked is not None:
            pulsar_assembly.assemble_locked(version, locked, assembled, cache_dir, progress)
            return _assembled(assembled, version, java, pins)
        tarball = None if pins else read_lock("distribution", version)
        if tarball is not None:
            _fetch_locked(version, tarball, cache_dir, root, home, progress)
            return PulsarDistribution(home, version, java)
        if not pins:
            try:
                _fetch(version, root, home, progress)
                return PulsarDistribution(home, version, java)
            except CommandFailed as failure:
                missing = pulsar_assembly.missing_artifacts(failure.output)
                if not any("pulsar-server-distribution" in artifact for artifact in missing):
                    raise
                progress(f"no binary distribution of Pulsar {version} is served; assembling it from Maven artifacts")
        pulsar_assembly.assemble(version, assembled, _mvn(version), progress, pins)
    return _assembled(assembled, version, java, pins)


def describe_runtime(version: str, cache_dir: Path, substitutions: Mapping[str, str] | None = None) -> str:
    """How ``version`` is (or will be) had, read from the cache alone (nothing is fetched): for report headers."""
    explicit = os.environ.get(PULSAR_HOME_ENV)
    if explicit:
        return f"{_version_of(Path(explicit).expanduser())} (from ${PULSAR_HOME_ENV})"
    pins = pulsar_assembly.check_substitutions(substitutions or {})
    root = cache_dir / "pulsar"
    if not pins and (root / f"apache-pulsar-{version}" / _COMPLETE).exists():
        return version
    if pulsar_assembly.read_marker(root / assembled_name(version, pins)) is not None or pins:
        return pulsar_assembly.label(version, pins)
    return f"{version} (not fetched yet)"


def assembled_name(version: str, substitutions: Mapping[str, str]) -> str:
    """The cache folder of an assembled runtime: one per version and set of substitutions."""
    if not substitutions:
        return f"assembled-pulsar-{version}"
    digest = hashlib.sha256(repr(sorted(substitutions.items())).encode()).hexdigest()[:10]
    return f"assembled-pulsar-{version}-substituted-{digest}"


def _assembled_current(home: Path, version: str, pins: Mapping[str, str]) -> bool:
    """Whether ``home`` is a complete assembly of ``version`` that is still what its lock says (a lock written
    again, e.g. with another jar, lays the runtime out again; one assembled by Maven has no lock to follow)."""
    marker = pulsar_assembly.read_marker(home)
    if marker is None:
        return False
    lock = None if pins else read_lock("pulsar", version)
    return lock is None or marker.get("lock") == pulsar_assembly.lock_digest(lock)


def _assembled(home: Path, version: str, java: Path, pins: Mapping[str, str]) -> PulsarDistribution:
    return PulsarDistribution(home, version, java, "assembled", tuple(sorted(pins.items())))


def _mvn(version: str) -> str:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise ProvisioningError(
            f"Maven (mvn) is needed to fetch Pulsar {version} from Maven Central and none is on PATH. "
            f"Install Maven (e.g. `apt-get install maven`), or set {PULSAR_HOME_ENV} to an unpacked "
            "Pulsar distribution."
        )
    return mvn


def _fetch_locked(
    version: str, lock: list[LockEntry], cache_dir: Path, root: Path, home: Path, progress: Progress
) -> None:
    """The binary distribution from its committed lock (one tarball, sha1-checked), unpacked into ``home``."""
    (tarball,) = fetch_locked(lock, cache_dir, progress, f"Pulsar {version} distribution").values()
    with tempfile.TemporaryDirectory(dir=root, prefix="download-") as tmp:
        _unpack(tarball, Path(tmp), home, progress)
    (home / _COMPLETE).write_text(version + "\n")
    progress(f"Pulsar {version} ready at {home}")


def _unpack(tarball: Path, tmp_dir: Path, home: Path, progress: Progress) -> None:
    progress(f"unpacking {tarball.name}")
    unpack = tmp_dir / "unpacked"
    with tarfile.open(tarball) as archive:
        archive.extractall(unpack, filter="tar")
    (top,) = unpack.iterdir()
    _validate_home(top, "the downloaded archive")
    if home.exists():
        shutil.rmtree(home)  # a partial unpack of an earlier, interrupted run
    top.rename(home)


def _fetch(version: str, root: Path, home: Path, progress: Progress) -> None:
    mvn = _mvn(version)
    progress(f"fetching Pulsar {version} (about 250 MB) into {root}")
    with tempfile.TemporaryDirectory(dir=root, prefix="download-") as tmp:
        tmp_dir = Path(tmp)
        run_with_progress(
            [
                mvn,
                "--strict-checksums",
                "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy",
                f"-Dartifact={ARTIFACT.format(version=version)}",
                f"-DoutputDirectory={tmp_dir}",
            ],
            what=f"download Pulsar {version}",
            progress=progress,
            cwd=tmp_dir,
            hint=f"check that version {version} exists and that Maven can reach Maven Central "
            "(proxy settings in ~/.m2/settings.xml)",
        )
        (tarball,) = tmp_dir.glob("*.tar.gz")
        _unpack(tarball, tmp_dir, home, progress)
    (home / _COMPLETE).write_text(version + "\n")
    progress(f"Pulsar {version} ready at {home}")
