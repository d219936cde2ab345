"""The session's JVM options (spark_checks.spark.session): no Spark started here, only the settings it would use."""

from __future__ import annotations

import pytest

from spark_checks.spark.session import DEFAULT_JAVA_OPTIONS, _chooses_collector


@pytest.mark.parametrize(
    ("options", "chooses"),
    [
        ("", False),
        ("-XX:TieredStopAtLevel=1", False),
        ("-XX:TieredStopAtLevel=1 -XX:+UseSerialGC", True),
        ("-XX:+UseG1GC", True),
        (DEFAULT_JAVA_OPTIONS, True),
    ],
)
def test_a_collector_chosen_by_the_caller_replaces_the_default(options: str, chooses: bool) -> None:
    """The default collector is added only when the caller's options choose none (two would stop the JVM)."""
    assert _chooses_collector(options) is chooses
