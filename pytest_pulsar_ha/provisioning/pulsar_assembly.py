"""A Pulsar runtime assembled from Maven artifacts, for a release whose binary distribution is not served.

``org.apache.pulsar:pulsar-broker:<version>`` with Pulsar's own parent pom imported as a BOM (without it Maven's
nearest-wins mixes library versions and the broker dies at start), its runtime dependencies copied into ``lib/``
with the distribution's jar names, this package's launcher as ``bin/pulsar`` (the same main classes and JVM
options as the distribution's script, for the subcommands the harness uses) and its own conf templates and log
configuration (``assembled/``). The result has the distribution's layout, so every backend runs it unchanged.

A version with a committed lock (``locks/pulsar-<version>.lock``, :mod:`pytest_pulsar_ha.provisioning.maven_lock`)
is laid out from it with no Maven at all (:func:`assemble_locked`); Maven resolves (:func:`assemble`) only a
version without a lock, or one with substitutions.

A dependency that is not served can be pinned to another version (``substitutions``, ``group:artifact`` to a
version, declared before the BOM so that it wins); such a runtime is labelled with each substitution and never
passed off as the release. A version that cannot be assembled fails here, naming the missing artifact and the
dependency chain that needs it.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from xml.sax.saxutils import escape

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning.cache import Progress
from pytest_pulsar_ha.provisioning.maven_fetch import fetch_locked, install
from pytest_pulsar_ha.provisioning.maven_lock import LockEntry
from pytest_pulsar_ha.provisioning.streaming import CommandFailed, run_with_progress

TEMPLATES = Path(__file__).resolve().parent / "assembled"
"""The launcher (``pulsar``), the conf templates and ``log4j2.xml`` shipped with the package."""
CONF_FILES = ("standalone.conf", "broker.conf", "bookkeeper.conf", "log4j2.xml")
MARKER = ".pytest-pulsar-ha-complete"
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"

_NOT_FOUND = (
    re.compile(r"Could not find artifact (\S+)"),
    re.compile(r"(\S+:\S+:\S+) was not found in \S+"),
    re.compile(r"The following artifacts could not be resolved: ([^:]+:[^:]+:[^:,]+:[^,:\s]+)"),
)
_CHAIN = re.compile(r"Failed to collect dependencies at (.+?): (?:Failed|Could not)")
_COORDINATE = re.compile(r"^[\w.\-]+:[\w.\-]+$")


def check_substitutions(substitutions: Mapping[str, str]) -> dict[str, str]:
    """``group:artifact`` -> version, each checked; raises :class:`ProvisioningError` naming a bad entry."""
    for coordinate, version in substitutions.items():
        if not _COORDINATE.match(coordinate) or not re.match(r"^[\w.\-]+$", version):
            raise ProvisioningError(
                f"substitution {coordinate}={version!r}: expected group:artifact=version, e.g. "
                "org.apache.bookkeeper:bookkeeper-server=4.18.0"
            )
    return dict(sorted(substitutions.items()))


def assembly_pom(version: str, substitutions: Mapping[str, str] | None = None) -> str:
    """The Maven project whose runtime dependencies are the assembled Pulsar ``version``."""
    pinned = ""
    for coordinate, pin in check_substitutions(substitutions or {}).items():
        group, artifact = coordinate.split(":")
        pinned += (
            f"      <dependency><groupId>{escape(group)}</groupId><artifactId>{escape(artifact)}</artifactId>"
            f"<version>{escape(pin)}</version></dependency>\n"
        )
    v = escape(version)
    return f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>io.pulsarha</groupId>
  <artifactId>assembled-pulsar</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencyManagement>
    <dependencies>
{pinned}      <dependency>
        <groupId>org.apache.pulsar</groupId>
        <artifactId>pulsar</artifactId>
        <version>{v}</version>
        <type>pom</type>
        <scope>import</scope>
      </dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <dependency>
      <groupId>org.apache.pulsar</groupId>
      <artifactId>pulsar-broker</artifactId>
      <version>{v}</version>
    </dependency>
  </dependencies>
</project>
"""


def missing_artifacts(maven_output: str) -> list[str]:
    """The artifacts Maven says it could not find, in the order it names them (no repeats)."""
    found: list[str] = []
    for pattern in _NOT_FOUND:
        for match in pattern.finditer(maven_output):
            coordinate = match.group(1).rstrip(".,;")
            if coordinate not in found:
                found.append(coordinate)
    return found


def dependency_chain(maven_output: str) -> str | None:
    """The path Maven printed from pulsar-broker to the artifact it could not resolve."""
    match = _CHAIN.search(maven_output)
    return match.group(1) if match else None


def label(version: str, substitutions: Mapping[str, str]) -> str:
    """How an assembled runtime is named wherever it is shown."""
    if not substitutions:
        return f"{version} (assembled from Maven artifacts)"
    pins = ", ".join(f"{coordinate} {pin}" for coordinate, pin in sorted(substitutions.items()))
    return f"{version} (assembled from Maven artifacts; NOT the release: substituted {pins})"


