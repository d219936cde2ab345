"""The plugin's options (``--pulsar-ha-*`` and their ini keys) and the settings they make, each value checked and
named by the flag or ini key it came from."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pytest_pulsar_ha.errors import ConfigurationError
from pytest_pulsar_ha.provisioning import DEFAULT_PULSAR_VERSION, default_cache_dir
from pytest_pulsar_ha.pytest import mutation, reuse
from pytest_pulsar_ha.settings import (
    BACKEND_NAMES,
    HaSettings,
    check_backend,
    check_heap,
    check_timeout,
    check_version,
    parse_substitutions,
)
from pytest_pulsar_ha.settings.clusters import parse_brokers, parse_clusters

_OPTIONS: list[tuple[str, str, str]] = [
    # (name, default, help)
    ("clusters", "2", "cluster count (1-5, named cluster-a, cluster-b, ...) or comma list of names"),
    ("brokers", "1", "brokers per cluster: 1 = one pulsar standalone, 2-8 = ZooKeeper + bookie + N brokers"),
    ("auth", "none", "authentication of every cluster: none, or token (a secret key of its own per cluster)"),
    ("backend", "embedded", f"what runs the brokers; one of: {', '.join(BACKEND_NAMES)}"),
    ("pulsar_version", DEFAULT_PULSAR_VERSION, "Pulsar version: its distribution, else assembled from Maven artifacts"),
    (
        "pulsar_substitute",
        "",
        "group:artifact=version,...: pin an assembled runtime's dependencies (not the release)",
    ),
    ("image", "", "Pulsar image of the docker backend (default: the official apachepulsar/pulsar:<pulsar version>)"),
    ("toxiproxy_image", "", "docker backend: run toxiproxy from this image instead of the binary (no Go needed)"),
    ("cache_dir", "", "where Pulsar and toxiproxy are cached (default: $PULSAR_HA_CACHE_DIR or ~/.cache)"),
    ("heap", "512m", "JVM heap of each cluster's broker process (e.g. 512m, 1g)"),
    ("startup_timeout", "180", "seconds a cluster may take to become ready"),
    ("clusters_file", "", "backend external: the YAML file naming the clusters (examples/external-clusters.yaml)"),
    ("evidence_dir", "reports/pulsar-ha", "where scenario histories, timelines and reports are written"),
    ("spark_master", "", "Spark master URL for the history checks (default: $PULSAR_HA_SPARK_MASTER or local[*])"),
]


def add_options(parser: pytest.Parser) -> None:
    """Every ``--pulsar-ha-*`` option and its ini key."""
    group = parser.getgroup("pulsar-ha", "Pulsar multi-cluster HA (pytest-pulsar-ha)")
    for name, default, help_text in _OPTIONS:
        flag = "--pulsar-ha-" + name.replace("_", "-")
        group.addoption(flag, dest=f"pulsar_ha_{name}", default=None, help=f"{help_text} [ini: pulsar_ha_{name}]")
        parser.addini(f"pulsar_ha_{name}", help_text, default=default)
    group.addoption(
        "--pulsar-ha-seed",
        dest="pulsar_ha_seed",
        type=int,
        default=None,
        help="seed of every random choice of the scenarios (replays a failed run; default: each scenario's own)",
    )
    mutation.add_option(group)
    reuse.add_option(group, parser)


def option_value(config: pytest.Config, name: str) -> tuple[str, str]:
    """The effective value of an option and where it came from (for error messages)."""
    cli = config.getoption(f"pulsar_ha_{name}")
    if cli is not None:
        return str(cli), "--pulsar-ha-" + name.replace("_", "-")
    return str(config.getini(f"pulsar_ha_{name}")), f"ini pulsar_ha_{name}"


def settings_from_config(config: pytest.Config) -> HaSettings:
    """Validate every option (naming the flag or ini key that is wrong) and build the settings."""
    cache_dir, _ = option_value(config, "cache_dir")
    auth, auth_source = option_value(config, "auth")
    if auth not in ("none", "token"):
        raise ConfigurationError(f"{auth_source}={auth!r} is not a known authentication; valid values: none, token")
    specs = parse_clusters(*option_value(config, "clusters"))
    brokers = parse_brokers(*option_value(config, "brokers"))
    clusters = tuple(dataclasses.replace(s, auth=None if auth == "none" else auth, brokers=brokers) for s in specs)
    backend = check_backend(*option_value(config, "backend"))
    clusters_file: Path | None = None
    if backend == "external":  # the clusters, their auth and brokers are those of the file
        from pytest_pulsar_ha.runtime.external.clusters import clusters_from_option

        value, source = option_value(config, "clusters_file")
        base = config.invocation_params.dir if source.startswith("--") else config.rootpath
        clusters_file, clusters = clusters_from_option(value, source, base)
    return HaSettings(
        clusters=clusters,
        backend=backend,
        pulsar_version=check_version(*option_value(config, "pulsar_version")),
        pulsar_substitutions=parse_substitutions(*option_value(config, "pulsar_substitute")),
        heap=check_heap(*option_value(config, "heap")),
        startup_timeout=check_timeout(*option_value(config, "startup_timeout")),
        image=option_value(config, "image")[0],
        toxiproxy_image=option_value(config, "toxiproxy_image")[0],
        cache_dir=Path(cache_dir).expanduser() if cache_dir else default_cache_dir(),
        clusters_file=clusters_file,
    )
