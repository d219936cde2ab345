"""The side-by-side figures of a scenario's variants, from histories written here (pure logic)."""

from __future__ import annotations

import json

from pytest_pulsar_ha.checks.figures import run_figures
from pytest_pulsar_ha.checks.side_by_side import client_label, family_tables, side_by_side, text_table
from pytest_pulsar_ha.history import ACK, FAULT_END, FAULT_START, RECEIVE, SEND, SEND_ERROR, SWITCH, Event
from pytest_pulsar_ha.scenario.providers import AutoProvider, NativeProvider

T0 = 1_700_000_000 * 1_000_000_000
S = 1_000_000_000
LABEL = "#0 outage cluster-a"


def history(java_decision: str | None = None) -> list[Event]:
    events = [Event(T0 + 6 * S, FAULT_START, "nemesis", cluster="cluster-a", detail=LABEL)]
    events.append(Event(T0 + 18 * S, FAULT_END, "nemesis", cluster="cluster-a", detail=LABEL))
    acks = {
        1: ("cluster-a", 1),
        2: ("cluster-a", 5),
        3: ("cluster-b", 8.6),
        4: ("cluster-b", 17),
        5: ("cluster-a", 22.5),
    }
    for seq, (cluster, at) in acks.items():
        events.append(Event(T0 + int((at - 0.1) * S), SEND, "producer-0", producer="producer-0", seq=seq, topic="t"))
        events.append(Event(T0 + int(at * S), ACK, "producer-0", cluster=cluster, producer="producer-0", seq=seq))
    events.append(Event(T0 + 7 * S, SEND, "producer-0", producer="producer-0", seq=6, topic="t"))
    events.append(Event(T0 + 9 * S, SEND_ERROR, "producer-0", producer="producer-0", seq=6, topic="t"))
    for seq in (1, 2, 3, 4, 2):  # 5 never received: lost; 2 twice: a duplicate
        events.append(Event(T0 + 30 * S, RECEIVE, "consumer-0", subscription="s", producer="producer-0", seq=seq))
    detail = json.dumps({"reason": "java", "decision": java_decision}) if java_decision else "ours"
    events.append(Event(T0 + int(8.5 * S), SWITCH, "provider", cluster="cluster-b", detail=detail))
    events.append(Event(T0 + 22 * S, SWITCH, "provider", cluster="cluster-a", detail="back"))
    return events


def test_the_row_measures_switches_by_acks_and_counts_failed_lost_and_duplicates() -> None:
    events = history(json.dumps({"java_log": "down for 2000 ms", "down_for_ms": 2000}))
    row = side_by_side("primary-outage[java]", "java: Java's AutoClusterFailover", events, run_figures(events))
    assert row.fault == LABEL
    assert row.switch_s == 2.6  # the first ack by cluster-b, 8.6 s - 6 s
    assert row.switch_back_s == 4.5  # the first ack by cluster-a after the end, 22.5 s - 18 s
    assert row.provider_switches == ("+2.50s to cluster-b (down for 2000 ms)", "+16.00s to cluster-a")
    assert (row.sends, row.sends_failed, row.lost, row.duplicates) == (6, 1, 1, 1)
    assert row.rto_s == 8.4  # the longest stretch without an ack during the fault: 8.6 s to 17 s


def test_a_run_that_never_leaves_the_faulted_cluster_has_no_switch_back() -> None:
    events = [e for e in history() if e.cluster != "cluster-b"]
    row = side_by_side("hung-primary[java]", "java", events, run_figures(events))
    assert (row.switch_s, row.switch_back_s) == (None, None)
    assert row.cells()[2:4] == ("none", "")


def test_families_with_several_members_on_the_same_fault_make_tables() -> None:
    events = history()
    rows = [side_by_side(case, "x", events, run_figures(events)) for case in ("a", "a[native]", "b")]
    other = [e for e in events if e.type != FAULT_START] + [Event(T0, FAULT_START, "nemesis", detail="#0 other")]
    rows.append(side_by_side("c", "x", events, None))
    rows.append(side_by_side("c[v]", "x", other, None))
    assert list(family_tables(rows)) == [f"a ({LABEL})"]  # b is alone, c's variants ran different faults
    lines = text_table(family_tables(rows)[f"a ({LABEL})"])
    assert lines[0].split()[:2] == ["case", "client"] and len(lines) == 3


def test_the_client_label_names_the_provider() -> None:
    auto = AutoProvider(kind="auto", primary="a", secondaries=("b",), failover_delay="2s", switch_back_delay="4s")  # type: ignore[arg-type]
    native = NativeProvider(kind="native", primary="a", secondaries=("b",), failover_delay="2s", switch_back_delay="4s")  # type: ignore[arg-type]
    assert client_label("python", auto) == "python: ours (auto, lookup probe)"
    assert client_label("python", native) == "python: native AutoClusterFailover"
    assert client_label("java", auto) == "java: Java's AutoClusterFailover"


def test_the_index_page_shows_a_family_as_one_table(tmp_path: object) -> None:
    from pathlib import Path

    from pytest_pulsar_ha.report.index import write_index
    from pytest_pulsar_ha.report.result import ScenarioResult

    events = history(json.dumps({"java_log": "down for 2497 ms"}))
    results = []
    for case, label in (("po", "python: ours"), ("po[native]", "python: native"), ("po[java]", "java: Java's")):
        result = ScenarioResult(case, "passed", 1, figures=run_figures(events))
        result.side_by_side = side_by_side(case, label, events, result.figures)
        results.append(result)
    page = write_index(results, Path(str(tmp_path))).read_text()
    assert f"<h2>side by side: po ({LABEL})</h2>" in page
    assert page.count("<td>2.60s</td>") == 3 and "(down for 2497 ms)" in page


def test_an_operator_switch_is_measured_to_the_cluster_it_names() -> None:
    label = "#0 operator_switch ->cluster-b"
    events = [
        Event(T0, FAULT_START, "nemesis", cluster="cluster-b", detail=label),
        Event(T0 + 1, FAULT_END, "nemesis", cluster="cluster-b", detail=label),
        Event(T0 + S // 10, ACK, "p", cluster="cluster-a", producer="p", seq=1),
        Event(T0 + S // 2, ACK, "p", cluster="cluster-b", producer="p", seq=2),
    ]
    row = side_by_side("controlled-switch[java]", "java", events, run_figures(events))
    assert (row.switch_s, row.switch_back_s) == (0.5, None)
