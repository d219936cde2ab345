"""Durations, sizes, rates and bandwidths written as text."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from pytest_pulsar_ha.scenario import Bandwidth, Duration, Rate, Size


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("500ms", 0.5), ("3s", 3.0), ("1.5s", 1.5), ("1m", 60.0), ("2h", 7200.0), ("0ms", 0.0), ("0.25s", 0.25)],
)
def test_durations_parse_and_keep_their_text(text: str, seconds: float) -> None:
    duration = Duration(text)
    assert duration.seconds == seconds
    assert duration.text == text
    assert str(duration) == text
    assert repr(duration) == f"Duration({text!r})"


@pytest.mark.parametrize("text", ["10 seconds", "3", "3 s", "-1s", "1m30s", "s", "1.s", ".5s", "3S", ""])
def test_bad_durations_say_what_is_expected(text: str) -> None:
    with pytest.raises(ValueError, match=r"expected a duration like 500ms, 3s or 1m, found "):
        Duration(text)


def test_durations_compare_by_length() -> None:
    assert Duration("1000ms") == Duration("1s")
    assert hash(Duration("1000ms")) == hash(Duration("1s"))
    assert Duration("500ms") < Duration("1s") <= Duration("1s") < Duration("1m")
    assert max(Duration("2s"), Duration("1.5s")).text == "2s"
    assert Duration("1s") != Rate("1/s")


def test_sizes_rates_and_bandwidths() -> None:
    assert Size("100B").bytes == 100
    assert Size("4KB").bytes == 4000
    assert Size("4KiB").bytes == 4096
    assert Size("1MB").bytes == 1_000_000
    assert Size("1MiB").bytes == 1_048_576
    assert Rate("20/s").per_second == 20
    assert Rate("120/m").per_second == pytest.approx(2.0)
    assert Bandwidth("64KB/s").bytes_per_second == 64_000
    assert Bandwidth("1MiB/s").bytes_per_second == 1_048_576


@pytest.mark.parametrize(
    ("kind", "text", "message"),
    [
        (Size, "100", "expected a size like 100B, 4KB, 4KiB or 1MiB, found '100'"),
        (Size, "0B", "expected a size above zero, like 100B, found '0B'"),
        (Rate, "20", "expected a rate like 20/s or 120/m, found '20'"),
        (Rate, "0/s", "expected a rate above zero, like 20/s, found '0/s'"),
        (Bandwidth, "64KB", "expected a bandwidth like 64KB/s or 1MiB/s, found '64KB'"),
    ],
)
def test_bad_quantities(kind: type[Size | Rate | Bandwidth], text: str, message: str) -> None:
    with pytest.raises(ValueError) as excinfo:
        kind(text)
    assert str(excinfo.value) == message


class _Holder(BaseModel):
    duration: Duration


def test_in_a_model_a_number_without_unit_is_explained() -> None:
    with pytest.raises(ValidationError) as excinfo:
        _Holder.model_validate({"duration": 12})
    error = excinfo.value.errors()[0]
    assert error["type"] == "duration"
    assert (
        error["msg"]
        == "expected a duration like 500ms, 3s or 1m, found the number 12 without a unit (write it like 3s)"
    )


def test_in_a_model_durations_serialize_as_written() -> None:
    holder = _Holder.model_validate({"duration": "1.5s"})
    assert holder.duration.seconds == 1.5
    assert holder.model_dump() == {"duration": "1.5s"}
    assert holder.model_dump_json() == '{"duration":"1.5s"}'
    assert _Holder(duration=Duration("2s")).duration == Duration("2s")
