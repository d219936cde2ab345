"""What values a key of the model accepts, in words, read from its type and constraints.

One source of truth: the constraints declared in :mod:`.model` (``Field(ge=..., le=...)``, :class:`AboveZero`,
literals, patterns) validate the files, produce the JSON Schema (pydantic) and, through :func:`valid_values`, the
error messages for numbers out of range and the "valid values" column of ``docs/reference/scenario-format.md``.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable
from typing import Any

import annotated_types
from pydantic import WithJsonSchema
from pydantic.fields import FieldInfo

from pytest_pulsar_ha.scenario._introspect import is_model, is_union, one_or_several, tags
from pytest_pulsar_ha.scenario.quantities import AboveZero, _Quantity


def metadata(annotation: Any) -> tuple[Any, list[Any]]:
    """The type without ``Annotated`` and ``| None``, and the metadata gathered on the way."""
    found: list[Any] = []
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            args = typing.get_args(annotation)
            annotation = args[0]
            for item in args[1:]:
                found.extend(item.metadata if isinstance(item, FieldInfo) else [item])
        elif is_union(annotation):
            members = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(members) != 1:
                return annotation, found
            annotation = members[0]
        else:
            return annotation, found


def with_metadata(field: FieldInfo) -> Any:
    """A model field's annotation with the constraints pydantic moved to ``field.metadata`` put back."""
    if not field.metadata:
        return field.annotation
    return typing.Annotated[(field.annotation, *field.metadata)]


def _bound(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def number_range(annotation: Any) -> str | None:
    """``a whole number from 0 to 2147483647``, ``a number from 0 to 1``; None for other types."""
    tp, meta = metadata(annotation)
    if tp not in (int, float):
        return None
    noun = "a whole number" if tp is int else "a number"
    low = next((f"{_bound(m.ge)}" for m in meta if isinstance(m, annotated_types.Ge)), None)
    above = next((f"{_bound(m.gt)}" for m in meta if isinstance(m, annotated_types.Gt)), None)
    high = next((f"{_bound(m.le)}" for m in meta if isinstance(m, annotated_types.Le)), None)
    if low is not None and high is not None:
        return f"{noun} from {low} to {high}"
    parts = [f"of at least {low}" if low is not None else "", f"above {above}" if above is not None else ""]
    parts.append(f"of at most {high}" if high is not None else "")
    text = " and ".join(part for part in parts if part)
    return f"{noun} {text}".strip()


def valid_values(annotation: Any) -> str:
    """The values a key accepts, in words: ``a duration above zero``, ``one of: lookup, tcp, health``..."""
    tp, meta = metadata(annotation)
    numbers = number_range(annotation)
    if numbers is not None:
        return numbers
    if isinstance(tp, type) and issubclass(tp, _Quantity):
        return AboveZero.valid_values(tp) if any(isinstance(m, AboveZero) for m in meta) else tp.valid_values()
    if tp is bool:
        schema = next((m.json_schema for m in meta if isinstance(m, WithJsonSchema)), None)
        return "true" if schema == {"const": True} else "true or false"
    if typing.get_origin(tp) is typing.Literal:
        return "one of: " + ", ".join(str(arg) for arg in typing.get_args(tp))
    if tp is str:
        schema = next((m.json_schema for m in meta if isinstance(m, WithJsonSchema)), None)
        description = str((schema or {}).get("description", "")).rstrip(".")
        return description[:1].lower() + description[1:] if description else "text"
    if typing.get_origin(tp) is tuple:
        return _list(tp, meta)
    if one_or_several(tp) is not None:
        return "a mapping, or a list of them"
    if is_model(tp):
        return "a mapping"
    if is_union(tp) and tags(tp):
        return "a mapping with `kind`" if all("kind" in m.model_fields for m in tags(tp).values()) else "a mapping"
    if typing.get_origin(tp) is dict:
        key, value = typing.get_args(tp)
        return f"a mapping of {_noun(valid_values(key))} to {_noun(valid_values(value))}"
    if is_union(tp):
        members = [arg for arg in typing.get_args(tp) if arg is not type(None)]
        return " or ".join(valid_values(arg) for arg in members)
    if tp in (int, float):
        return "a number"
    return str(tp)


def _noun(text: str) -> str:
    """``a cluster name: ...`` -> ``cluster name (...)`` inside a longer phrase."""
    head, _, rest = text.removeprefix("a ").partition(": ")
    return f"{head} ({rest})" if rest else head


def _list(tp: Any, meta: Iterable[Any]) -> str:
    args = typing.get_args(tp)
    if len(args) == 2 and args[1] is Ellipsis:
        least = next((m.min_length for m in meta if isinstance(m, annotated_types.MinLen)), 0)
        item = valid_values(args[0])
        return f"a list, each {item.removeprefix('a ')}" + (f" (at least {least} item)" if least else "")
    return f"[{', '.join(valid_values(arg) for arg in args)}]"
