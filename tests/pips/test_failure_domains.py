"""The PIP-7 component against a recorded admin API (answers shaped like Pulsar 4.0.8's); no broker needed."""

from __future__ import annotations

import http.server
import threading
from typing import Any

import pytest

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.admin.failover import FailoverAdminClient
from pytest_pulsar_ha.errors import AdminError, ConfigurationError
from pytest_pulsar_ha.pips.failure_domains import (
    anti_affinity_group,
    declare_failure_domains,
    domains_by_broker_id,
    group_placement,
    owner_id,
    set_anti_affinity_group,
)
from pytest_pulsar_ha.process.ports import free_ports

IDS = ["127.0.0.1:8080", "127.0.0.1:8081", "127.0.0.1:8082", "127.0.0.1:8083"]
FULL = "0x00000000_0xffffffff"


class FakeAdmin(AdminClient):
    """Answers GETs from a dict of path -> body; records every call."""

    def __init__(self, answers: dict[str, Any]) -> None:
        super().__init__("http://fake")
        self.answers = answers
        self.calls: list[tuple[str, str, Any]] = []

    def call(self, method: str, path: str, payload: Any = None) -> Any:
        self.calls.append((method, path, payload))
        if method != "GET":
            return None
        if path not in self.answers:
            raise AdminError(method, path, 404, "not found")
        return self.answers[path]

    def get_raw(self, path: str) -> tuple[int, dict[str, str], bytes]:
        if path not in self.answers:
            return 404, {}, b"not found"
        return 200, {}, str(self.answers[path]).encode()


def _cluster_answers(owned: dict[str, list[str]], namespaces: list[str]) -> dict[str, Any]:
    answers: dict[str, Any] = {
        "brokers/c": sorted(owned),
        "clusters/c/failureDomains": {
            "rack-1": {"brokers": IDS[:2]},
            "rack-2": {"brokers": IDS[2:]},
        },
        "namespaces/t": [*namespaces, "t/not-in-the-group"],
        "namespaces/t/not-in-the-group/antiAffinity": "other",
    }
    for broker, bundles in owned.items():
        answers[f"brokers/c/{broker}/ownedNamespaces"] = {b: {"broker_assignment": "primary"} for b in bundles}
    for ns in namespaces:
        answers[f"namespaces/{ns}/bundles"] = {"boundaries": ["0x00000000", "0xffffffff"], "numBundles": 1}
        answers[f"namespaces/{ns}/antiAffinity"] = "g"
    return answers


def test_indexes_become_broker_ids() -> None:
    assert domains_by_broker_id(IDS, {"rack-1": [0, 1], "rack-2": [2, 3]}) == {
        "rack-1": IDS[:2],
        "rack-2": IDS[2:],
    }


