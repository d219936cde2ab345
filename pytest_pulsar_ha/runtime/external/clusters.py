"""The clusters file of the ``external`` backend: clusters that run elsewhere, as the harness reaches them.

A YAML file (``--pulsar-ha-clusters-file`` / ini ``pulsar_ha_clusters_file``) names each cluster, its service and
admin URLs, its credentials and TLS trust, and how client connections reach its brokers (its ``route``: whether
toxiproxy can stand in front of them). It is read with the scenario files' safe YAML loader, validated by a
typed model, and every problem is reported as ``file:line: key.path: message`` before anything starts.
Secrets (tokens) are read here, kept out of ``repr`` and never printed.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from pytest_pulsar_ha.scenario.base import CLUSTER_NAME_PATTERN, Loc, dotted
from pytest_pulsar_ha.scenario.errors import Problem, ScenarioError
from pytest_pulsar_ha.scenario.quantities import describe
from pytest_pulsar_ha.scenario.yaml_document import YamlProblem, compose
from pytest_pulsar_ha.settings.clusters import MAX_CLUSTERS, ClusterSpec

Route = Literal["direct", "listener", "pulsar_proxy"]
ROUTES: dict[str, str] = {
    "direct": "lookups hand clients the broker's own address: only the lookup goes through the harness's proxy, "
    "so connection faults cannot be applied",
    "listener": "the brokers advertise the listener `listener_name` at pulsar://127.0.0.1:<proxy_port>, where the "
    "harness's proxy listens: every client connection goes through it",
    "pulsar_proxy": "service_url is a Pulsar proxy (lookups answer with the service URL itself): every client "
    "connection goes through the harness's proxy in front of it",
}
_SERVICE_SCHEMES = ("pulsar", "pulsar+ssl")
_ADMIN_SCHEMES = ("http", "https")
_LISTENER = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")


class ClustersFileError(ScenarioError):
    """The clusters file is not valid; the message lists every problem as ``file:line: key.path: message``."""


def _endpoint(value: str, schemes: tuple[str, ...], what: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in schemes:
        raise ValueError(
            f"expected a {what} URL starting with {' or '.join(s + '://' for s in schemes)}, found {value!r}"
        )
    if "," in parts.netloc:
        raise ValueError(
            f"expected one host:port, found several ({parts.netloc}): the harness puts one proxy in front of each "
            "cluster; list a Pulsar proxy or a load balancer that stands for the brokers"
        )
    try:
        port = parts.port
    except ValueError:
        port = None
    if not parts.hostname or port is None:
        raise ValueError(f"expected host:port after the scheme, found {value!r}")
    return value.rstrip("/")


class ExternalCluster(BaseModel):
    """One cluster running elsewhere."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: str = Field(pattern=f"^{CLUSTER_NAME_PATTERN}$", description="its clusterName")
    service_url: str = Field(description="pulsar:// or pulsar+ssl:// host:port the harness reaches it at")
    admin_url: str = Field(description="http:// or https:// host:port of its admin REST API")
    route: Route = "direct"
    proxy_port: int | None = Field(default=None, ge=1, le=65535)
    token: str | None = Field(default=None, repr=False, min_length=1)
    token_file: str | None = None
    token_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    tls_trust_certs: str | None = None

    @field_validator("service_url")
    @classmethod
    def _service(cls, value: str) -> str:
        return _endpoint(value, _SERVICE_SCHEMES, "service")

    @field_validator("admin_url")
    @classmethod
    def _admin(cls, value: str) -> str:
        return _endpoint(value, _ADMIN_SCHEMES, "admin")

    @model_validator(mode="after")
    def _consistent(self) -> ExternalCluster:
        given = [key for key in ("token", "token_file", "token_env") if getattr(self, key) is not None]
        if len(given) > 1:
            raise ValueError(f"give at most one of token, token_file and token_env; found {', '.join(given)}")
        if self.route == "listener" and self.proxy_port is None:
            raise ValueError(
                "route listener needs proxy_port: the port of 127.0.0.1 that the brokers advertise for the "
                "harness's listener (its proxy listens there)"
            )
        if self.route != "listener" and self.proxy_port is not None:
            raise ValueError(f"proxy_port is only for route listener (this cluster's route is {self.route})")
        if self.tls_trust_certs is not None and not self.service_url.startswith("pulsar+ssl://"):
            raise ValueError("tls_trust_certs is given but service_url is not pulsar+ssl://")
        return self

    @property
    def proxied(self) -> bool:
        """Client connections all go through the harness's proxy (so connection faults can be applied)."""
        return self.route != "direct"

    @property
    def scheme(self) -> str:
        return urlsplit(self.service_url).scheme

    @property
    def service_address(self) -> str:
        """``host:port`` of ``service_url`` (the upstream of the client proxy)."""
        return urlsplit(self.service_url).netloc

    @property
    def admin_address(self) -> str:
        return urlsplit(self.admin_url).netloc

    @property
    def admin_scheme(self) -> str:
        return urlsplit(self.admin_url).scheme


