"""The Java driver as a process, without clusters: built from drivers/java by Maven (once per source hash, in the
cache), it refuses a bad configuration with a clear error, and its JSON lines are read as history events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_pulsar_ha.history import ACK, SWITCH, EventLog
from pytest_pulsar_ha.provisioning import default_cache_dir
from pytest_pulsar_ha.provisioning.java_driver import ensure_java_driver, source_hash
from pytest_pulsar_ha.workload.java_workload import JavaDriverError, JavaWorkload


def test_the_source_hash_follows_the_sources_and_the_client_version(tmp_path: Path) -> None:
    (tmp_path / "pom.xml").write_text("<project/>")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "Main.java").write_text("class Main {}")
    first = source_hash(tmp_path, "4.0.8")
    assert source_hash(tmp_path, "4.0.7") != first
    (tmp_path / "target").mkdir()
    (tmp_path / "target" / "x.class").write_text("built")  # a local build's output is not a source
    assert source_hash(tmp_path, "4.0.8") == first
    (tmp_path / "src" / "Main.java").write_text("class Main { }")
    assert source_hash(tmp_path, "4.0.8") != first


@pytest.fixture(scope="module")
def command_of() -> object:
    driver = ensure_java_driver("4.0.8", default_cache_dir(), lambda line: print(line))
    return driver.command


def test_a_bad_configuration_is_refused_with_what_is_wrong(tmp_path: Path, command_of: object) -> None:
    config = {"clusters": {}, "topics": [], "provider": {"kind": "native"}, "ratePerSecond": 0}
    workload = JavaWorkload(command_of(tmp_path / "java-driver.json"), config, EventLog(), tmp_path)  # type: ignore[operator]
    with pytest.raises(JavaDriverError) as raised:
        workload.start()
    message = str(raised.value)
    assert "bad driver configuration: clusters is empty; topics is empty; ratePerSecond must be > 0" in message
    assert "provider.kind must be auto, controlled or none, found native" in message
    assert json.loads((tmp_path / "java-driver.json").read_text()) == config  # kept as evidence


def test_an_unknown_configuration_key_is_refused(tmp_path: Path, command_of: object) -> None:
    config = {"clusters": {"a": {"serviceUrl": "pulsar://127.0.0.1:1"}}, "topics": ["t"], "rate": 5}
    workload = JavaWorkload(command_of(tmp_path / "java-driver.json"), config, EventLog(), tmp_path)  # type: ignore[operator]
    with pytest.raises(JavaDriverError, match='Unrecognized field "rate"'):
        workload.start()


def test_driver_lines_become_events_and_bad_lines_are_reported(tmp_path: Path) -> None:
    log = EventLog()
    workload = JavaWorkload(["true"], {}, log, tmp_path)
    ack = {"ts_ns": 1_700_000_000_000_000_000, "type": ACK, "process": "producer-0", "producer": "producer-0"}
    workload._line(json.dumps({**ack, "seq": 1, "topic": "t", "message_id": "1:2:-1", "cluster": None}))
    workload._line(
        json.dumps({"ts_ns": 1_700_000_000_000_000_001, "type": SWITCH, "process": "provider", "cluster": "b"})
    )
    workload._line(json.dumps({**ack, "seq": "2"}))  # seq must be an integer
    workload._line(json.dumps({**ack, "type": "acked"}))  # not an event type
    workload._line("not json")
    workload._line(json.dumps({"control": "hung_close", "detail": "producer x: close() did not return"}))
    assert [(e.type, e.seq) for e in log.snapshot()] == [(ACK, 1), (SWITCH, None)]
    assert len(workload.callback_errors) == 3
    assert workload.hung_closes == ["producer x: close() did not return"]
    assert not workload.drain(0.3)  # seq 1 acknowledged, never received
    workload._line(json.dumps({**ack, "type": "receive", "seq": 1, "subscription": "s"}))
    assert workload.drain(1.0)
