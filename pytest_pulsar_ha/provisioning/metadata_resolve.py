"""Resolve a runtime classpath from published metadata alone, as Gradle would, without Maven: a maintainer's tool
behind ``lockgen pulsar <version> --resolver metadata`` (:mod:`pytest_pulsar_ha.provisioning.lockgen`).

Pulsar 5 is built with Gradle: each of its modules publishes Gradle module metadata (``.module``) whose
``runtimeElements`` variant names every dependency with its version. Its dependencies are read from their
``.module`` where published, else from their pom (parent chain, properties, ``dependencyManagement`` and imported
BOMs, compile and runtime scope, exclusions, optional ones left out). A module requested at several versions gets
the highest (Gradle's conflict resolution), a ``strictly`` version wins, and constraints (a platform's, a module's
``dependencyConstraints``) take part only for a module that is in the graph anyway.

A parent pom that is not served (BookKeeper 4.18.2's, ZooKeeper 3.9.6's) is replaced by the newest served version
of that parent below it; every such replacement is reported (:attr:`Resolution.substituted_parents`) and written
into the lock's header. Only the parent's ``dependencyManagement`` and properties are taken from it, so its effect
is limited to dependencies whose versions the child pom leaves unsaid.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.provisioning.maven_lock import Coordinate

Fetch = Callable[[str], bytes | None]
"""A file below the repository's root by its path, or None when the repository does not serve it."""

GA = tuple[str, str]
_NS = re.compile(r"^\{[^}]*\}")
_PROPERTY = re.compile(r"\$\{([^}]+)\}")
_RUNTIME_SCOPES = ("", "compile", "runtime")


def http_fetch(base: str, keep: Path | None = None) -> Fetch:
    """Fetch below ``base`` with urllib, memoised (and kept as files under ``keep`` when given); a 404 is None."""
    memo: dict[str, bytes | None] = {}

    def fetch(path: str) -> bytes | None:
        if path in memo:
            return memo[path]
        kept = keep / path if keep is not None else None
        if kept is not None and kept.is_file():
            memo[path] = kept.read_bytes()
        elif kept is not None and kept.with_name(kept.name + ".404").is_file():
            memo[path] = None
        else:
            try:
                with urllib.request.urlopen(f"{base.rstrip('/')}/{path}", timeout=60) as response:
                    memo[path] = response.read()
            except urllib.error.URLError as exc:
                if not not_served(exc):
                    raise
                memo[path] = None
            if kept is not None:
                kept.parent.mkdir(parents=True, exist_ok=True)
                data = memo[path]
                if data is None:
                    kept.with_name(kept.name + ".404").touch()
                else:
                    kept.write_bytes(data)
        return memo[path]

    return fetch


def not_served(error: urllib.error.URLError) -> bool:
    """A 404, or a missing file of a ``file://`` repository."""
    if isinstance(error, urllib.error.HTTPError):
        return error.code == 404
    return isinstance(error.reason, FileNotFoundError)


def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """An ordering of versions close to Gradle's: numeric parts numerically, a release above its qualifiers
    (``1.0-rc1`` < ``1.0`` = ``1.0.Final`` < ``1.0.1``)."""
    parts: list[tuple[int, int | str]] = []
    for token in re.findall(r"\d+|[A-Za-z]+", version):
        if token.isdigit():
            parts.append((2, int(token)))
        elif token.lower() in ("final", "ga", "release", "jre"):
            continue
        else:
            parts.append((0, token.lower()))
    parts.append((1, ""))  # a release sorts above a pre-release that has a qualifier at the same place
    return tuple(parts)


@dataclass(frozen=True)
class Dependency:
    group: str
    artifact: str
    version: str
    classifier: str = ""
    extension: str = "jar"
    excludes: frozenset[GA] = frozenset()
    strict: bool = False
    platform: bool = False


@dataclass(frozen=True)
class Managed:
    """A pom's ``dependencyManagement`` entry."""

    version: str
    scope: str
    excludes: frozenset[GA]


