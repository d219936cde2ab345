"""Reading the model's type annotations: which model or tagged union is expected at a key path."""

from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import BaseModel, Tag


def strip(tp: Any) -> Any:
    """`tp` without `Annotated` and without `| None`."""
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            tp = typing.get_args(tp)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            if len(args) != 1:
                return tp
            tp = args[0]
        else:
            return tp


def is_model(tp: Any) -> bool:
    """Whether `tp` is a pydantic model class."""
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def tags(union: Any) -> dict[str, type[BaseModel]]:
    """The members of a tagged union by tag (`Tag(...)` metadata, or the `kind` literal); empty for other types."""
    tags: dict[str, type[BaseModel]] = {}
    for member in typing.get_args(union):
        tag: str | None = None
        if typing.get_origin(member) is typing.Annotated:
            tag = next((m.tag for m in member.__metadata__ if isinstance(m, Tag)), None)
            member = typing.get_args(member)[0]
        if not is_model(member):
            continue
        if tag is None and "kind" in member.model_fields:
            tag = typing.get_args(member.model_fields["kind"].annotation)[0]
        if isinstance(tag, str):
            tags[tag] = member
    return tags


def one_or_several(tp: Any) -> type[BaseModel] | None:
    """The model of a key that takes one mapping or a list of them (``M | tuple[M, ...]``, tagged or not);
    None for any other type."""
    if not is_union(tp):
        return None
    members = [
        typing.get_args(m)[0] if typing.get_origin(m) is typing.Annotated else m
        for m in typing.get_args(tp)
        if m is not type(None)
    ]
    if len(members) != 2:
        return None
    models = [m for m in members if is_model(m)]
    several = [m for m in members if typing.get_origin(m) is tuple]
    if len(models) != 1 or len(several) != 1:
        return None
    args = typing.get_args(several[0])
    return models[0] if len(args) == 2 and args[0] is models[0] and args[1] is Ellipsis else None


def tag_names(union: Any) -> dict[str, Any]:
    """Every member of a union that carries a ``Tag(...)``, by tag, models or not."""
    named: dict[str, Any] = {}
    for member in typing.get_args(union):
        if typing.get_origin(member) is typing.Annotated:
            tag = next((m.tag for m in member.__metadata__ if isinstance(m, Tag)), None)
            if isinstance(tag, str):
                named[tag] = typing.get_args(member)[0]
    return named
