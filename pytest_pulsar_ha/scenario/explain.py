"""Pydantic's validation errors on a scenario, in plain words at key paths of the YAML data: what was expected
and what was found, a did-you-mean for unknown keys and kinds, the whole valid range of a number."""

from __future__ import annotations

import difflib
import re
import types
import typing
from typing import Any, NamedTuple

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from pytest_pulsar_ha.scenario._introspect import is_model as _is_model
from pytest_pulsar_ha.scenario._introspect import strip as _strip
from pytest_pulsar_ha.scenario._introspect import tag_names as _tag_names
from pytest_pulsar_ha.scenario._introspect import tags as _tags
from pytest_pulsar_ha.scenario.base import PROBLEMS_ERROR, Loc
from pytest_pulsar_ha.scenario.model import Scenario
from pytest_pulsar_ha.scenario.quantities import QUANTITY_ERROR_TYPES, describe
from pytest_pulsar_ha.scenario.ranges import number_range, with_metadata

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
        elif typing.get_origin(tp) in (typing.Union, types.UnionType) and part in (named := _tag_names(tp)):
            tp = named[str(part)]  # a tagged member that is not a model (a list of them): no key in the YAML
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


def value_at(data: Any, loc: Loc) -> Any:
    for part in loc:
        if isinstance(data, list) and isinstance(part, int):
            data = data[part] if part < len(data) else None
        else:
            data = data.get(part) if isinstance(data, dict) else None
    return data


def _quoted(ctx_text: str) -> list[str]:
    return re.findall(r"'([^']*)'", ctx_text)


def did_you_mean(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else f"expected one of: {', '.join(choices)}"


def _items(count: int) -> str:
    return "1 item" if count == 1 else f"{count} items"


# (where to show it, which line to point at, message)
Explained = tuple[Loc, Loc, str]


def explain(error: ErrorDetails, data: Any) -> list[Explained]:
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
            length = len(value_at(data, parent) or ())
            expected = len(typing.get_args(_strip(_walk(Scenario, error["loc"][:-1]).annotation)))
            return [(parent, parent, f"expected a list of {expected} items, found {_items(length)}")]
        return [(parent, parent, f"missing required key {key!r}")]
    if kind == "extra_forbidden":
        return [(loc[:-1], loc, _unknown_key(str(loc[-1]), walk))]
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        return [_explain_tag(kind, loc, ctx, value_at(data, loc), list(_tags(_strip(walk.annotation))))]
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
    return f"unknown key {key!r}; {did_you_mean(key, keys)}"


def _explain_length(kind: str, loc: Loc, ctx: dict[str, Any], value: Any, annotation: Any) -> list[Explained]:
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


def _explain_tag(kind: str, loc: Loc, ctx: dict[str, Any], value: Any, tags: list[str]) -> Explained:
    if ctx.get("discriminator") == "'kind'":  # faults and providers: a `kind:` key
        if kind == "union_tag_invalid":
            where = (*loc, "kind")
            return (where, where, f"expected one of: {', '.join(tags)}; found {describe(value.get('kind'))}")
        return (loc, loc, f"missing required key 'kind' (one of: {', '.join(tags)})")
    # expectations: a mapping with one key naming the expectation
    if kind == "union_tag_invalid":
        key = str(ctx.get("tag"))
        return (loc, (*loc, key), f"unknown expectation {key!r}; {did_you_mean(key, tags)}")
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