@dataclass
class Module:
    """What one module contributes: its artifacts (none for a pom or a platform), dependencies and constraints."""

    files: list[tuple[str, str]] = field(default_factory=list)  # (classifier, extension) of the module itself
    dependencies: list[Dependency] = field(default_factory=list)
    constraints: list[Dependency] = field(default_factory=list)
    managed: list[Dependency] = field(default_factory=list)
    """a pom's ``dependencyManagement``: constraints where the pom is taken as a platform (a BOM)"""


@dataclass
class Resolution:
    artifacts: list[Coordinate]
    substituted_parents: dict[str, str]
    """``group:artifact:version`` of a parent pom that is not served -> the served version read in its place"""


def _local(tag: str) -> str:
    return _NS.sub("", tag)


def _child(element: ElementTree.Element, name: str) -> ElementTree.Element | None:
    for child in element:
        if _local(child.tag) == name:
            return child
    return None


def _text(element: ElementTree.Element | None, name: str, default: str = "") -> str:
    found = _child(element, name) if element is not None else None
    return (found.text or "").strip() if found is not None and found.text else default


class Resolver:
    def __init__(self, fetch: Fetch) -> None:
        self.fetch = fetch
        self.substituted_parents: dict[str, str] = {}
        self._modules: dict[tuple[str, str, str], Module] = {}

    # --- reading metadata -------------------------------------------------------------------------------------
    def module(self, group: str, artifact: str, version: str) -> Module:
        key = (group, artifact, version)
        if key not in self._modules:
            base = f"{group.replace('.', '/')}/{artifact}/{version}/{artifact}-{version}"
            gradle = self.fetch(f"{base}.module")
            self._modules[key] = self._from_gradle(json.loads(gradle), base) if gradle else self._from_pom(*key)
        return self._modules[key]

    def _from_gradle(self, data: dict[str, Any], base: str) -> Module:
        variants = data.get("variants", [])
        runtime = [v for v in variants if v.get("attributes", {}).get("org.gradle.usage") == "java-runtime"]
        library = [v for v in runtime if v.get("attributes", {}).get("org.gradle.category", "library") == "library"]
        chosen = (library or runtime or variants or [{}])[0]
        if "available-at" in chosen:  # a Kotlin multiplatform root: the JVM variant is another module
            moved = chosen["available-at"]
            return Module(dependencies=[Dependency(moved["group"], moved["module"], moved["version"])])
        platform = chosen.get("attributes", {}).get("org.gradle.category") == "platform"
        module = Module()
        for entry in chosen.get("files", []):
            name = str(entry["url"])
            if not platform and name.endswith(".jar"):
                stem = base.rsplit("/", 1)[-1] + "-"  # artifact-version-
                classifier = name.removeprefix(stem).removesuffix(".jar") if name.startswith(stem) else ""
                module.files.append((classifier, "jar"))
        for entry in chosen.get("dependencies", []):
            module.dependencies.append(_gradle_dependency(entry))
        for entry in chosen.get("dependencyConstraints", []):
            if _gradle_version(entry):
                module.constraints.append(_gradle_dependency(entry))
        return module

    def _pom(self, group: str, artifact: str, version: str) -> ElementTree.Element | None:
        data = self.fetch(f"{group.replace('.', '/')}/{artifact}/{version}/{artifact}-{version}.pom")
        return ElementTree.fromstring(data) if data else None

    def _parent_pom(self, group: str, artifact: str, version: str) -> ElementTree.Element:
        found = self._pom(group, artifact, version)
        if found is not None:
            return found
        served = self._served_versions(group, artifact)
        older = [v for v in served if version_key(v) < version_key(version)]
        if not older:
            raise LookupError(f"parent pom {group}:{artifact}:{version} is not served, nor any older version")
        stand_in = max(older, key=version_key)
        self.substituted_parents[f"{group}:{artifact}:{version}"] = stand_in
        pom = self._pom(group, artifact, stand_in)
        if pom is None:
            raise LookupError(f"{group}:{artifact}:{stand_in} is listed as served but its pom is not")
        return pom

    def _served_versions(self, group: str, artifact: str) -> list[str]:
        data = self.fetch(f"{group.replace('.', '/')}/{artifact}/maven-metadata.xml")
        if not data:
            return []
        return [(v.text or "").strip() for v in ElementTree.fromstring(data).iter() if _local(v.tag) == "version"]

    def effective(
        self, group: str, artifact: str, version: str, parent: bool = False
    ) -> tuple[dict[str, str], dict[tuple[str, str, str], Managed], ElementTree.Element]:
        """A pom's properties, its dependency management ((group, artifact, classifier) -> version, scope,
        exclusions) and its element."""
        pom = self._parent_pom(group, artifact, version) if parent else self._pom(group, artifact, version)
        if pom is None:
            raise LookupError(f"{group}:{artifact}:{version} has neither a .module nor a pom")
        properties: dict[str, str] = {}
        managed: dict[tuple[str, str, str], Managed] = {}
        up = _child(pom, "parent")
        if up is not None:
            p_props, p_managed, _ = self.effective(
                _text(up, "groupId"), _text(up, "artifactId"), _text(up, "version"), parent=True
            )
            properties.update(p_props)
            managed.update(p_managed)
        own_group = _text(pom, "groupId") or _text(up, "groupId")
        own_version = _text(pom, "version") or _text(up, "version")
        properties.update(
            {
                "project.groupId": own_group,
                "project.version": own_version,
                "pom.version": own_version,
                "project.parent.version": _text(up, "version"),
                "project.artifactId": _text(pom, "artifactId"),
            }
        )
        block = _child(pom, "properties")
        for prop in block if block is not None else []:
            properties[_local(prop.tag)] = (prop.text or "").strip()
        management = _child(pom, "dependencyManagement")
        deps = _child(management, "dependencies") if management is not None else None
        for dep in deps if deps is not None else []:
            g, a, v = (_expand(_text(dep, n), properties) for n in ("groupId", "artifactId", "version"))
            if _text(dep, "scope") == "import":
                managed.update({k: w for k, w in self.effective(g, a, v)[1].items() if k not in managed})
            else:
                managed[(g, a, _expand(_text(dep, "classifier"), properties))] = Managed(
                    v, _text(dep, "scope"), _exclusions(dep)
                )
        return properties, managed, pom

    def _from_pom(self, group: str, artifact: str, version: str) -> Module:
        properties, managed, pom = self.effective(group, artifact, version)
        packaging = _text(pom, "packaging", "jar")
        module = Module(files=[] if packaging == "pom" else [("", "jar")])
        for (g, a, _classifier), rule in managed.items():
            if rule.version and rule.scope != "import":
                module.managed.append(Dependency(g, a, _expand(rule.version, properties).strip("[]")))
        deps = _child(pom, "dependencies")
        for dep in deps if deps is not None else []:
            g, a = (_expand(_text(dep, n), properties) for n in ("groupId", "artifactId"))
            classifier = _expand(_text(dep, "classifier"), properties)
            rule = managed.get((g, a, classifier)) or managed.get((g, a, "")) or Managed("", "", frozenset())
            scope = _text(dep, "scope") or rule.scope
            if _text(dep, "optional") == "true" or scope not in _RUNTIME_SCOPES:
                continue
            v = _expand(_text(dep, "version") or rule.version, properties).strip("[]")
            if not v:
                raise LookupError(f"{group}:{artifact}:{version} names {g}:{a} with no version")
            kind = _text(dep, "type", "jar")
            extension = "jar" if kind in ("jar", "bundle", "test-jar") else kind
            excludes = _exclusions(dep) | rule.excludes
            module.dependencies.append(Dependency(g, a, v, classifier, extension, excludes))
        return module

    # --- resolving --------------------------------------------------------------------------------------------
    def resolve(self, roots: list[Dependency], exclude: frozenset[GA] = frozenset()) -> Resolution:
        """Every artifact of the runtime classpath of ``roots``, highest version winning, to a fixed point;
        ``exclude`` (group, artifact or ``*``) is left out wherever it is asked for."""
        selected: dict[GA, str] = {}
        for _ in range(50):
            requested, constraints, artifacts = self._walk(roots, selected, exclude)
            chosen: dict[GA, str] = {}
            for ga, versions in requested.items():
                strict = [v for v, is_strict in versions if is_strict and v]
                pool = [v for v, _ in versions | constraints.get(ga, set()) if v]
                if strict or pool:
                    chosen[ga] = strict[0] if strict else max(pool, key=version_key)
            if chosen == selected:
                unversioned = sorted(f"{g}:{a}" for g, a in requested if (g, a) not in chosen)
                if unversioned:
                    raise LookupError(f"no version is declared for {', '.join(unversioned)}")
                found = [
                    Coordinate(ga[0], ga[1], chosen[ga], classifier, extension)
                    for ga, kinds in artifacts.items()
                    for classifier, extension in sorted(kinds)
                ]
                return Resolution(sorted(found), dict(self.substituted_parents))
            selected = chosen
        raise RuntimeError("the resolution did not settle in 50 rounds")

    def _walk(
        self, roots: list[Dependency], selected: dict[GA, str], exclude: frozenset[GA]
    ) -> tuple[dict[GA, set[tuple[str, bool]]], dict[GA, set[tuple[str, bool]]], dict[GA, set[tuple[str, str]]]]:
        requested: dict[GA, set[tuple[str, bool]]] = {}
        constraints: dict[GA, set[tuple[str, bool]]] = {}
        artifacts: dict[GA, set[tuple[str, str]]] = {}
        seen: set[tuple[GA, frozenset[GA]]] = set()
        queue: list[tuple[Dependency, frozenset[GA]]] = [(root, exclude) for root in roots]
        while queue:
            dep, excluded = queue.pop()
            ga = (dep.group, dep.artifact)
            requested.setdefault(ga, set()).add((dep.version, dep.strict))
            version = selected.get(ga, dep.version)
            if not version:
                continue  # its version comes from a constraint: walked once the constraint is seen
            module = self.module(dep.group, dep.artifact, version)
            if not dep.platform:
                kinds = artifacts.setdefault(ga, set())
                if dep.classifier or dep.extension != "jar":
                    kinds.add((dep.classifier, dep.extension))
                elif module.files:
                    kinds.update(module.files)
            for constraint in module.constraints + (module.managed if dep.platform else []):
                constraints.setdefault((constraint.group, constraint.artifact), set()).add(
                    (constraint.version, constraint.strict)
                )
            key = (ga, excluded)
            if key in seen:
                continue
            seen.add(key)
            below = excluded | dep.excludes
            for child in module.dependencies:
                if (child.group, child.artifact) in below or (child.group, "*") in below or ("*", "*") in below:
                    continue
                queue.append((child, below))
        for ga in [ga for ga, kinds in artifacts.items() if not kinds]:
            del artifacts[ga]  # pom-only modules
        return requested, constraints, artifacts


