"""The external backend's clusters file: what it accepts, and every mistake as file:line before anything starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pulsar_ha.runtime.external.clusters import ClustersFileError, clusters_from_option, load_clusters_file

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "external-clusters.yaml"

GOOD = """\
listener_name: pulsar_ha
clusters:
  - name: east
    service_url: pulsar://10.0.0.5:6650
    admin_url: http://10.0.0.5:8080
    route: listener
    proxy_port: 16650
    token_env: EAST_TOKEN
  - name: west
    service_url: pulsar+ssl://west.example:6651
    admin_url: https://west.example:8443
    route: pulsar_proxy
    token_file: west.token
    tls_trust_certs: ca.pem
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "clusters.yaml"
    path.write_text(text)
    return path


def _errors(tmp_path: Path, text: str, environ: dict[str, str] | None = None) -> str:
    with pytest.raises(ClustersFileError) as info:
        load_clusters_file(_write(tmp_path, text), environ=environ or {}, display_path="clusters.yaml")
    return str(info.value)


def test_a_good_file_loads_with_its_tokens_and_never_shows_them(tmp_path: Path) -> None:
    (tmp_path / "west.token").write_text("west-secret\n")
    (tmp_path / "ca.pem").write_text("pem")
    text = GOOD.replace("tls_trust_certs: ca.pem", f"tls_trust_certs: {tmp_path / 'ca.pem'}")
    loaded = load_clusters_file(_write(tmp_path, text), environ={"EAST_TOKEN": "east-secret"})
    assert loaded.token("east") == "east-secret" and loaded.token("west") == "west-secret"
    assert [(s.name, s.auth, s.brokers) for s in loaded.specs()] == [("east", "token", 1), ("west", "token", 1)]
    east, west = loaded.model.clusters
    assert (east.proxied, east.service_address, west.scheme, west.admin_scheme) == (
        True,
        "10.0.0.5:6650",
        "pulsar+ssl",
        "https",
    )
    shown = loaded.describe() + repr(loaded) + repr(loaded.model)
    assert "secret" not in shown
    assert "token_env=EAST_TOKEN" in loaded.describe() and "route=pulsar_proxy" in loaded.describe()


def test_the_shipped_example_is_valid(tmp_path: Path) -> None:
    loaded = load_clusters_file(EXAMPLE, environ={"CLUSTER_B_TOKEN": "t"})
    assert loaded.model.names == ["cluster-a", "cluster-b"]


def test_an_inline_token_is_not_in_the_repr(tmp_path: Path) -> None:
    text = "clusters:\n  - {name: a, service_url: 'pulsar://h:1', admin_url: 'http://h:2', token: s3cr3t}\n"
    loaded = load_clusters_file(_write(tmp_path, text))
    assert loaded.token("a") == "s3cr3t"
    assert "s3cr3t" not in repr(loaded.model) + loaded.describe()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "clusters.yaml:1: the file is empty"),
        ("- a\n", "clusters.yaml:1: expected a mapping with the key 'clusters', found a list"),
        ("clusters: [\n", "clusters.yaml:1: "),
        ("cluster: []\n", "clusters.yaml:1: cluster: unknown key 'cluster'"),
        ("clusters: []\n", "clusters.yaml:1: clusters: List should have at least 1 item"),
        (
            "clusters:\n  - name: a\n    service_url: http://h:1\n    admin_url: http://h:2\n",
            "clusters.yaml:3: clusters[0].service_url: expected a service URL starting with pulsar:// or pulsar+ssl://",
        ),
        (
            "clusters:\n  - name: a\n    service_url: pulsar://h1:1,h2:1\n    admin_url: http://h:2\n",
            "clusters.yaml:3: clusters[0].service_url: expected one host:port, found several",
        ),
        (
            "clusters:\n  - name: a\n    service_url: pulsar://h\n    admin_url: http://h:2\n",
            "clusters[0].service_url: expected host:port after the scheme",
        ),
        (
            "clusters:\n  - name: a\n    service_url: pulsar://h:1\n    admin_url: http://h:2\n    route: listener\n",
            "clusters.yaml:2: clusters[0]: route listener needs proxy_port",
        ),
        (
            "clusters:\n  - name: a\n    service_url: pulsar://h:1\n    admin_url: http://h:2\n    proxy_port: 5\n",
            "proxy_port is only for route listener",
        ),
        (
            "clusters:\n  - {name: a, service_url: 'pulsar://h:1', admin_url: 'http://h:2', token: x, token_env: Y}\n",
            "give at most one of token, token_file and token_env; found token, token_env",
        ),
        (
            "clusters:\n  - {name: a, service_url: 'pulsar://h:1', admin_url: 'http://h:2', route: listener,"
            " proxy_port: 7}\n",
            "clusters.yaml:1: a use route listener: set listener_name",
        ),
        (
            "clusters:\n  - {name: a, service_url: 'pulsar://h:1', admin_url: 'http://h:2'}\n"
            "  - {name: a, service_url: 'pulsar://h:3', admin_url: 'http://h:4'}\n",
            "cluster names must be distinct; a is given twice",
        ),
        (
            "clusters:\n  - {name: A, service_url: 'pulsar://h:1', admin_url: 'http://h:2'}\n",
            "clusters.yaml:2: clusters[0].name: expected match pattern",
        ),
        (
            "clusters:\n  - {name: a, service_url: 'pulsar://h:1', admin_url: 'http://h:2', proxy_port: '7'}\n",
            "clusters[0].proxy_port: expected a valid integer",
        ),
        (
            "clusters:\n  - {name: a, service_url: 'pulsar://h:1', admin_url: 'http://h:2', token_env: A_TOKEN}\n",
            "clusters.yaml:2: clusters[0].token_env: the environment variable A_TOKEN is not set (or empty)",
        ),
        (
            "clusters:\n  - {name: a, service_url: 'pulsar://h:1', admin_url: 'http://h:2', token_file: none.txt}\n",
            "clusters.yaml:2: clusters[0].token_file: cannot read",
        ),
        (
            "clusters:\n  - name: a\n    service_url: pulsar+ssl://h:1\n    admin_url: http://h:2\n"
            "    tls_trust_certs: /no/such/ca.pem\n",
            "clusters.yaml:5: clusters[0].tls_trust_certs: no such file: /no/such/ca.pem",
        ),
        (
            "a: &a [*a]\n",
            "clusters.yaml:1",
        ),
    ],
)
def test_mistakes_are_reported_with_file_and_line(tmp_path: Path, text: str, expected: str) -> None:
    assert expected in _errors(tmp_path, text)


def test_the_option_names_itself_when_empty_and_reads_relative_paths(tmp_path: Path) -> None:
    from pytest_pulsar_ha.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="--pulsar-ha-clusters-file is empty"):
        clusters_from_option(" ", "--pulsar-ha-clusters-file", tmp_path)
    _write(tmp_path, "clusters:\n  - {name: a, service_url: 'pulsar://h:1', admin_url: 'http://h:2'}\n")
    path, specs = clusters_from_option("clusters.yaml", "--pulsar-ha-clusters-file", tmp_path)
    assert path == tmp_path / "clusters.yaml" and [s.name for s in specs] == ["a"]