class ExternalClustersFile(BaseModel):
    """The whole file."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    clusters: list[ExternalCluster] = Field(min_length=1, max_length=MAX_CLUSTERS)
    listener_name: str | None = Field(default=None, pattern=_LISTENER.pattern)
    geo_replication: bool = Field(
        default=True, description="the clusters are registered in each other already (the operator set it up)"
    )

    @model_validator(mode="after")
    def _consistent(self) -> ExternalClustersFile:
        names = [c.name for c in self.clusters]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"cluster names must be distinct; {', '.join(twice)} is given twice")
        uses_listener = [c.name for c in self.clusters if c.route == "listener"]
        if uses_listener and self.listener_name is None:
            raise ValueError(
                f"{', '.join(uses_listener)} use route listener: set listener_name (the advertised listener the "
                "brokers answer lookups of the harness's clients with)"
            )
        trust = {c.tls_trust_certs for c in self.clusters if c.tls_trust_certs is not None}
        if len(trust) > 1:
            raise ValueError(
                "the clusters name different tls_trust_certs; one client talks to every cluster during a failover, "
                "so give them all one file (a bundle of their CAs)"
            )
        ports = [c.proxy_port for c in self.clusters if c.proxy_port is not None]
        if len(set(ports)) != len(ports):
            raise ValueError("two clusters give the same proxy_port; each needs a proxy of its own")
        return self

    def specs(self, tokens: dict[str, str | None]) -> tuple[ClusterSpec, ...]:
        """The clusters as the harness's topology (one broker each, as the harness sees them)."""
        return tuple(ClusterSpec(c.name, auth="token" if tokens.get(c.name) else None) for c in self.clusters)

    @property
    def tls_trust_certs(self) -> str | None:
        return next((c.tls_trust_certs for c in self.clusters if c.tls_trust_certs is not None), None)

    def cluster(self, name: str) -> ExternalCluster:
        for cluster in self.clusters:
            if cluster.name == name:
                return cluster
        raise KeyError(f"the clusters file has no cluster {name!r}; it has {', '.join(self.names)}")

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.clusters]


class LoadedClusters:
    """A validated clusters file, its path and the clusters' tokens (read from where the file says)."""

    def __init__(self, path: Path, model: ExternalClustersFile, tokens: dict[str, str | None]) -> None:
        self.path = path
        self.model = model
        self._tokens = tokens

    def __repr__(self) -> str:
        return f"<LoadedClusters {self.path} clusters={','.join(self.model.names)}>"

    def token(self, name: str) -> str | None:
        return self._tokens.get(name)

    def specs(self) -> tuple[ClusterSpec, ...]:
        return self.model.specs(self._tokens)

    def describe(self) -> str:
        """One line without secrets: names, routes and where tokens come from."""
        parts = []
        for c in self.model.clusters:
            source = "token" if c.token else f"token_file={c.token_file}" if c.token_file else None
            source = source or (f"token_env={c.token_env}" if c.token_env else "no auth")
            parts.append(f"{c.name}({c.service_url}, route={c.route}, {source})")
        return f"external clusters from {self.path}: " + ", ".join(parts)