def _exclusions(dep: ElementTree.Element) -> frozenset[GA]:
    found = _child(dep, "exclusions")
    return frozenset((_text(e, "groupId"), _text(e, "artifactId")) for e in (found if found is not None else []))


def _expand(text: str, properties: dict[str, str]) -> str:
    for _ in range(10):
        expanded = _PROPERTY.sub(lambda m: properties.get(m.group(1), m.group(0)), text)
        if expanded == text:
            break
        text = expanded
    return text


def _gradle_version(entry: dict[str, Any]) -> str:
    version = entry.get("version", {})
    return str(version.get("strictly") or version.get("requires") or version.get("prefers") or "")


def _gradle_dependency(entry: dict[str, Any]) -> Dependency:
    selector = entry.get("thirdPartyCompatibility", {}).get("artifactSelector", {})
    excludes = frozenset((str(e["group"]), str(e["module"])) for e in entry.get("excludes", []))
    return Dependency(
        str(entry["group"]),
        str(entry["module"]),
        _gradle_version(entry),
        str(selector.get("classifier", "")),
        str(selector.get("extension", "jar")),
        excludes,
        strict="strictly" in entry.get("version", {}),
        platform=entry.get("attributes", {}).get("org.gradle.category") in ("platform", "enforced-platform"),
    )
