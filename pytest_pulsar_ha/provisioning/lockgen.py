"""Write a lock file (:mod:`pytest_pulsar_ha.provisioning.maven_lock`): a maintainer's tool, run by hand when a
version is added, never at run time nor in CI (it needs ``mvn``; what it writes is committed)::

    python -m pytest_pulsar_ha.provisioning.lockgen pulsar 4.2.4        # locks/pulsar-4.2.4.lock
    python -m pytest_pulsar_ha.provisioning.lockgen java-driver 4.2.4   # locks/java-driver-4.2.4.lock
    python -m pytest_pulsar_ha.provisioning.lockgen distribution 4.0.8  # locks/distribution-4.0.8.lock

``pulsar``: what Maven resolves for ``org.apache.pulsar:pulsar-broker`` with Pulsar's parent pom imported as a BOM
(the assembly of :mod:`pytest_pulsar_ha.provisioning.pulsar_assembly`); ``java-driver``: the runtime classpath of
the Java client driver's pom for that pulsar-client version. Maven resolves and fetches with
``--strict-checksums`` (each file checked against the repository's own sha1); the lock takes each file's sha1 and
size from the file itself. ``distribution``: the binary distribution's tarball, its sha1 as the repository
publishes it (no Maven needed).
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning.maven_lock import (
    LOCKS,
    Coordinate,
    LockEntry,
    format_lock,
    lock_file,
    parse_lock,
    repository_url,
)

DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
# group:artifact:type[:classifier]:version:scope:/absolute/path[ -- module ...]
_RESOLVED = re.compile(r"^\s*([\w.\-]+):([\w.\-]+):([\w.\-]+):(?:([\w.\-]+):)?([\w.\-]+):(\w+):(/\S+)")


def parse_resolved(text: str) -> list[tuple[Coordinate, Path]]:
    """The artifacts of ``mvn dependency:list -DoutputAbsoluteArtifactFilename=true`` with their local files."""
    found = []
    for line in text.splitlines():
        match = _RESOLVED.match(line)
        if match is None:
            continue
        group, artifact, kind, classifier, version, _scope, path = match.groups()
        extension = "jar" if kind in ("jar", "bundle", "test-jar") else kind
        found.append((Coordinate(group, artifact, version, classifier or "", extension), Path(path)))
    return found


def entry_of(coordinate: Coordinate, path: Path) -> LockEntry:
    data = path.read_bytes()
    return LockEntry(coordinate, hashlib.sha1(data, usedforsecurity=False).hexdigest(), len(data))


def resolve(pom_dir: Path, properties: Sequence[str] = ()) -> list[LockEntry]:
    """The runtime artifacts Maven resolves for the project in ``pom_dir``."""
    mvn = shutil.which("mvn")
    if mvn is None:
        raise ProvisioningError("writing a lock needs Maven (mvn) on PATH; running from a lock does not")
    listing = pom_dir / "resolved.txt"
    command = [
        mvn,
        "-B",
        "-Dstyle.color=never",
        "--strict-checksums",
        f"{DEPENDENCY_PLUGIN}:list",
        "-DincludeScope=runtime",
        "-DoutputAbsoluteArtifactFilename=true",
        f"-DoutputFile={listing}",
        *properties,
    ]
    done = subprocess.run(command, cwd=pom_dir, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ProvisioningError(f"mvn could not resolve {pom_dir / 'pom.xml'}:\n{done.stdout[-4000:]}")
    return [entry_of(c, p) for c, p in parse_resolved(listing.read_text())]


def lock_pulsar(version: str) -> tuple[list[LockEntry], str]:
    from pytest_pulsar_ha.provisioning.pulsar_assembly import assembly_pom

    with tempfile.TemporaryDirectory(prefix="lockgen-") as tmp:
        (Path(tmp) / "pom.xml").write_text(assembly_pom(version))
        entries = resolve(Path(tmp))
    header = (
        f"Pulsar {version}: the lib/ of a runtime assembled from Maven artifacts (org.apache.pulsar:pulsar-broker:"
        f"{version} and its runtime dependencies, Pulsar's parent pom imported as a BOM).\n"
        "group:artifact:version[:classifier][@extension] sha1 size\n"
        f"written by: python -m pytest_pulsar_ha.provisioning.lockgen pulsar {version}"
    )
    return entries, header


def lock_java_driver(version: str) -> tuple[list[LockEntry], str]:
    from pytest_pulsar_ha.provisioning.java_driver import DRIVER_SOURCES

    with tempfile.TemporaryDirectory(prefix="lockgen-") as tmp:
        shutil.copy2(DRIVER_SOURCES / "pom.xml", Path(tmp) / "pom.xml")
        entries = resolve(Path(tmp), [f"-Dpulsar.client.version={version}"])
    header = (
        f"The Java client driver's runtime classpath for org.apache.pulsar:pulsar-client:{version} (its pom's "
        "runtime dependencies).\ngroup:artifact:version[:classifier][@extension] sha1 size\n"
        f"written by: python -m pytest_pulsar_ha.provisioning.lockgen java-driver {version}"
    )
    return entries, header


def remote_entry(coordinate: Coordinate, base: str | None = None) -> LockEntry:
    """An artifact's entry from the repository alone: its published ``.sha1`` and its size (a HEAD request)."""
    import urllib.request

    url = f"{(base or repository_url()).rstrip('/')}/{coordinate.path}"
    with urllib.request.urlopen(f"{url}.sha1", timeout=60) as response:
        sha1 = response.read().decode().split()[0].strip().lower()
    with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=60) as response:
        size = int(response.headers["Content-Length"])
    return LockEntry(coordinate, sha1, size)


def lock_distribution(version: str) -> tuple[list[LockEntry], str]:
    coordinate = Coordinate("org.apache.pulsar", "pulsar-server-distribution", version, "bin", "tar.gz")
    header = (
        f"Pulsar {version}: the binary distribution (its published sha1; the size from the repository).\n"
        f"written by: python -m pytest_pulsar_ha.provisioning.lockgen distribution {version}"
    )
    return [remote_entry(coordinate)], header


KINDS = {"pulsar": lock_pulsar, "java-driver": lock_java_driver, "distribution": lock_distribution}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pytest_pulsar_ha.provisioning.lockgen", description=__doc__)
    parser.add_argument("kind", choices=sorted(KINDS))
    parser.add_argument("version")
    parser.add_argument("--locks", type=Path, default=LOCKS, help="the folder to write into (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        entries, header = KINDS[args.kind](args.version)
    except ProvisioningError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = format_lock(entries, header)
    parse_lock(text)  # what it wrote reads back
    path = lock_file(args.kind, args.version, args.locks)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    size = sum(e.size for e in entries)
    print(f"{path}: {len(entries)} artifacts, {size / 1e6:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