@pytest.mark.parametrize(
    ("domains", "message"),
    [
        ({"rack-1": [0, 4]}, "broker index 4 is out of range; the cluster has 4 brokers"),
        ({"rack-1": [0, 1], "rack-2": [1, 2]}, "broker 1 is already in domain rack-1"),
        ({"rack-1": []}, "failure domain rack-1: no broker"),
        ({}, "none given"),
        ({"a/b": [0]}, "not valid"),
    ],
)
def test_bad_domains_say_what_is_wrong(domains: dict[str, list[int]], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        domains_by_broker_id(IDS, domains)


def test_declare_posts_each_domain_and_returns_what_pulsar_reports() -> None:
    admin = FakeAdmin(_cluster_answers({}, []))

    class Cluster:
        name = "c"

        def __init__(self) -> None:
            self.admin = admin
            self.brokers = [type("B", (), {"id": i})() for i in IDS]

    reported = declare_failure_domains(Cluster(), {"rack-1": [0, 1], "rack-2": [2, 3]})
    posts = [(path, payload) for method, path, payload in admin.calls if method == "POST"]
    assert posts == [
        ("clusters/c/failureDomains/rack-1", {"brokers": IDS[:2]}),
        ("clusters/c/failureDomains/rack-2", {"brokers": IDS[2:]}),
    ]
    assert reported == {"rack-1": IDS[:2], "rack-2": IDS[2:]}


def test_a_spread_group_has_no_problems() -> None:
    namespaces = ["t/a", "t/b", "t/c", "t/d"]
    owned = {IDS[0]: [f"t/a/{FULL}"], IDS[1]: [f"t/c/{FULL}"], IDS[2]: [f"t/b/{FULL}"], IDS[3]: [f"t/d/{FULL}"]}
    placement = group_placement(FakeAdmin(_cluster_answers(owned, namespaces)), "c", "g", "t")
    assert placement.namespaces_by_domain() == {"rack-1": ["t/a", "t/c"], "rack-2": ["t/b", "t/d"]}
    assert placement.spread_problems() == []
    assert next((b.namespace, b.broker, b.domain) for b in placement.bundles) == ("t/a", IDS[0], "rack-1")


def test_a_group_piled_on_one_domain_is_reported() -> None:
    namespaces = ["t/a", "t/b"]
    owned = {IDS[0]: [f"t/a/{FULL}"], IDS[1]: [f"t/b/{FULL}"], IDS[2]: [], IDS[3]: []}
    placement = group_placement(FakeAdmin(_cluster_answers(owned, namespaces)), "c", "g", "t")
    assert placement.spread_problems() == ["namespaces per live domain are uneven: {'rack-1': 2, 'rack-2': 0}"]


def test_uneven_brokers_inside_a_domain_are_reported() -> None:
    namespaces = ["t/a", "t/b", "t/c", "t/d"]
    owned = {IDS[0]: [f"t/a/{FULL}", f"t/c/{FULL}"], IDS[1]: [], IDS[2]: [f"t/b/{FULL}"], IDS[3]: [f"t/d/{FULL}"]}
    problems = group_placement(FakeAdmin(_cluster_answers(owned, namespaces)), "c", "g", "t").spread_problems()
    assert problems == [f"namespaces per live broker in rack-1 are uneven: {{'{IDS[0]}': 2, '{IDS[1]}': 0}}"]


def test_an_unowned_bundle_is_reported_not_guessed() -> None:
    owned = {IDS[0]: [f"t/a/{FULL}"]}
    placement = group_placement(FakeAdmin(_cluster_answers(owned, ["t/a", "t/b"])), "c", "g", "t")
    assert [b.namespace for b in placement.unowned()] == ["t/b"]
    assert f"t/b bundle {FULL} has no owner" in placement.spread_problems()


def test_a_group_name_is_posted_raw_and_read_back_verbatim() -> None:
    bodies: list[tuple[str, bytes, str]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            bodies.append((self.path, body, self.headers["Content-Type"]))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        (dead,) = free_ports(1)
        admin = FailoverAdminClient([f"http://127.0.0.1:{dead}", f"http://127.0.0.1:{server.server_address[1]}"])
        set_anti_affinity_group(admin, "t/b", "g1")
    finally:
        server.shutdown()
        server.server_close()
    # JSON-encoded, Pulsar 4.0.8 would store the group as '"g1"' (quotes included): a different group.
    assert bodies == [("/admin/v2/namespaces/t/b/antiAffinity", b"g1", "application/json")]
    with pytest.raises(ConfigurationError, match="group name is empty"):
        set_anti_affinity_group(admin, "t/a", " ")


def test_group_reads_are_exact() -> None:
    admin = FakeAdmin({"namespaces/t/a/antiAffinity": "g", "namespaces/t/q/antiAffinity": '"g"'})
    assert anti_affinity_group(admin, "t/a") == "g"
    assert anti_affinity_group(admin, "t/q") == '"g"'  # not silently unquoted: it is another group
    assert anti_affinity_group(admin, "t/zzz") is None


def test_owner_id_comes_from_the_lookup_http_url() -> None:
    assert owner_id({"brokerUrl": "pulsar://127.0.0.1:1", "httpUrl": "http://127.0.0.1:8081"}) == "127.0.0.1:8081"


def test_a_dead_broker_does_not_count_for_evenness_inside_its_domain() -> None:
    namespaces = ["t/a", "t/b", "t/c", "t/d"]
    owned = {IDS[0]: [f"t/a/{FULL}"], IDS[1]: [f"t/c/{FULL}"], IDS[3]: [f"t/b/{FULL}", f"t/d/{FULL}"]}
    placement = group_placement(FakeAdmin(_cluster_answers(owned, namespaces)), "c", "g", "t")
    assert placement.active == tuple(sorted(owned))
    assert placement.spread_problems() == []  # IDS[2] is gone: rack-2's only broker holds both