def lock_digest(lock: list[LockEntry]) -> str:
    """What an assembled home's marker records of the lock it was laid out from."""
    return hashlib.sha256("".join(e.line() + "\n" for e in lock).encode()).hexdigest()[:16]


def read_marker(home: Path) -> dict[str, object] | None:
    """What an assembled home says of itself, or None when it is not complete."""
    try:
        data = json.loads((home / MARKER).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("origin") == "assembled" else None


def assemble(
    version: str, home: Path, mvn: str, progress: Progress, substitutions: Mapping[str, str] | None = None
) -> None:
    """Resolve and lay out the runtime in ``home`` (replaced whole; written under a temporary name first)."""
    pins = check_substitutions(substitutions or {})
    home.parent.mkdir(parents=True, exist_ok=True)
    progress(f"assembling Pulsar {version} from Maven artifacts (pulsar-broker and its runtime dependencies)")
    with tempfile.TemporaryDirectory(dir=home.parent, prefix="assemble-") as tmp:
        build = Path(tmp)
        (build / "pom.xml").write_text(assembly_pom(version, pins))
        staging = build / "home"
        try:
            run_with_progress(
                [
                    mvn,
                    "-B",  # batch mode, no colours: Maven's words reach the error as they are, no escape codes
                    "-Dstyle.color=never",
                    "--strict-checksums",
                    f"{DEPENDENCY_PLUGIN}:copy-dependencies",
                    "-DincludeScope=runtime",
                    "-Dmdep.prependGroupId=true",
                    f"-DoutputDirectory={staging / 'lib'}",
                ],
                what=f"assemble Pulsar {version}",
                progress=progress,
                cwd=build,
                hint=f"every artifact of org.apache.pulsar:pulsar-broker:{version} must be served by Maven Central "
                "(or your mirror)",
            )
        except CommandFailed as failure:
            raise _unassemblable(version, failure) from None
        (staging / "pom.xml").write_text(assembly_pom(version, pins))  # what it was assembled from
        jars = _lay_out(staging, home, version, pins, {})
    progress(f"Pulsar {label(version, pins)} ready at {home} ({jars} jars)")


def assemble_locked(version: str, lock: list[LockEntry], home: Path, cache_dir: Path, progress: Progress) -> None:
    """Lay out the runtime in ``home`` from the committed lock of ``version`` (no Maven: each jar fetched by the
    repository layout and checked against the lock's sha1 and size)."""
    home.parent.mkdir(parents=True, exist_ok=True)
    size = sum(e.size for e in lock)
    progress(f"assembling Pulsar {version} from its lock ({len(lock)} jars, {size / 1e6:.0f} MB)")
    paths = fetch_locked(lock, cache_dir, progress, f"Pulsar {version}")
    with tempfile.TemporaryDirectory(dir=home.parent, prefix="assemble-") as tmp:
        staging = Path(tmp) / "home"
        install(paths, staging / "lib", lambda entry: entry.coordinate.lib_name)
        jars = _lay_out(staging, home, version, {}, {"lock": lock_digest(lock)})
    progress(f"Pulsar {label(version, {})} ready at {home} ({jars} jars)")


def _lay_out(staging: Path, home: Path, version: str, pins: Mapping[str, str], extra: dict[str, str]) -> int:
    """The launcher, conf and marker beside ``staging/lib``; then ``staging`` becomes ``home``. The jar count."""
    (staging / "bin").mkdir()
    shutil.copy2(TEMPLATES / "pulsar", staging / "bin" / "pulsar")
    (staging / "bin" / "pulsar").chmod(0o755)
    (staging / "conf").mkdir()
    for name in CONF_FILES:
        shutil.copy2(TEMPLATES / name, staging / "conf" / name)
    jars = len(list((staging / "lib").glob("*.jar")))
    marker = {"origin": "assembled", "version": version, "substitutions": dict(pins), "jars": jars, **extra}
    (staging / MARKER).write_text(json.dumps(marker, indent=2) + "\n")
    if home.exists():
        shutil.rmtree(home)  # an incomplete earlier attempt
    staging.rename(home)
    return jars


def _unassemblable(version: str, failure: CommandFailed) -> ProvisioningError:
    missing = missing_artifacts(failure.output)
    chain = dependency_chain(failure.output)
    if not missing:
        return ProvisioningError(f"Pulsar {version} could not be assembled from Maven artifacts:\n{failure}")
    lines = [
        f"Pulsar {version} cannot be assembled from Maven artifacts here: no binary distribution is served, and "
        f"Maven Central does not serve {', '.join(missing)}.",
    ]
    if chain:
        lines.append(f"needed by: {chain}")
    lines.append(
        "hint: use a version whose artifacts are all served (4.0.4, 4.0.6 and 4.0.8 as distributions, 4.2.4 "
        "assembled, were on this project's CI), point PULSAR_HA_PULSAR_HOME at an unpacked distribution, or pin "
        "the missing dependency to a served version with --pulsar-ha-pulsar-substitute group:artifact=version "
        "(the runtime is then labelled as not the release)"
    )
    return ProvisioningError("\n".join(lines))
