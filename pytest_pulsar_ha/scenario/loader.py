"""Load ``*.pulsar-ha.yaml`` files into validated scenario cases, or say precisely what is wrong with them.

The whole file is validated (every scenario, every variant) before anything is returned; every problem is
reported as ``file:line: key.path: message``, with the line taken from the YAML node of the key or value at
fault, and the message saying what was expected and what was found.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from pytest_pulsar_ha.scenario._introspect import is_model as _is_model
from pytest_pulsar_ha.scenario._introspect import strip as _strip
from pytest_pulsar_ha.scenario._introspect import tags as _tags
from pytest_pulsar_ha.scenario.errors import Problem, ScenarioError
from pytest_pulsar_ha.scenario.model import PROBLEMS_ERROR, SCENARIO_NAME_PATTERN, CustomProvider, Loc, Scenario, dotted
from pytest_pulsar_ha.scenario.quantities import QUANTITY_ERROR_TYPES, describe
from pytest_pulsar_ha.scenario.ranges import number_range, with_metadata
from pytest_pulsar_ha.scenario.yaml_document import YamlProblem, compose

#: Scenario files are the files whose name ends with this suffix.
FILE_SUFFIX = ".pulsar-ha.yaml"

#: Top-level keys starting with this prefix are ignored: a place for YAML anchors shared by several scenarios.
EXTENSION_PREFIX = "x-"

_CUSTOM_ERRORS = QUANTITY_ERROR_TYPES | {"name", "true_only"}
# errors on a number: the message says the whole valid range
_NUMBER_ERRORS = {
    "int_type",
    "int_parsing",
    "int_from_float",
    "float_type",
    "float_parsing",
    "finite_number",
    "greater_than_equal",
    "greater_than",
    "less_than_equal",
    "less_than",
}


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


# -- pydantic errors, in plain words -------------------------------------------------------------------------


class _Walk(NamedTuple):
    loc: Loc  # the error's location without union tags: the key path in the YAML data
    model: type[BaseModel] | None  # the model in which the last key was looked up
    union: dict[str, type[BaseModel]] | None  # when that model is one kind of a tagged union: every kind
    tag: str | None  # ... and its kind
    annotation: Any  # the type expected at the location


def _field(model: type[BaseModel], key: str | int) -> Any:
    for name, field in model.model_fields.items():
        if key in (name, field.alias):
            return with_metadata(field)
    return None


def _keys(model: type[BaseModel]) -> list[str]:
    return [field.alias or name for name, field in model.model_fields.items()]


def _walk(root: type[BaseModel], loc: tuple[str | int, ...]) -> _Walk:
    clean: list[str | int] = []
    tp: Any = root
    model: type[BaseModel] | None = None
    union: dict[str, type[BaseModel]] | None = None
    tag: str | None = None
    parts = list(loc)
    while parts:
        tp = _strip(tp)
        part = parts[0]
        if _is_model(tp):
            model = tp
            tp = _field(tp, part)
        elif typing.get_origin(tp) in (tuple, list):
            args = typing.get_args(tp)
            if (len(args) == 2 and args[1] is Ellipsis) or typing.get_origin(tp) is list:
                tp = args[0]
            else:
                tp = args[part] if isinstance(part, int) and part < len(args) else None
        elif typing.get_origin(tp) in (typing.Union, types.UnionType) and part in (tags := _tags(tp)):
            union, tag, tp = tags, str(part), tags[str(part)]
            parts.pop(0)
            continue
        else:
            tp = None
        if tp is None:
            clean.extend(parts)
            break
        clean.append(part)
        parts.pop(0)
        if _is_model(_strip(tp)) and union is not None and _strip(tp) not in union.values():
            union, tag = None, None
    return _Walk(tuple(clean), model, union, tag, tp)


def _get(data: Any, loc: Loc) -> Any:
    for part in loc:
        if isinstance(data, list) and isinstance(part, int):
            data = data[part] if part < len(data) else None
        else:
            data = data.get(part) if isinstance(data, dict) else None
    return data


def _quoted(ctx_text: str) -> list[str]:
    return re.findall(r"'([^']*)'", ctx_text)


def _did_you_mean(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else f"expected one of: {', '.join(choices)}"


def _items(count: int) -> str:
    return "1 item" if count == 1 else f"{count} items"


# (where to show it, which line to point at, message)
_Explained = tuple[Loc, Loc, str]


def _explain(error: ErrorDetails, data: Any) -> list[_Explained]:
    """A pydantic error on the data of one scenario, as plain-word problems at key paths of that data."""
    walk = _walk(Scenario, error["loc"])
    loc = walk.loc
    kind = error["type"]
    ctx: dict[str, Any] = dict(error.get("ctx") or {})
    found = describe(error["input"])
    if kind == PROBLEMS_ERROR:
        return [((*loc, *sub), (*loc, *sub), message) for sub, message in ctx["problems"]]
    if kind == "missing":
        parent, key = loc[:-1], loc[-1]
        if isinstance(key, int):
            length = len(_get(data, parent) or ())
            expected = len(typing.get_args(_strip(_walk(Scenario, error["loc"][:-1]).annotation)))
            return [(parent, parent, f"expected a list of {expected} items, found {_items(length)}")]
        return [(parent, parent, f"missing required key {key!r}")]
    if kind == "extra_forbidden":
        return [(loc[:-1], loc, _unknown_key(str(loc[-1]), walk))]
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        return [_explain_tag(kind, loc, ctx, _get(data, loc), list(_tags(_strip(walk.annotation))))]
    if kind in ("too_short", "too_long"):
        return _explain_length(kind, loc, ctx, error["input"], walk.annotation)
    if kind in _CUSTOM_ERRORS:
        return [(loc, loc, error["msg"])]
    numbers = number_range(walk.annotation) if kind in _NUMBER_ERRORS else None
    if numbers is not None:
        return [(loc, loc, f"expected {numbers}, found {found}")]
    return [(loc, loc, _plain(kind, ctx, found, error))]


def _unknown_key(key: str, walk: _Walk) -> str:
    if walk.model is None:
        return f"unknown key {key!r}"
    keys = _keys(walk.model)
    if walk.union is not None and walk.tag is not None:
        others = [tag for tag, member in walk.union.items() if tag != walk.tag and key in _keys(member)]
        if others:
            return f"key {key!r} is only valid with kind {' or '.join(others)}, found kind {walk.tag}"
    return f"unknown key {key!r}; {_did_you_mean(key, keys)}"


def _explain_length(kind: str, loc: Loc, ctx: dict[str, Any], value: Any, annotation: Any) -> list[_Explained]:
    actual = len(value) if isinstance(value, list) else int(ctx.get("actual_length", 0))
    args = typing.get_args(_strip(annotation))
    if typing.get_origin(_strip(annotation)) is tuple and args and args[-1] is not Ellipsis:
        return [(loc, loc, f"expected a list of {_items(len(args))}, found {_items(actual)}")]
    if kind == "too_short":
        minimum = int(ctx.get("min_length", 1))
        if actual >= minimum:
            return []  # pydantic counts the valid items only: the invalid ones are reported on their own
        found = "an empty list" if actual == 0 else _items(actual)
        return [(loc, loc, f"expected at least {_items(minimum)}, found {found}")]
    return [(loc, loc, f"expected at most {_items(int(ctx.get('max_length', 0)))}, found {_items(actual)}")]


def _explain_tag(kind: str, loc: Loc, ctx: dict[str, Any], value: Any, tags: list[str]) -> _Explained:
    if ctx.get("discriminator") == "'kind'":  # faults and providers: a `kind:` key
        if kind == "union_tag_invalid":
            where = (*loc, "kind")
            return (where, where, f"expected one of: {', '.join(tags)}; found {describe(value.get('kind'))}")
        return (loc, loc, f"missing required key 'kind' (one of: {', '.join(tags)})")
    # expectations: a mapping with one key naming the expectation
    if kind == "union_tag_invalid":
        key = str(ctx.get("tag"))
        return (loc, (*loc, key), f"unknown expectation {key!r}; {_did_you_mean(key, tags)}")
    names = f"(one of: {', '.join(tags)})"
    if isinstance(value, dict) and value:
        return (
            loc,
            loc,
            f"expected one key naming the expectation, found {len(value)}: {', '.join(map(str, value))}; "
            "write each expectation as its own list item",
        )
    if isinstance(value, dict):
        return (loc, loc, f"expected one key naming the expectation {names}, found an empty mapping")
    hint = f" (write '{value}: true')" if isinstance(value, str) and value in ("no_loss", "no_switch") else ""
    return (loc, loc, f"expected a mapping with one key naming the expectation {names}, found {describe(value)}{hint}")


def _plain(kind: str, ctx: dict[str, Any], found: str, error: ErrorDetails) -> str:
    if kind == "literal_error":
        choices = _quoted(str(ctx.get("expected", ""))) or [str(ctx.get("expected", ""))]
        return f"expected one of: {', '.join(choices)}; found {found}"
    simple = {
        "string_type": "text",
        "int_type": "a whole number",
        "int_parsing": "a whole number",
        "int_from_float": "a whole number",
        "float_type": "a number",
        "float_parsing": "a number",
        "finite_number": "a finite number",
        "bool_type": "true or false",
        "bool_parsing": "true or false",
        "list_type": "a list",
        "tuple_type": "a list",
        "dict_type": "a mapping",
        "model_type": "a mapping",
        "model_attributes_type": "a mapping",
    }
    if kind in simple:
        return f"expected {simple[kind]}, found {found}"
    bounds = {
        "greater_than_equal": ("of at least", "ge"),
        "greater_than": ("above", "gt"),
        "less_than_equal": ("of at most", "le"),
        "less_than": ("below", "lt"),
    }
    if kind in bounds:
        words, key = bounds[kind]
        value = error["input"]
        shown = value if isinstance(value, int | float) and not isinstance(value, bool) else found
        bound = ctx.get(key)
        if isinstance(bound, float) and bound.is_integer():
            bound = int(bound)
        return f"expected a number {words} {bound}, found {shown}"
    if kind in ("value_error", "assertion_error"):
        return str(ctx.get("error", error["msg"]))
    message = error["msg"]
    if message.startswith("Input should be "):  # an error type not translated above: phrase it like the others
        message = "expected " + message[len("Input should be ") :]
    return f"{message}, found {found}"


# -- the file ------------------------------------------------------------------------------------------------


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
                (), f"unknown key {key!r} at the top level; {_did_you_mean(key, ['scenarios'])}", self.line((key,))
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

    def _validate(self, data: dict[str, Any]) -> tuple[Scenario | None, list[_Explained]]:
        try:
            return Scenario.model_validate(data), []
        except ValidationError as exc:
            explained: list[_Explained] = []
            for error in exc.errors(include_url=False):
                explained += _explain(error, data)
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
        provider = scenario.provider
        if not isinstance(provider, CustomProvider):
            return
        from pytest_pulsar_ha.scenario.factories import FactoryError, resolve_factory

        try:
            resolve_factory(provider.factory)
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
    node = _get(override, where) if where else override
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
