"""Pieces of the multi-broker runtime without Pulsar: admin failover, ZooKeeper readiness, one-shot tools,
and which proxies each fault of a cluster or of one broker cuts."""

from __future__ import annotations

import http.server
import os
import signal
import socketserver
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_pulsar_ha.admin.failover import FailoverAdminClient
from pytest_pulsar_ha.errors import AdminError, StartupError
from pytest_pulsar_ha.network.layout import ProxyLayout
from pytest_pulsar_ha.network.proxies import ProxyNetwork
from pytest_pulsar_ha.process.pid_registry import PidRegistry
from pytest_pulsar_ha.process.ports import free_ports
from pytest_pulsar_ha.process.processes import ManagedProcess
from pytest_pulsar_ha.process.readiness import ZooKeeperWait
from pytest_pulsar_ha.runtime.cluster import Cluster
from pytest_pulsar_ha.settings.clusters import ClusterSpec


class _Answer(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        status = 404 if self.path.endswith("/missing") else 200
        body = b'"from-live"' if status == 200 else b"no such thing"
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def live_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_admin_skips_a_broker_that_refuses_connections(live_url: str) -> None:
    (dead,) = free_ports(1)
    admin = FailoverAdminClient([f"http://127.0.0.1:{dead}", live_url], timeout=2)
    assert admin.get("brokers/health") == "from-live"
    assert admin.get_raw("brokers/health")[0] == 200


def test_admin_raises_http_errors_from_the_broker_that_answered(live_url: str) -> None:
    (dead,) = free_ports(1)
    admin = FailoverAdminClient([live_url, f"http://127.0.0.1:{dead}"], timeout=2)
    with pytest.raises(AdminError) as info:
        admin.get("missing")
    assert info.value.status == 404 and live_url in info.value.url


def test_admin_says_which_brokers_it_tried_when_none_answers() -> None:
    ports = free_ports(2)
    admin = FailoverAdminClient([f"http://127.0.0.1:{p}" for p in ports], timeout=2)
    with pytest.raises(OSError, match="no broker of the cluster answered") as info:
        admin.get("brokers/health")
    assert all(str(p) in str(info.value) for p in ports)


def _tcp_server(answer: bytes) -> socketserver.TCPServer:
    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            self.request.recv(4)
            self.request.sendall(answer)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_zookeeper_wait_accepts_imok_only() -> None:
    good, bad = _tcp_server(b"imok"), _tcp_server(b"This ZooKeeper instance is not currently serving requests")
    try:
        ZooKeeperWait(port=good.server_address[1], timeout=5, poll_interval=0.1).wait()
        with pytest.raises(StartupError, match=r"(?s)not ready after 1s.*ruok answered.*hint: is it up") as info:
            ZooKeeperWait(port=bad.server_address[1], timeout=1, poll_interval=0.1, hint="is it up").wait()
        assert "ZooKeeper 'ruok'" in str(info.value)
    finally:
        for server in (good, bad):
            server.shutdown()
            server.server_close()


def _tool(tmp_path: Path, script: str) -> tuple[ManagedProcess, PidRegistry]:
    registry = PidRegistry(tmp_path / "run")
    process = ManagedProcess("tool", ["sh", "-c", script], cwd=tmp_path, log_path=tmp_path / "log", registry=registry)
    return process, registry


def test_a_tool_run_to_completion_leaves_no_record(tmp_path: Path) -> None:
    process, registry = _tool(tmp_path, "echo done")
    process.run_to_completion(timeout=10)
    assert registry.records() == []
    assert "done" in process.log_tail()


def test_a_failing_tool_reports_its_code_log_and_hint(tmp_path: Path) -> None:
    process, registry = _tool(tmp_path, "echo 'cannot reach the metadata store'; exit 3")
    with pytest.raises(StartupError) as info:
        process.run_to_completion(timeout=10, hint="is ZooKeeper up?")
    text = str(info.value)
    assert (
        "exited with code 3" in text and "cannot reach the metadata store" in text and "hint: is ZooKeeper up?" in text
    )
    assert registry.records() == []


def test_a_hanging_tool_is_killed_at_its_timeout(tmp_path: Path) -> None:
    process, registry = _tool(tmp_path, "sleep 60")
    with pytest.raises(StartupError, match="did not finish within 1s"):
        process.run_to_completion(timeout=1)
    assert not process.is_running() and registry.records() == []


def test_a_finished_group_is_never_signalled_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    process, _ = _tool(tmp_path, "sleep 60")
    process.start()
    process.kill()
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(os, "killpg", lambda pgid, sig: sent.append((pgid, sig)))
    process.stop()
    process.kill()
    process.pause()
    assert sent == []  # the pid of a reaped leader may belong to someone else by now
    process.start()
    process.signal_group(signal.SIGCONT)
    assert sent == [(process.pid, signal.SIGCONT)]
    monkeypatch.undo()
    process.kill()


class _Recorder:
    """Stands in for the toxiproxy client: remembers which proxies are disabled."""

    def __init__(self) -> None:
        self.disabled: set[str] = set()

    def set_enabled(self, proxy: str, enabled: bool) -> None:
        (self.disabled.discard if enabled else self.disabled.add)(proxy)


class _Control:
    def __init__(self, name: str, web_port: int) -> None:
        self.name = name
        self.id = f"127.0.0.1:{web_port}"
        self.broker_url = "pulsar://127.0.0.1:1"
        self.web_url = f"http://127.0.0.1:{web_port}"
        self.killed = False

    def kill(self) -> None:
        self.killed = True


class _Node:
    def __init__(self, spec: ClusterSpec, layout: ProxyLayout) -> None:
        self.spec = spec
        self.token = None
        self.brokers: Sequence[_Control] = [
            _Control(f"broker {spec.name}/{r.index}", r.web_port) for r in layout.brokers(spec.name)
        ]
        self.zookeeper = None
        self.bookie = None
        self.broker_url = "pulsar://x"
        self.web_url = self.brokers[0].web_url


@pytest.fixture
def two_clusters() -> tuple[Cluster, Cluster, _Recorder, ProxyLayout]:
    specs = [ClusterSpec("cluster-a", brokers=2), ClusterSpec("cluster-b")]
    layout = ProxyLayout.plan(specs, iter(free_ports(ProxyLayout.port_count(specs))))
    recorder = _Recorder()
    network = ProxyNetwork(recorder)  # type: ignore[arg-type]
    a, b = (Cluster(_Node(spec, layout), network, layout) for spec in specs)  # type: ignore[arg-type]
    return a, b, recorder, layout


def test_a_cluster_outage_cuts_every_broker_and_every_link(two_clusters: Any) -> None:
    a, _, recorder, _layout = two_clusters
    with a.outage():
        assert recorder.disabled == {
            "cluster-a-client-b0",
            "cluster-a-client-b1",
            "cluster-a-http-b0",
            "cluster-a-http-b1",
            "repl-cluster-b-to-cluster-a-b0",
            "repl-cluster-b-to-cluster-a-b1",
            "repl-cluster-a-to-cluster-b",
        }
    assert recorder.disabled == set()


def test_a_broker_outage_cuts_that_broker_only(two_clusters: Any) -> None:
    a, _, recorder, _ = two_clusters
    with a.brokers[1].outage():
        assert recorder.disabled == {"cluster-a-client-b1", "cluster-a-http-b1", "repl-cluster-b-to-cluster-a-b1"}
    assert recorder.disabled == set()


def test_brokers_are_in_order_with_their_own_proxied_urls(two_clusters: Any) -> None:
    a, b, _, layout = two_clusters
    routes = layout.brokers("cluster-a")
    assert [br.service_url for br in a.brokers] == [f"pulsar://127.0.0.1:{r.client_port}" for r in routes]
    assert a.service_url == "pulsar://" + ",".join(f"127.0.0.1:{r.client_port}" for r in routes)
    assert a.broker(a.brokers[1].id) is a.brokers[1]
    assert a.zookeeper is None  # the fake node has none; a standalone has none either
    assert [br.id for br in b.brokers] == [f"127.0.0.1:{layout.brokers('cluster-b')[0].web_port}"]
    a.brokers[0].kill()
    assert a.brokers[0].control.killed and not a.brokers[1].control.killed
