"""Lock files: the exact Maven artifacts of a runtime or a tool, each with its sha1 and size, so that nothing is
resolved at run time (no ``mvn``): the files are fetched by the repository layout and checked
(:mod:`pytest_pulsar_ha.provisioning.maven_fetch`).

One artifact a line, ``group:artifact:version[:classifier][@extension] sha1 size``, ``#`` for comments; the
extension is ``jar`` unless given. The committed locks live in ``locks/`` beside this module (package data):
``pulsar-<version>.lock`` (the ``lib/`` of a runtime assembled from Maven artifacts) and
``java-driver-<version>.lock`` (the Java client driver's runtime classpath for pulsar-client ``<version>``).
``python -m pytest_pulsar_ha.provisioning.lockgen`` writes them (:mod:`pytest_pulsar_ha.provisioning.lockgen`).
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

from pytest_pulsar_ha.errors import ProvisioningError

LOCKS = Path(__file__).resolve().parent / "locks"
REPOSITORY_ENV = "PULSAR_HA_MAVEN_REPOSITORY"
_LINE = re.compile(r"^(?P<coordinate>[^\s#]+)\s+(?P<sha1>[0-9a-f]{40})\s+(?P<size>\d+)$")
_PART = re.compile(r"^[\w.\-]+$")


@dataclass(frozen=True, order=True)
class Coordinate:
    """A Maven artifact: ``group:artifact:version[:classifier][@extension]``."""

    group: str
    artifact: str
    version: str
    classifier: str = ""
    extension: str = "jar"

    @classmethod
    def parse(cls, text: str) -> Coordinate:
        body, _, extension = text.partition("@")
        parts = body.split(":")
        if (
            len(parts) not in (3, 4)
            or not all(_PART.match(p) for p in parts)
            or (extension and not _PART.match(extension))
        ):
            raise ValueError(f"{text!r} is not group:artifact:version[:classifier][@extension]")
        group, artifact, version = parts[:3]
        return cls(group, artifact, version, parts[3] if len(parts) == 4 else "", extension or "jar")

    def __str__(self) -> str:
        text = f"{self.group}:{self.artifact}:{self.version}"
        text += f":{self.classifier}" if self.classifier else ""
        return text + (f"@{self.extension}" if self.extension != "jar" else "")

    @property
    def file_name(self) -> str:
        """The file's name in the repository: ``artifact-version[-classifier].extension``."""
        classifier = f"-{self.classifier}" if self.classifier else ""
        return f"{self.artifact}-{self.version}{classifier}.{self.extension}"

    @property
    def path(self) -> str:
        """The file's path below a repository's root (the standard layout)."""
        return f"{self.group.replace('.', '/')}/{self.artifact}/{self.version}/{self.file_name}"

    @property
    def lib_name(self) -> str:
        """Its name in an assembled ``lib/``: Maven's ``copy-dependencies -Dmdep.prependGroupId`` name."""
        return f"{self.group}.{self.file_name}"


@dataclass(frozen=True)
class LockEntry:
    coordinate: Coordinate
    sha1: str
    size: int

    def line(self) -> str:
        return f"{self.coordinate} {self.sha1} {self.size}"


def parse_lock(text: str, source: str = "lock") -> list[LockEntry]:
    """The entries of a lock file's text; raises :class:`ProvisioningError` naming a bad line."""
    entries: list[LockEntry] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = _LINE.match(line)
        try:
            if match is None:
                raise ValueError("expected 'group:artifact:version[:classifier] sha1 size'")
            coordinate = Coordinate.parse(match["coordinate"])
        except ValueError as exc:
            raise ProvisioningError(f"{source}, line {number}: {exc}: {raw!r}") from None
        entries.append(LockEntry(coordinate, match["sha1"], int(match["size"])))
    names = [e.coordinate.lib_name for e in entries]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ProvisioningError(f"{source}: an artifact is listed twice: {', '.join(twice)}")
    return entries


def format_lock(entries: list[LockEntry], header: str) -> str:
    """A lock file's text: ``header`` as comments, then the entries sorted by coordinate."""
    comments = "".join(f"# {line}".rstrip() + "\n" for line in header.splitlines())
    return comments + "".join(e.line() + "\n" for e in sorted(entries, key=lambda e: e.coordinate))


def lock_file(kind: str, version: str, locks: Path | None = None) -> Path:
    """The committed lock of ``kind`` (``pulsar``, ``distribution``, ``java-driver``) at ``version`` (it may not
    exist); ``locks`` defaults to :data:`LOCKS`, read at each call."""
    return (locks or LOCKS) / f"{kind}-{version}.lock"


def read_lock(kind: str, version: str, locks: Path | None = None) -> list[LockEntry] | None:
    """The entries of the committed lock, or None when ``version`` has none."""
    path = lock_file(kind, version, locks)
    if not path.is_file():
        return None
    return parse_lock(path.read_text(), str(path))


def locked_versions(kind: str, locks: Path | None = None) -> list[str]:
    found = (locks or LOCKS).glob(f"{kind}-*.lock")
    return sorted(p.name.removeprefix(f"{kind}-").removesuffix(".lock") for p in found)


def repository_url() -> str:
    """The Maven repository artifacts are fetched from: ``$PULSAR_HA_MAVEN_REPOSITORY``, else the mirror of central
    in ``~/.m2/settings.xml`` (as Maven itself would use), else Maven Central as the Python Maven client jgo
    defines it (this project names no repository host of its own)."""
    explicit = os.environ.get(REPOSITORY_ENV)
    if explicit:
        return explicit.rstrip("/")
    mirror = settings_mirror(Path.home() / ".m2" / "settings.xml")
    if mirror:
        return mirror.rstrip("/")
    from jgo.constants import MAVEN_CENTRAL_URL  # a constant; jgo's own machinery is not used

    return str(MAVEN_CENTRAL_URL).rstrip("/")


def settings_mirror(settings: Path) -> str | None:
    """The URL of a Maven settings file's mirror of ``central`` (``mirrorOf`` ``central``, ``*`` or
    ``external:*``), or None."""
    try:
        root = ElementTree.parse(settings).getroot()
    except (OSError, ElementTree.ParseError):
        return None
    for element in root.iter():
        if not element.tag.endswith("mirror"):
            continue
        fields = {child.tag.rsplit("}", 1)[-1]: (child.text or "").strip() for child in element}
        targets = {t.strip() for t in fields.get("mirrorOf", "").split(",")}
        if targets & {"central", "*", "external:*"} and fields.get("url"):
            return fields["url"]
    return None
