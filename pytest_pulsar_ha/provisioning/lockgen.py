"""Write a lock file (:mod:`pytest_pulsar_ha.provisioning.maven_lock`): a maintainer's tool, run by hand when a
version is added, never at run time nor in CI (it needs ``mvn``; what it writes is committed)::

    python -m pytest_pulsar_ha.provisioning.lockgen pulsar 4.2.4        # locks/pulsar-4.2.4.lock
    python -m pytest_pulsar_ha.provisioning.lockgen java-driver 4.2.4   # locks/java-driver-4.2.4.lock
    python -m pytest_pulsar_ha.provisioning.lockgen distribution 4.0.8  # locks/distribution-4.0.8.lock
    python -m pytest_pulsar_ha.provisioning.lockgen pulsar 5.0.1 --resolver metadata \
        --platform io.netty:netty-bom:4.2.19.Final --allow-missing \
        --exclude org.apache.bookkeeper.tests:stream-storage-tests-common  # no Maven (see lock_published)
    python -m pytest_pulsar_ha.provisioning.lockgen java-driver 5.0.1 --resolver metadata \
        --platform io.netty:netty-bom:4.2.19.Final --allow-missing  # on pulsar-client-original

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
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

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


def _served_entry(coordinate: Coordinate) -> LockEntry | None:
    import urllib.error

    from pytest_pulsar_ha.provisioning.metadata_resolve import not_served

    try:
        return remote_entry(coordinate)
    except urllib.error.URLError as exc:
        if not_served(exc):
            return None
        raise


def lock_published(
    kind: str, version: str, exclude: Sequence[str] = (), allow_missing: bool = False, platforms: Sequence[str] = ()
) -> tuple[list[LockEntry], str]:
    """``pulsar`` or ``java-driver`` for a release built with Gradle (5.x), whose dependencies' parent poms are not
    all served, so Maven cannot resolve it: the runtime classpath read from the published metadata
    (:mod:`pytest_pulsar_ha.provisioning.metadata_resolve`), each jar's entry from the repository's ``.sha1``.
    ``pulsar``: of ``pulsar-broker``; ``java-driver``: of the driver pom's dependencies, with
    ``pulsar-client-original`` (the same client, its dependencies not shaded) where the shaded ``pulsar-client``
    is not served."""
    from concurrent.futures import ThreadPoolExecutor

    from pytest_pulsar_ha.provisioning.metadata_resolve import Dependency, Resolver, http_fetch

    left_out = frozenset((g, a) for g, _, a in (e.partition(":") for e in exclude))
    keep = os.environ.get("PULSAR_HA_LOCKGEN_KEEP")  # a folder that keeps the poms between tries (a maintainer's)
    fetch = http_fetch(repository_url(), Path(keep) if keep else None)
    aligned = [Dependency(g, a, v, platform=True) for g, a, v in (p.split(":") for p in platforms)]
    if kind == "pulsar":
        roots = [Dependency("org.apache.pulsar", "pulsar-broker", version)]
        what = f"Pulsar {version}: the lib/ of a runtime assembled from Maven artifacts (the runtime classpath of"
    else:
        roots = _driver_roots(version, fetch)
        what = f"The Java client driver's runtime classpath for pulsar-client {version} (of"
    found = Resolver(fetch).resolve([*roots, *aligned], left_out)
    with ThreadPoolExecutor(8) as pool:
        entries = [e for e in pool.map(_served_entry, found.artifacts) if isinstance(e, LockEntry)]
    missing = sorted(set(map(str, found.artifacts)) - {str(e.coordinate) for e in entries})
    if missing and not allow_missing:
        raise ProvisioningError(f"not served (a jar or its .sha1): {', '.join(missing)} (--allow-missing: leave out)")
    stand_ins = "".join(f"\n  {p} (not served) read as {v}" for p, v in sorted(found.substituted_parents.items()))
    excludes = " ".join(sorted(exclude))
    header = (
        f"{what} {', '.join(f'{r.group}:{r.artifact}:{r.version}' for r in roots)} as Gradle resolves it from the "
        "published metadata: .module where published, else the pom; the highest version requested wins).\n"
        + (f"parent poms read in place of ones not served:{stand_ins}\n" if stand_ins else "")
        + "".join(f"aligned to the platform {p} (as the release's build aligns them)\n" for p in platforms)
        + (f"left out: {excludes}\n" if excludes else "")
        + "".join(f"not served here, left out: {m}\n" for m in missing)
        + "group:artifact:version[:classifier][@extension] sha1 size\n"
        f"written by: python -m pytest_pulsar_ha.provisioning.lockgen {kind} {version} --resolver metadata"
        + "".join(f" --platform {p}" for p in platforms)
        + "".join(f" --exclude {e}" for e in sorted(exclude))
        + (" --allow-missing" if allow_missing else "")
    )
    return entries, header


def _driver_roots(version: str, fetch: Callable[[str], bytes | None]) -> list[Any]:
    """The driver pom's dependencies at ``version`` of pulsar-client (``pulsar-client-original`` where the shaded
    client is not served)."""
    import xml.etree.ElementTree as ElementTree

    from pytest_pulsar_ha.provisioning.java_driver import DRIVER_SOURCES
    from pytest_pulsar_ha.provisioning.metadata_resolve import Dependency

    pom = ElementTree.parse(DRIVER_SOURCES / "pom.xml").getroot()
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    properties = {e.tag.split("}")[-1]: e.text or "" for e in pom.findall("m:properties/*", ns)}
    properties["pulsar.client.version"] = version
    roots = []
    for dep in pom.findall("m:dependencies/m:dependency", ns):
        group, artifact, pinned = (dep.findtext(f"m:{n}", "", ns) for n in ("groupId", "artifactId", "version"))
        pinned = re.sub(r"\$\{([^}]+)\}", lambda m: properties[m.group(1)], pinned)
        shaded = Coordinate(group, artifact, pinned, "", "pom").path
        if (group, artifact) == ("org.apache.pulsar", "pulsar-client") and fetch(shaded) is None:
            artifact = "pulsar-client-original"
        roots.append(Dependency(group, artifact, pinned))
    return roots


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
    parser.add_argument(
        "--resolver",
        choices=("maven", "metadata"),
        default="maven",
        help="resolve with mvn (default), or from the published metadata without Maven (5.x)",
    )
    parser.add_argument(
        "--exclude", action="append", default=[], help="with --resolver metadata: group:artifact to leave out"
    )
    parser.add_argument(
        "--platform",
        action="append",
        default=[],
        help="with --resolver metadata: group:artifact:version of a BOM whose versions take part (Gradle's platform)",
    )
    parser.add_argument(
        "--allow-missing",
        action="store_true",
        help="with --resolver metadata: leave out a resolved jar that is not served, naming it in the header",
    )
    args = parser.parse_args(argv)
    try:
        if args.resolver == "metadata":
            if args.kind == "distribution":
                raise ProvisioningError("--resolver metadata resolves the pulsar and java-driver kinds only")
            entries, header = lock_published(args.kind, args.version, args.exclude, args.allow_missing, args.platform)
        else:
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
