"""A warm environment's description and digest: the same settings give the same digest, any difference in what
the processes are gives another one and is named field by field."""

from __future__ import annotations

import dataclasses

import pytest

from pytest_pulsar_ha.settings import HaSettings
from pytest_pulsar_ha.settings.clusters import ClusterSpec
from pytest_pulsar_ha.warm.description import EnvironmentDescription

BASE = HaSettings(clusters=(ClusterSpec("cluster-a"), ClusterSpec("cluster-b")))
SEEDED = dataclasses.replace(BASE, clusters=(ClusterSpec("cluster-a"), ClusterSpec("cluster-b", ledger_ids_high=True)))


def test_the_same_settings_have_the_same_digest_and_it_survives_a_round_trip() -> None:
    description = EnvironmentDescription.of(BASE)
    again = EnvironmentDescription.of(dataclasses.replace(BASE, startup_timeout=999.0))  # not what it is
    assert description.digest == again.digest and len(description.digest) == 16
    assert EnvironmentDescription.from_json(description.to_json()) == description
    assert description.summary() == "pulsar 4.2.4, embedded, cluster-a:1,cluster-b:1, heap 512m"


@pytest.mark.parametrize(
    ("changed", "field"),
    [
        (dataclasses.replace(BASE, pulsar_version="4.0.8"), "pulsar_version"),
        (dataclasses.replace(BASE, heap="1g"), "heap"),
        (dataclasses.replace(BASE, clusters=(ClusterSpec("cluster-b"), ClusterSpec("cluster-a"))), "clusters"),
        (
            dataclasses.replace(BASE, clusters=(ClusterSpec("cluster-a", brokers=2), ClusterSpec("cluster-b"))),
            "clusters",
        ),
        (
            dataclasses.replace(BASE, clusters=(ClusterSpec("cluster-a", auth="token"), ClusterSpec("cluster-b"))),
            "clusters",
        ),
        (
            dataclasses.replace(
                BASE, clusters=(ClusterSpec("cluster-a", broker_settings={"x": "1"}), ClusterSpec("cluster-b"))
            ),
            "clusters",
        ),
        (
            dataclasses.replace(
                BASE, clusters=(ClusterSpec("cluster-a"), ClusterSpec("cluster-b", ledger_ids_high=True))
            ),
            "clusters",
        ),
        (dataclasses.replace(BASE, backend="docker"), "backend"),
    ],
)
def test_any_difference_in_what_runs_is_another_digest_and_is_named(changed: HaSettings, field: str) -> None:
    wanted, running = EnvironmentDescription.of(changed), EnvironmentDescription.of(BASE)
    assert wanted.digest != running.digest
    (difference,) = wanted.differences(running)
    assert difference.startswith(f"{field}: ") and difference.endswith(" running")


def test_ledger_ids_seeded_apart_are_described_and_started_again_from_the_description() -> None:
    seeded = dataclasses.replace(
        BASE, clusters=(ClusterSpec("cluster-a"), ClusterSpec("cluster-b", ledger_ids_high=True))
    )
    description = EnvironmentDescription.from_json(EnvironmentDescription.of(seeded).to_json())
    assert [c.spec().ledger_ids_high for c in description.clusters] == [False, True]  # what the keeper starts
    assert "cluster-b:1[ledger-ids-high]" in description.summary()


NOT_A_FLAG = {**EnvironmentDescription.of(BASE).to_json()}
NOT_A_FLAG["clusters"] = [{**NOT_A_FLAG["clusters"][0], "ledger_ids_high": "yes"}]


@pytest.mark.parametrize("data", [None, [], {}, {"backend": "embedded"}, {"clusters": [{"name": 1}]}, NOT_A_FLAG])
def test_what_is_not_a_description_is_said_so(data: object) -> None:
    with pytest.raises(ValueError, match="not an environment description"):
        EnvironmentDescription.from_json(data)


def test_each_xdist_worker_has_an_environment_of_its_own() -> None:
    only, worker = EnvironmentDescription.of(BASE), EnvironmentDescription.of(BASE, "gw1")
    assert only.digest != worker.digest
    assert worker.summary().endswith(", heap 512m, for gw1")
    assert EnvironmentDescription.from_json(worker.to_json()) == worker
