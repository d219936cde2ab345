"""Each standalone of an environment numbers its ledgers apart from the others (runtime/nodes/ledger_ids.py), so
a (ledger, entry) position names one cluster: which cluster delivered a replicated message is read from storage
without ambiguity. Real clusters; the seed's failure path with a stand-in for Java."""

from __future__ import annotations

from pathlib import Path

import pulsar
import pytest

from pytest_pulsar_ha.errors import StartupError
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.runtime.ledger_owners import ledger_id_range
from pytest_pulsar_ha.runtime.nodes.ledger_ids import seed_ledger_ids
from pytest_pulsar_ha.workload.attribution import CachedEntries
from pytest_pulsar_ha.workload.storage_lookup import acknowledging_cluster, delivering_cluster


def test_ranges_are_disjoint_and_above_pulsars_own_numbering() -> None:
    first, second = ledger_id_range(1), ledger_id_range(2)
    assert first == (1 << 32, 2 << 32) and second[0] == first[1]
    assert first[0] > 2**31  # Pulsar's own 31-bit ids stay below every seeded range


def test_a_seed_that_fails_says_why_with_its_output(tmp_path: Path) -> None:
    java = tmp_path / "java"
    java.write_text("#!/bin/sh\necho 'Error: could not find or load main class' >&2\nexit 1\n")
    java.chmod(0o755)
    with pytest.raises(StartupError, match="could not seed the ledger ids") as failed:
        seed_ledger_ids(java, tmp_path, tmp_path / "metadata", 2, tmp_path / "seed.log")
    assert "could not find or load main class" in str(failed.value)
    assert (tmp_path / "seed.log").read_text().startswith("$ ")
    with pytest.raises(ValueError):
        seed_ledger_ids(java, tmp_path, tmp_path / "metadata", 0, tmp_path / "seed.log")


@pytest.mark.real_clusters
def test_a_replicated_message_is_attributed_to_the_cluster_that_delivered_it(
    pulsar_ha: PulsarHaEnvironment, geo_namespace: str
) -> None:
    a, b = pulsar_ha.names[0], pulsar_ha.names[1]
    ranges = {name: ledger_id_range(pulsar_ha.cluster(name).node.ledger_id_high_bits or 0) for name in (a, b)}
    assert ranges[a] != ranges[b] and ranges[a][0] > 0
    topic = f"persistent://{geo_namespace}/attributed"
    payload = b"producer-0#1#"
    client_a, client_b = pulsar_ha.client(a), pulsar_ha.client(b)
    try:
        consumer = client_b.subscribe(topic, "attribution", initial_position=pulsar.InitialPosition.Earliest)
        acked = client_a.create_producer(topic).send(payload)
        received = consumer.receive(timeout_millis=60_000)
        consumer.acknowledge(received)
    finally:
        client_a.close()
        client_b.close()
    assert received.data() == payload
    sent_at, got_at = acked, received.message_id()
    assert ranges[a][0] <= sent_at.ledger_id() < ranges[a][1], sent_at
    assert ranges[b][0] <= got_at.ledger_id() < ranges[b][1], got_at
    admins = {name: CachedEntries(pulsar_ha.cluster(name).admin) for name in pulsar_ha.names}
    assert acknowledging_cluster(admins, topic, sent_at.ledger_id(), sent_at.entry_id(), payload) == a
    assert delivering_cluster(admins, topic, got_at.ledger_id(), got_at.entry_id(), payload) == b
    # the shortcut the run's attribution takes for seeded ids names the same clusters as the storage reads
    seeded = pulsar_ha.seeded_ledger_ids()
    assert seeded[sent_at.ledger_id() >> 32] == a and seeded[got_at.ledger_id() >> 32] == b
