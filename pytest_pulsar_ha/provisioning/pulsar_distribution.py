"""The Pulsar binary distribution: an existing install, or fetched once from Maven Central with Maven."""

from __future__ import annotations

import os
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning.cache import Progress
from pytest_pulsar_ha.provisioning.java import find_java
from pytest_pulsar_ha.provisioning.streaming import run_with_progress

# 4.0 is Pulsar's current LTS line; its broker runs on Java 17.
DEFAULT_PULSAR_VERSION = "4.0.8"
PULSAR_HOME_ENV = "PULSAR_HA_PULSAR_HOME"
ARTIFACT = "org.apache.pulsar:pulsar-server-distribution:{version}:tar.gz:bin"
_COMPLETE = ".pytest-pulsar-ha-complete"


@dataclass(frozen=True)
class PulsarDistribution:
    home: Path
    version: str
    java: Path

    @property
    def launcher(self) -> Path:
        return self.home / "bin" / "pulsar"


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


def ensure_pulsar(version: str, cache_dir: Path, progress: Progress) -> PulsarDistribution:
    """Return a usable Pulsar install, fetching ``version`` into ``cache_dir`` if needed (once, under a lock)."""
    java = find_java()
    explicit = os.environ.get(PULSAR_HOME_ENV)
    if explicit:
        home = Path(explicit).expanduser()
        _validate_home(home, f"${PULSAR_HOME_ENV}")
        return PulsarDistribution(home, _version_of(home), java)

    root = cache_dir / "pulsar"
    home = root / f"apache-pulsar-{version}"
    if (home / _COMPLETE).exists():
        return PulsarDistribution(home, version, java)
    root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(root / f"{version}.lock"), timeout=3600):
        if (home / _COMPLETE).exists():  # another process fetched it while we waited
            return PulsarDistribution(home, version, java)
        _fetch(version, root, home, progress)
    return PulsarDistribution(home, version, java)


def _fetch(version: str, root: Path, home: Path, progress: Progress) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise ProvisioningError(
            f"Maven (mvn) is needed to fetch Pulsar {version} from Maven Central and none is on PATH. "
            f"Install Maven (e.g. `apt-get install maven`), or set {PULSAR_HOME_ENV} to an unpacked "
            "Pulsar distribution."
        )
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
        progress(f"unpacking {tarball.name}")
        unpack = tmp_dir / "unpacked"
        with tarfile.open(tarball) as archive:
            archive.extractall(unpack, filter="tar")
        (top,) = unpack.iterdir()
        _validate_home(top, "the downloaded archive")
        if home.exists():
            shutil.rmtree(home)  # a partial unpack of an earlier, interrupted run
        top.rename(home)
    (home / _COMPLETE).write_text(version + "\n")
    progress(f"Pulsar {version} ready at {home}")
