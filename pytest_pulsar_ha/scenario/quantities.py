"""Quantities written as text in scenario files: durations (`500ms`), sizes (`100B`), rates and bandwidths.

Each keeps the text as written (:attr:`text`, for messages) and exposes its value in base units. They validate
themselves inside pydantic models (with plain-word errors) and appear in the JSON Schema as strings with a pattern.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

_NUMBER = r"[0-9]+(?:\.[0-9]+)?"
#: A number of :data:`_NUMBER`'s form with a digit other than 0: above zero.
_POSITIVE_NUMBER = r"(?:[0-9]*[1-9][0-9]*(?:\.[0-9]+)?|[0-9]+\.[0-9]*[1-9][0-9]*)"
_LONG = 60  # values longer than this are shortened in messages


def _shortened(text: str) -> str:
    return text if len(text) <= _LONG else f"{text[:4]}…{text[-4:]}"


def describe(value: object) -> str:
    """A value found in a scenario file, in plain words: `'10 seconds'`, `the number 12`, `a list`."""
    if value is None:
        return "an empty value"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and abs(value) >= 10**_LONG:
        digits = str(abs(value))  # below the 4300 digits Python converts (YAML cannot read longer numbers)
        sign = "-" if value < 0 else ""
        return f"the number {sign}{_shortened(digits)} ({len(digits)} digits)"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return repr(value) if len(value) <= _LONG else f"{_shortened(value)!r} ({len(value)} characters)"
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
        if not math.isfinite(value):
            raise ValueError(f"expected {self.EXPECTED}, found {describe(text)}: a number too large to compute with")
        if value == 0 and not self.ALLOW_ZERO:
            raise ValueError(f"expected {self.NOUN} above zero, like {self.EXAMPLES[0]}, found {text!r}")
        self.text: str = text
        self._value: float = value

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.text!r})"

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self) or not isinstance(other, _Quantity):
            return NotImplemented
        return self._value == other._value

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._value))

    def __lt__(self, other: object) -> bool:
        if type(other) is not type(self) or not isinstance(other, _Quantity):
            return NotImplemented
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
            "pattern": f"^{cls.PATTERN if cls.ALLOW_ZERO else positive_pattern(cls.PATTERN)}$",
            "description": cls.DESCRIPTION if cls.ALLOW_ZERO else f"{cls.DESCRIPTION} Above zero.",
            "examples": list(cls.EXAMPLES),
        }

    @classmethod
    def valid_values(cls) -> str:
        """What values are valid, in words (for messages and the docs)."""
        return f"{cls.NOUN} of 0 or more" if cls.ALLOW_ZERO else f"{cls.NOUN} above zero"


def positive_pattern(pattern: str) -> str:
    """A quantity's pattern that matches its values above zero only."""
    return pattern.replace(_NUMBER, _POSITIVE_NUMBER)


@dataclass(frozen=True)
class AboveZero:
    """``Annotated[Duration, AboveZero()]``: a quantity above zero, checked, in the JSON Schema and in the docs."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self._check, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        result = dict(handler(schema))
        if isinstance(result.get("pattern"), str):
            result["pattern"] = positive_pattern(result["pattern"])
            result["description"] = f"{result.get('description', '')} Above zero.".strip()
        return result

    @staticmethod
    def _check(value: Any) -> Any:
        if isinstance(value, _Quantity) and value._value <= 0:
            raise PydanticCustomError(
                type(value).ERROR_TYPE,
                "{message}",
                {"message": f"expected {value.NOUN} above zero, found {value.text!r}"},
            )
        return value

    @staticmethod
    def valid_values(quantity: type[_Quantity]) -> str:
        return f"{quantity.NOUN} above zero"


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
