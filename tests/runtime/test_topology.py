import pytest

from pytest_pulsar_ha import ClusterSpec, ConfigurationError, parse_clusters
from pytest_pulsar_ha.settings.clusters import ordered_pairs


def test_count_gives_default_names() -> None:
    assert [s.name for s in parse_clusters("3")] == ["cluster-a", "cluster-b", "cluster-c"]


def test_names_keep_their_order() -> None:
    assert [s.name for s in parse_clusters(" west , east ")] == ["west", "east"]


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("0", "out of range"),
        ("6", "out of range"),
        ("", "is empty"),
        ("a,,b", "empty name"),
        ("east,east", "names east twice"),
        ("East", "not valid"),
        ("a,b,c,d,e,f", "has 6 clusters"),
    ],
)
def test_bad_values_say_what_and_where(value: str, fragment: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        parse_clusters(value, "--pulsar-ha-clusters")
    assert fragment in str(info.value)
    assert "--pulsar-ha-clusters" in str(info.value)


def test_spec_rejects_zero_brokers() -> None:
    with pytest.raises(ConfigurationError, match="brokers must be at least 1"):
        ClusterSpec("a", brokers=0)


def test_ordered_pairs_cover_every_direction() -> None:
    assert ordered_pairs(["a", "b", "c"]) == [
        ("a", "b"),
        ("a", "c"),
        ("b", "a"),
        ("b", "c"),
        ("c", "a"),
        ("c", "b"),
    ]