def _line_of(lines: dict[Loc, int], loc: Loc) -> int:
    for end in range(len(loc), -1, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return 1


def _message(error: Any) -> str:
    kind = error["type"]
    found = describe(error["input"])
    if kind == "extra_forbidden":
        return f"unknown key {error['loc'][-1]!r}"
    if kind == "missing":
        return f"missing required key {error['loc'][-1]!r}"
    text = str(error["msg"]).removeprefix("Value error, ")
    if text.startswith("Input should be "):
        text = "expected " + text[len("Input should be ") :]
    if text.startswith("String should match pattern"):
        text = "expected " + text[len("String should ") :]
    return text if kind == "value_error" else f"{text}, found {found}"


def _resolve_tokens(
    model: ExternalClustersFile, base: Path, lines: dict[Loc, int], shown: str, environ: dict[str, str]
) -> tuple[dict[str, str | None], list[Problem]]:
    tokens: dict[str, str | None] = {}
    problems: list[Problem] = []
    for index, cluster in enumerate(model.clusters):
        token = cluster.token
        if cluster.token_file is not None:
            path = Path(cluster.token_file).expanduser()
            path = path if path.is_absolute() else base / path
            where: Loc = ("clusters", index, "token_file")
            try:
                token = path.read_text().strip()
            except OSError as exc:
                problems.append(Problem(shown, _line_of(lines, where), dotted(where), f"cannot read {path}: {exc}"))
                continue
            if not token:
                problems.append(Problem(shown, _line_of(lines, where), dotted(where), f"{path} is empty"))
        if cluster.token_env is not None:
            token = environ.get(cluster.token_env, "").strip()
            if not token:
                where = ("clusters", index, "token_env")
                message = f"the environment variable {cluster.token_env} is not set (or empty)"
                problems.append(Problem(shown, _line_of(lines, where), dotted(where), message))
        if cluster.tls_trust_certs is not None:
            path = Path(cluster.tls_trust_certs).expanduser()
            if not path.is_file():
                where = ("clusters", index, "tls_trust_certs")
                problems.append(Problem(shown, _line_of(lines, where), dotted(where), f"no such file: {path}"))
        tokens[cluster.name] = token or None
    return tokens, problems


def load_clusters_file(
    path: str | os.PathLike[str], *, environ: dict[str, str] | None = None, display_path: str | None = None
) -> LoadedClusters:
    """Read and validate a clusters file; raises :class:`ClustersFileError` listing every problem with its line."""
    file = Path(path)
    shown = display_path if display_path is not None else os.fspath(path)
    try:
        text = file.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ClustersFileError(
            [Problem(shown, 1, "", f"cannot read the clusters file: {exc.strerror or exc}")]
        ) from None
    except UnicodeDecodeError as exc:
        line = file.read_bytes().count(b"\n", 0, exc.start) + 1
        raise ClustersFileError([Problem(shown, line, "", "expected a UTF-8 text file")]) from None
    problems: list[Problem] = []

    def report(loc: Loc, line: int, message: str) -> None:
        problems.append(Problem(shown, line, dotted(loc), message))

    try:
        document = compose(text, report)
    except YamlProblem as exc:
        raise ClustersFileError([Problem(shown, exc.line, dotted(exc.loc), exc.message)]) from None
    if document is None:
        raise ClustersFileError(
            [Problem(shown, 1, "", "the file is empty: expected a mapping with the key 'clusters'")]
        )
    if problems:
        raise ClustersFileError(problems)
    if not isinstance(document.data, dict):
        found = describe(document.data)
        raise ClustersFileError([Problem(shown, 1, "", f"expected a mapping with the key 'clusters', found {found}")])
    try:
        model = ExternalClustersFile.model_validate(document.data)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            loc = tuple(error["loc"])
            loc = loc[:-1] if error["type"] == "missing" else loc  # said where the key is missing
            report(loc, _line_of(document.lines, loc), _message(error))
        raise ClustersFileError(sorted(problems, key=lambda p: p.line)) from None
    tokens, problems = _resolve_tokens(model, file.parent, document.lines, shown, dict(environ or os.environ))
    if problems:
        raise ClustersFileError(problems)
    return LoadedClusters(file, model, tokens)


def clusters_from_option(value: str, source: str, base: Path) -> tuple[Path, tuple[ClusterSpec, ...]]:
    """The clusters file an option names (relative to ``base``) and its clusters; the error names the option."""
    from pytest_pulsar_ha.errors import ConfigurationError

    if not value.strip():
        raise ConfigurationError(
            f"{source} is empty: the external backend needs a clusters file naming the clusters it runs against "
            "(see examples/external-clusters.yaml)"
        )
    path = Path(value).expanduser()
    path = path if path.is_absolute() else base / path
    return path, load_clusters_file(path, display_path=value).specs()
