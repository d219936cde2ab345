"""Quantities written as text in scenario files: durations (`500ms`), sizes (`100B`), rates and bandwidths.

Each keeps the text as written (:attr:`text`, for messages) and exposes its value in base units. They validate
themselves inside pydantic models (with plain-word errors) and appear in the JSON Schema as strings with a pattern.
"""

from __future__ import annotations

import functools
import re
from typing import Any, ClassVar

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

_NUMBER = r"[0-9]+(?:\.[0-9]+)?"


def describe(value: object) -> str:
    """A value found in a scenario file, in plain words: `'10 seconds'`, `the number 12`, `a list`."""
    if value is None:
        return "an empty value"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return repr(value)


@functools.total_ordering
class _Quantity:
    """A number with a unit, parsed from text. Subclasses set the pattern, the units and how to phrase errors."""

    ERROR_TYPE: ClassVar[str]
    EXPECTED: ClassVar[str]  # "a duration like 500ms, 3s or 1m"
    NOUN: ClassVar[str]  # "a duration"
    PATTERN: ClassVar[str]  # anchored regular expression (also used by the JSON Schema)
    UNITS: ClassVar[dict[str, float]]
    ALLOW_ZERO: ClassVar[bool] = True
    EXAMPLES: ClassVar[tuple[str, ...]]
    DESCRIPTION: ClassVar[str]

    __slots__ = ("_value", "text")

    def __init__(self, text: str) -> None:
        match = re.fullmatch(self.PATTERN, text) if isinstance(text, str) else None
        if match is None:
            raise ValueError(f"expected {self.EXPECTED}, found {describe(text)}")
        value = float(match.group(1)) * self.UNITS[match.group(2)]
        if value == 0 and not self.ALLOW_ZERO:
            raise ValueError(f"expected {self.NOUN} above zero, like {self.EXAMPLES[0]}, found {text!r}")
        self.text: str = text
        self._value: float = value

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.text!r})"

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, _Quantity)
        return self._value == other._value

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._value))

    def __lt__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, _Quantity)
        return self._value < other._value

    # -- pydantic --------------------------------------------------------------------------------------

    @classmethod
    def _validate(cls, value: Any) -> Any:
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            try:
                return cls(value)
            except ValueError as exc:
                raise PydanticCustomError(cls.ERROR_TYPE, "{message}", {"message": str(exc)}) from None
        hint = ""
        if isinstance(value, int | float) and not isinstance(value, bool):
            hint = f" without a unit (write it like {cls.EXAMPLES[0]})"
        raise PydanticCustomError(
            cls.ERROR_TYPE, "{message}", {"message": f"expected {cls.EXPECTED}, found {describe(value)}{hint}"}
        )

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            cls._validate,
            serialization=core_schema.plain_serializer_function_ser_schema(str, when_used="always"),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {
            "type": "string",
            "pattern": f"^{cls.PATTERN}$",
            "description": cls.DESCRIPTION,
            "examples": list(cls.EXAMPLES),
        }


class Duration(_Quantity):
    """A duration such as `500ms`, `3s`, `1.5s`, `1m` or `1h`; :attr:`seconds` is its length."""

    ERROR_TYPE = "duration"
    NOUN = "a duration"
    EXPECTED = "a duration like 500ms, 3s or 1m"
    PATTERN = rf"({_NUMBER})(ms|s|m|h)"
    UNITS: ClassVar[dict[str, float]] = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    EXAMPLES = ("3s", "500ms", "1.5s", "1m")
    DESCRIPTION = "A duration: a number and a unit, ms, s, m or h (500ms, 3s, 1.5s, 1m)."

    __slots__ = ()

    @property
    def seconds(self) -> float:
        return self._value


class Size(_Quantity):
    """A size in bytes such as `100B`, `4KB` (1000 bytes each), `4KiB` (1024), `1MB` or `1MiB`."""

    ERROR_TYPE = "size"
    NOUN = "a size"
    EXPECTED = "a size like 100B, 4KB, 4KiB or 1MiB"
    PATTERN = rf"({_NUMBER})(B|KB|KiB|MB|MiB)"
    UNITS: ClassVar[dict[str, float]] = {"B": 1, "KB": 1000, "KiB": 1024, "MB": 1000**2, "MiB": 1024**2}
    ALLOW_ZERO = False
    EXAMPLES = ("100B", "4KB", "4KiB", "1MiB")
    DESCRIPTION = "A size: a number and a unit, B, KB (1000 B), KiB (1024 B), MB or MiB (100B, 4KiB)."

    __slots__ = ()

    @property
    def bytes(self) -> int:
        return round(self._value)


class Bandwidth(_Quantity):
    """A bandwidth such as `64KB/s` or `1MiB/s`; :attr:`bytes_per_second` is its value."""

    ERROR_TYPE = "bandwidth"
    NOUN = "a bandwidth"
    EXPECTED = "a bandwidth like 64KB/s or 1MiB/s"
    PATTERN = rf"({_NUMBER})(B|KB|KiB|MB|MiB)/s"
    UNITS = Size.UNITS
    ALLOW_ZERO = False
    EXAMPLES = ("64KB/s", "1MiB/s")
    DESCRIPTION = "A bandwidth: a size per second (64KB/s, 1MiB/s)."

    __slots__ = ()

    @property
    def bytes_per_second(self) -> float:
        return self._value


class Rate(_Quantity):
    """A message rate such as `20/s` or `120/m`; :attr:`per_second` is its value."""

    ERROR_TYPE = "rate"
    NOUN = "a rate"
    EXPECTED = "a rate like 20/s or 120/m"
    PATTERN = rf"({_NUMBER})/(s|m)"
    UNITS: ClassVar[dict[str, float]] = {"s": 1.0, "m": 1 / 60}
    ALLOW_ZERO = False
    EXAMPLES = ("20/s", "120/m")
    DESCRIPTION = "A message rate: a number of messages per second (/s) or per minute (/m), e.g. 20/s."

    __slots__ = ()

    @property
    def per_second(self) -> float:
        return self._value


QUANTITY_ERROR_TYPES = frozenset(cls.ERROR_TYPE for cls in (Duration, Size, Bandwidth, Rate))
