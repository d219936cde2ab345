"""Load ``*.pulsar-ha.yaml`` files into validated scenario cases, or say precisely what is wrong with them.

The whole file is validated (every scenario, every variant) before anything is returned; every problem is
reported as ``file:line: key.path: message``, with the line taken from the YAML node of the key or value at
fault, and the message saying what was expected and what was found.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pytest_pulsar_ha.scenario.base import SCENARIO_NAME_PATTERN, Loc, dotted
from pytest_pulsar_ha.scenario.errors import Problem, ScenarioError
from pytest_pulsar_ha.scenario.explain import Explained, did_you_mean, explain, value_at
from pytest_pulsar_ha.scenario.model import Scenario
from pytest_pulsar_ha.scenario.providers import factory_of
from pytest_pulsar_ha.scenario.quantities import describe
from pytest_pulsar_ha.scenario.yaml_document import YamlProblem, compose

#: Scenario files are the files whose name ends with this suffix.
FILE_SUFFIX = ".pulsar-ha.yaml"

#: Top-level keys starting with this prefix are ignored: a place for YAML anchors shared by several scenarios.
EXTENSION_PREFIX = "x-"


def is_scenario_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a scenario file (``*.pulsar-ha.yaml``)."""
    return os.fspath(path).endswith(FILE_SUFFIX)


def stable_seed(text: str) -> int:
    """A seed derived from ``text``, the same on every run and machine (32 bits)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


@dataclass(frozen=True)
class ScenarioCase:
    """One test: a scenario of a file, with one of its variants merged in (or none)."""

    path: Path
    """The scenario file."""
    line: int
    """1-based line of the scenario's entry in the file (of the variant's entry, for a variant)."""
    id: str
    """``name``, or ``name[variant-id]`` for a variant: the pytest item's name."""
    scenario: Scenario
    """The validated scenario, variant merged in."""
    variant: str | None = None
    """The variant's id, or None for the scenario as written."""

    @property
    def seed(self) -> int:
        """The scenario's ``seed``, or one derived from :attr:`id` (stable across runs)."""
        return self.scenario.seed if self.scenario.seed is not None else stable_seed(self.id)


def load_scenarios(path: str | os.PathLike[str], *, display_path: str | None = None) -> list[ScenarioCase]:
    """Read and validate a scenario file: one case per scenario and per variant, in file order.

    Raises :class:`ScenarioError` listing every problem of the file. ``display_path`` is how the file is named in
    messages (default: ``path`` as given).
    """
    file = Path(path)
    shown = display_path if display_path is not None else os.fspath(path)
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise ScenarioError([Problem(shown, 1, "", f"cannot read the file: {exc.strerror or exc}")]) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError([_not_utf8(shown, data, exc)]) from None
    return parse_scenarios(text, file, display_path=shown)


def _not_utf8(shown: str, data: bytes, exc: UnicodeDecodeError) -> Problem:
    line_start = data.rfind(b"\n", 0, exc.start) + 1
    line = data.count(b"\n", 0, exc.start) + 1
    column = exc.start - line_start + 1
    message = (
        f"expected a UTF-8 text file, found the byte 0x{data[exc.start]:02x} (column {column}) that is not valid "
        "UTF-8; save the file as UTF-8"
    )
    return Problem(shown, line, "", message)


def parse_scenarios(text: str, path: str | os.PathLike[str], *, display_path: str | None = None) -> list[ScenarioCase]:
    """Validate the text of a scenario file; ``path`` is recorded in the cases (and named in messages)."""
    shown = display_path if display_path is not None else os.fspath(path)
    return _FileLoader(Path(path), shown).load(text)


