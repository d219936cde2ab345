"""The proxy layer against a real toxiproxy server and a local echo server (no Pulsar needed)."""

from __future__ import annotations

import socket
import socketserver
import threading
import time
from collections.abc import Iterator

import pytest

from pytest_pulsar_ha.network.proxies import ProxyNetwork
from pytest_pulsar_ha.network.toxiproxy import ToxiproxyServer
from pytest_pulsar_ha.process.pid_registry import PidRegistry
from pytest_pulsar_ha.process.ports import free_ports
from pytest_pulsar_ha.provisioning import default_cache_dir, ensure_toxiproxy


class _Echo(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        while data := self.request.recv(4096):
            self.request.sendall(data)


@pytest.fixture(scope="module")
def toxiproxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToxiproxyServer]:
    work = tmp_path_factory.mktemp("toxi")
    server = ToxiproxyServer(ensure_toxiproxy(default_cache_dir(), print), work, PidRegistry(work / "run"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def echo_proxy(toxiproxy: ToxiproxyServer) -> Iterator[tuple[ProxyNetwork, int]]:
    echo = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Echo)
    echo.daemon_threads = True
    threading.Thread(target=echo.serve_forever, daemon=True).start()
    (port,) = free_ports(1)
    toxiproxy.client.create_proxy("echo", port, f"127.0.0.1:{echo.server_address[1]}")
    yield ProxyNetwork(toxiproxy.client), port
    toxiproxy.client._call("DELETE", "/proxies/echo")
    echo.shutdown()
    echo.server_close()


def _roundtrip(port: int, timeout: float = 2.0) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(b"ping")
        return sock.recv(4)


def test_cut_refuses_new_and_closes_open_connections(echo_proxy: tuple[ProxyNetwork, int]) -> None:
    network, port = echo_proxy
    open_conn = socket.create_connection(("127.0.0.1", port), timeout=2)
    open_conn.sendall(b"ping")
    assert open_conn.recv(4) == b"ping"
    with network.cut(["echo"]):
        with pytest.raises(OSError):
            _roundtrip(port)
        open_conn.settimeout(2)
        try:
            closed = open_conn.recv(4) == b""
        except OSError:
            closed = True
        assert closed, "an open connection must be closed by the cut"
    assert _roundtrip(port) == b"ping"
    open_conn.close()


def test_overlapping_cuts_keep_the_proxy_down_until_the_last_ends(
    echo_proxy: tuple[ProxyNetwork, int],
) -> None:
    network, _port = echo_proxy
    with network.cut(["echo"]):
        with network.cut(["echo"]):
            pass
        assert not network.client.is_enabled("echo")
    assert network.client.is_enabled("echo")


def test_cut_is_undone_when_the_body_fails(echo_proxy: tuple[ProxyNetwork, int]) -> None:
    network, port = echo_proxy
    with pytest.raises(RuntimeError), network.cut(["echo"]):
        raise RuntimeError("test failed inside the fault")
    assert _roundtrip(port) == b"ping"


def test_latency_toxic_delays_answers_and_is_removed(echo_proxy: tuple[ProxyNetwork, int]) -> None:
    network, port = echo_proxy
    with network.toxic(["echo"], "latency", {"latency": 300, "jitter": 0}, ("downstream",)):
        began = time.monotonic()
        assert _roundtrip(port) == b"ping"
        assert time.monotonic() - began >= 0.3
        assert len(network.client.toxics("echo")) == 1
    assert network.client.toxics("echo") == []


def test_timeout_toxic_accepts_tcp_and_answers_nothing(echo_proxy: tuple[ProxyNetwork, int]) -> None:
    network, port = echo_proxy
    with (
        network.toxic(["echo"], "timeout", {"timeout": 0}, ("upstream", "downstream")),
        socket.create_connection(("127.0.0.1", port), timeout=2) as sock,  # TCP is still accepted
    ):
        sock.sendall(b"ping")
        sock.settimeout(1.0)
        with pytest.raises(TimeoutError):
            sock.recv(4)
    assert _roundtrip(port) == b"ping"


def test_heal_enables_everything_and_forgets_counts(echo_proxy: tuple[ProxyNetwork, int]) -> None:
    network, port = echo_proxy
    network.disable(["echo"])
    network.client.add_toxic("echo", "slow", "latency", {"latency": 1000})
    network.heal()
    assert network.client.is_enabled("echo")
    assert network.client.toxics("echo") == []
    assert _roundtrip(port) == b"ping"