class _FileLoader:
    def __init__(self, path: Path, shown: str) -> None:
        self.path = path
        self.shown = shown
        self.lines: dict[Loc, int] = {}
        self.problems: list[tuple[int, int, Problem]] = []
        self.yaml_problems: set[Loc] = set()  # where the YAML itself is wrong: no further messages there

    def line(self, loc: Loc) -> int:
        for end in range(len(loc), -1, -1):
            if loc[:end] in self.lines:
                return self.lines[loc[:end]]
        return 1

    def report_yaml(self, where: Loc, line: int, message: str) -> None:
        self.yaml_problems.add(where)
        self.report(where, message, line)

    def report(self, where: Loc, message: str, line: int | None = None) -> None:
        problem = Problem(self.shown, line if line is not None else self.line(where), dotted(where), message)
        if all(p != problem for _, _, p in self.problems):
            self.problems.append((problem.line, len(self.problems), problem))

    def fail(self) -> ScenarioError:
        return ScenarioError([p for _, _, p in sorted(self.problems, key=lambda item: item[:2])])

    def load(self, text: str) -> list[ScenarioCase]:
        try:
            document = compose(text, self.report_yaml)
        except YamlProblem as exc:
            raise ScenarioError([Problem(self.shown, exc.line, dotted(exc.loc), exc.message)]) from None
        if document is None:
            raise ScenarioError(
                [Problem(self.shown, 1, "", "the file is empty: expected a mapping with the key 'scenarios'")]
            )
        self.lines = document.lines
        cases = self._cases(document.data)
        if self.problems:
            raise self.fail()
        return cases

    def _cases(self, data: Any) -> list[ScenarioCase]:
        if not isinstance(data, dict):
            self.report((), f"expected a mapping with the key 'scenarios' at the top level, found {describe(data)}")
            return []
        unknown = [key for key in data if key != "scenarios" and not key.startswith(EXTENSION_PREFIX)]
        for key in unknown:
            self.report(
                (), f"unknown key {key!r} at the top level; {did_you_mean(key, ['scenarios'])}", self.line((key,))
            )
        if "scenarios" not in data:
            if not unknown:
                self.report((), "missing required key 'scenarios' (the list of scenarios)")
            return []
        scenarios = data["scenarios"]
        if not isinstance(scenarios, list):
            self.report(("scenarios",), f"expected a list of scenarios, found {describe(scenarios)}")
            return []
        if not scenarios:
            self.report(("scenarios",), "expected at least one scenario, found an empty list")
        self._check_unique(scenarios, ("scenarios",), "name", "scenario name")
        cases: list[ScenarioCase] = []
        for index, entry in enumerate(scenarios):
            cases += self._scenario(entry, ("scenarios", index))
        return cases

    def _check_unique(self, entries: list[Any], loc: Loc, key: str, what: str) -> None:
        first: dict[str, int] = {}
        for index, entry in enumerate(entries):
            value = entry.get(key) if isinstance(entry, dict) else None
            if not isinstance(value, str):
                continue
            where = (*loc, index, key)
            if value in first:
                self.report(where, f"duplicate {what} {value!r} (first used on line {first[value]})")
            else:
                first[value] = self.line(where)

    def _validate(self, data: dict[str, Any]) -> tuple[Scenario | None, list[Explained]]:
        try:
            return Scenario.model_validate(data), []
        except ValidationError as exc:
            explained: list[Explained] = []
            for error in exc.errors(include_url=False):
                explained += explain(error, data)
            return None, explained

    def _scenario(self, entry: Any, loc: Loc) -> list[ScenarioCase]:
        if not isinstance(entry, dict):
            self.report(loc, f"expected a mapping (one scenario), found {describe(entry)}")
            return []
        base = {key: value for key, value in entry.items() if key != "variants"}
        scenario, explained = self._validate(base)
        for where, line_at, message in explained:
            if (*loc, *line_at) not in self.yaml_problems:
                self.report((*loc, *where), message, self.line((*loc, *line_at)))
        cases: list[ScenarioCase] = []
        if scenario is not None:
            self._check_factory(scenario, loc)
            cases.append(ScenarioCase(self.path, self.line(loc), scenario.name, scenario))
        base_problems = {line_at for _, line_at, _ in explained}
        variants = entry.get("variants", [])
        if not isinstance(variants, list):
            self.report((*loc, "variants"), f"expected a list of variants, found {describe(variants)}")
            return cases
        self._check_unique(variants, (*loc, "variants"), "id", "variant id")
        for index, variant in enumerate(variants):
            case = self._variant(base, variant, (*loc, "variants", index), base_problems)
            if case is not None and scenario is not None:
                cases.append(case)
        return cases

    def _variant(self, base: dict[str, Any], variant: Any, loc: Loc, base_problems: set[Loc]) -> ScenarioCase | None:
        if not isinstance(variant, dict):
            self.report(loc, f"expected a mapping with an 'id' and the keys to change, found {describe(variant)}")
            return None
        variant_id = variant.get("id")
        ok = True
        if "id" not in variant:
            self.report(loc, "missing required key 'id' (the variant's name in the test id)")
            ok = False
        elif not isinstance(variant_id, str) or not re.fullmatch(SCENARIO_NAME_PATTERN, variant_id):
            self.report(
                (*loc, "id"),
                "expected an id of lowercase letters, digits, '_', '.' and '-', starting with a letter or digit, "
                f"found {describe(variant_id)}",
            )
            ok = False
        for key, why in (("name", "the variant's test id is the scenario's name and its id"), ("variants", "")):
            if key in variant:
                because = f" ({why})" if why else ""
                self.report(loc, f"a variant cannot set {key!r}{because}", self.line((*loc, key)))
                ok = False
        override = {key: value for key, value in variant.items() if key not in ("id", "name", "variants")}
        scenario, explained = self._validate(_merge(base, override))
        label = f" (in variant {variant_id!r})" if isinstance(variant_id, str) else " (in a variant)"
        for where, line_at, message in explained:
            nulled = _nulled_required(override, where, message)
            if nulled is not None:
                missing = (*where, nulled)
                self.report(
                    (*loc, *missing),
                    f"{nulled!r} is required (it has no default), so null cannot bring it back to a default; "
                    "give a value or leave the key out",
                    self.line((*loc, *missing)),
                )
                continue
            from_variant = _overridden(override, line_at)
            if not from_variant and line_at in base_problems:
                continue  # a problem of the scenario itself, reported once for it
            if from_variant and (*loc, *line_at) in self.yaml_problems:
                continue
            if from_variant:
                self.report((*loc, *where), message, self.line((*loc, *line_at)))
            else:
                scenario_loc = loc[:-2]
                self.report((*scenario_loc, *where), message + label, self.line((*scenario_loc, *line_at)))
        if scenario is None or not ok:
            return None
        if _overridden(override, ("provider", "factory")):
            self._check_factory(scenario, loc)
        return ScenarioCase(self.path, self.line(loc), f"{scenario.name}[{variant_id}]", scenario, str(variant_id))

    def _check_factory(self, scenario: Scenario, loc: Loc) -> None:
        """A custom provider's factory must import and be callable before any cluster starts."""
        factory = factory_of(scenario.provider)
        if factory is None:
            return
        from pytest_pulsar_ha.scenario.factories import FactoryError, resolve_factory

        try:
            resolve_factory(factory)
        except FactoryError as exc:
            where = (*loc, "provider", "factory")
            self.report(where, str(exc), self.line(where))


def _merge(base: Any, override: Any) -> Any:
    """``override`` deep-merged over ``base``: mappings merge key by key, a null removes the key (its default
    applies), anything else replaces."""
    if isinstance(base, dict) and isinstance(override, dict):
        merged = dict(base)
        for key, value in override.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = _merge(base[key], value) if key in base else value
        return merged
    return override


def _nulled_required(override: dict[str, Any], where: Loc, message: str) -> str | None:
    """The key that ``message`` says is missing at ``where`` when the variant set it to null, else None."""
    node = value_at(override, where) if where else override
    if not isinstance(node, dict):
        return None
    return next(
        (key for key, value in node.items() if value is None and message == f"missing required key {key!r}"), None
    )


def _overridden(override: dict[str, Any], loc: Loc) -> bool:
    """Whether the merged value at ``loc`` comes from the variant (rather than from the scenario it changes)."""
    node: Any = override
    for part in loc:
        if not isinstance(node, dict):
            return True
        if part not in node:
            return False
        node = node[part]
    return bool(loc)
