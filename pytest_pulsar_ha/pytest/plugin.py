"""The pytest plugin: options, report header and fixtures over the library (which works without pytest).

Registered through the ``pytest11`` entry point ``pulsar_ha``: installing the package is all a repo needs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import signal
import sys
from collections.abc import Generator, Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import pytest

from pytest_pulsar_ha.errors import ConfigurationError
from pytest_pulsar_ha.pytest import mutation, reuse
from pytest_pulsar_ha.pytest.failure_reports import (
    attach_failure_logs,
    link_run_page_in_html_report,
    write_failure_logs,
)
from pytest_pulsar_ha.pytest.keys import (
    ENV_KEY,
    MARKED_ENV_KEY,
    POOL_KEY,
    SETTINGS_KEY,
)
from pytest_pulsar_ha.pytest.options import add_options, option_value, settings_from_config
from pytest_pulsar_ha.settings import (
    HaSettings,
)
from pytest_pulsar_ha.settings.clusters import ClusterSpec

if TYPE_CHECKING:
    from pulsar_ha_providers import UrlProviderService
    from pytest_pulsar_ha.report.result import ScenarioResult
    from pytest_pulsar_ha.runtime.backends import BackendEntry
    from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
    from pytest_pulsar_ha.runtime.environment_pool import EnvironmentPool


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    """Collect ``*.pulsar-ha.yaml`` scenario files (the model is imported only when such a file is seen)."""
    if not file_path.name.endswith(".pulsar-ha.yaml"):
        return None
    from pytest_pulsar_ha.pytest.collect import collect_scenario_file

    return collect_scenario_file(parent, file_path)


class PulsarHaState:
    """The plugin's state for one pytest run, registered as the plugin ``pulsar_ha_state`` at configure time:
    the scenario results (for the summary and the index page). It also holds the plugin's implementation of
    :func:`~pytest_pulsar_ha.pytest.hookspecs.pytest_pulsar_ha_run_scenario`: the scenario runner on real clusters."""

    def __init__(self) -> None:
        self.results: list[ScenarioResult] = []
        self.seconds: dict[str, float] = {}
        """wall seconds per test node id: set-up, call and teardown (the summary shows them)"""

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration

    @pytest.hookimpl(trylast=True)
    def pytest_pulsar_ha_run_scenario(self, item: pytest.Item, case: object) -> bool:
        from pytest_pulsar_ha.pytest.runner import run_scenario

        run_scenario(item, case, record=self.results.append)  # type: ignore[arg-type]
        return True


STATE_NAME = "pulsar_ha_state"


def state(config: pytest.Config) -> PulsarHaState:
    """The plugin's :class:`PulsarHaState` of this run."""
    found = config.pluginmanager.get_plugin(STATE_NAME)
    if not isinstance(found, PulsarHaState):
        raise RuntimeError("the pulsar_ha plugin's state is not registered (pytest_configure did not run?)")
    return found


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_pulsar_ha.pytest import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin(STATE_NAME):
        config.pluginmanager.register(PulsarHaState(), STATE_NAME)
    config.addinivalue_line(
        "markers", "real_clusters: needs real Pulsar clusters; a failure reports what the brokers logged meanwhile"
    )
    config.addinivalue_line(
        "markers",
        f"{CLUSTERS_MARK}(*cluster_specs): the test runs on an environment of these ClusterSpecs (fixture "
        "pulsar_ha_marked_environment), shared by every test and scenario of the same topology and started once",
    )
    try:
        config.stash[SETTINGS_KEY] = settings_from_config(config)
    except ConfigurationError as exc:
        raise pytest.UsageError(str(exc)) from None
    mutation.configure(config)
    reuse.configure(config, config.stash[SETTINGS_KEY])


def pytest_report_header(config: pytest.Config) -> list[str]:
    settings = config.stash[SETTINGS_KEY]
    warm = reuse.header(config, settings)
    return [settings.describe()] + ([warm] if warm else [])


@pytest.fixture(scope="session")
def pulsar_ha_settings(pytestconfig: pytest.Config) -> HaSettings:
    """The effective settings; override this fixture to change them for a directory of tests."""
    return pytestconfig.stash[SETTINGS_KEY]


def _sigterm_as_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@pytest.fixture(scope="session")
def pulsar_ha_environments(
    pulsar_ha_settings: HaSettings, pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[EnvironmentPool]:
    """Every environment of the session, keyed by topology (:mod:`pytest_pulsar_ha.runtime.environment_pool`): one
    runs at a time; a scenario whose topology the session's clusters do not fit gets its own; all are stopped
    at the end of the session."""
    from pytest_pulsar_ha.runtime.backends import build_environment
    from pytest_pulsar_ha.runtime.environment_pool import EnvironmentPool
    from pytest_pulsar_ha.runtime.start_retry import start_with_retry

    capture = pytestconfig.pluginmanager.getplugin("capturemanager")
    entry = _backend(pytestconfig, pulsar_ha_settings)

    def start(specs: tuple[ClusterSpec, ...]) -> PulsarHaEnvironment:
        quiet = capture.global_and_fixture_disabled() if capture else contextlib.nullcontext()
        settings = dataclasses.replace(pulsar_ha_settings, clusters=specs)
        if reuse.reuses(pytestconfig):
            with quiet:
                env: PulsarHaEnvironment = reuse.warm_environment(settings)
                return env

        def attempt() -> PulsarHaEnvironment:
            env = build_environment(settings, work_dir=tmp_path_factory.mktemp("pulsar-ha"), entry=entry)
            names = ", ".join(spec.name for spec in specs)
            print(
                f"\n[pulsar-ha] starting {names} (brokers={settings.describe_brokers()}) in {env.work_dir}",
                file=sys.stderr,
            )
            env.start()
            print(f"[pulsar-ha] started {names} in {env.startup_seconds or 0:.1f}s", file=sys.stderr)
            return env

        with quiet:  # provisioning progress must reach the terminal
            return start_with_retry(attempt)

    previous = signal.getsignal(signal.SIGTERM)
    if previous is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _sigterm_as_interrupt)
    pool = EnvironmentPool(start)
    pytestconfig.stash[POOL_KEY] = pool
    try:
        yield pool
    finally:
        del pytestconfig.stash[POOL_KEY]
        pool.close()
        if previous is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.fixture(scope="session")
def pulsar_ha(
    pulsar_ha_environments: EnvironmentPool, pulsar_ha_settings: HaSettings, pytestconfig: pytest.Config
) -> Iterator[PulsarHaEnvironment]:
    """The running multi-cluster environment of the session's options, started once (and stopped at the end of
    the session, or when the tests of another topology need the machine: they run after every test of this one)."""
    env = pulsar_ha_environments.get(pulsar_ha_settings.clusters)
    pytestconfig.stash[ENV_KEY] = env
    try:
        yield env
    finally:
        del pytestconfig.stash[ENV_KEY]


@pytest.fixture
def pulsar_ha_marked_environment(
    request: pytest.FixtureRequest, pulsar_ha_environments: EnvironmentPool
) -> PulsarHaEnvironment:
    """The environment of the test's ``@pytest.mark.pulsar_ha_clusters(ClusterSpec(...), ...)`` (from the session
    pool: started once per topology, the tests of one topology run together, after those of the session's)."""
    specs = getattr(request.node, "environment_specs", None)
    if specs is None:
        pytest.fail(f"pulsar_ha_marked_environment needs @pytest.mark.{CLUSTERS_MARK}(ClusterSpec(...), ...)", False)
    env = pulsar_ha_environments.get(specs)
    request.node.stash[MARKED_ENV_KEY] = env
    return env


CLUSTERS_MARK = "pulsar_ha_clusters"
REAL_CLUSTER_FIXTURES = frozenset({"pulsar_ha", "pulsar_ha_environments", "pulsar_ha_marked_environment"})
"""Fixtures that start real clusters: a test that asks for one (directly or through its fixtures) is marked."""


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that needs real clusters ``real_clusters`` (scenarios, and tests that use the
    environment fixtures), so ``-m "not real_clusters"`` selects exactly what runs without a cluster. Then run the
    scenarios and ``pulsar_ha_clusters``-marked tests that need an environment of their own last, grouped by
    topology (each starts once)."""
    from pytest_pulsar_ha.pytest.collect import ScenarioItem

    for item in items:
        _apply_clusters_mark(item)
        uses = REAL_CLUSTER_FIXTURES.intersection(getattr(item, "fixturenames", ()))
        if (uses or isinstance(item, ScenarioItem)) and item.get_closest_marker("real_clusters") is None:
            item.add_marker(pytest.mark.real_clusters)
    from pytest_pulsar_ha.runtime.environment_pool import order_by_key, topology_key

    def key_of(item: pytest.Item) -> object:
        specs = getattr(item, "environment_specs", None)
        return None if specs is None else topology_key(specs)

    items[:] = order_by_key(items, key_of)
    _only_the_named_cases(config, items)
    from pytest_pulsar_ha.runtime.backends import capabilities_of
    from pytest_pulsar_ha.runtime.capabilities import skip_impossible

    settings = config.stash.get(SETTINGS_KEY, None)
    if settings is not None:
        skip_impossible(items, capabilities_of(settings, _backend(config, settings)))


def _backend(config: pytest.Config, settings: HaSettings) -> BackendEntry:
    """The backend the ``pytest_pulsar_ha_backend`` hook chooses (the plugin's own answer comes last)."""
    from pytest_pulsar_ha.runtime.backends import BackendEntry

    entry = config.hook.pytest_pulsar_ha_backend(settings=settings)
    if not isinstance(entry, BackendEntry):
        raise pytest.UsageError(
            f"pytest_pulsar_ha_backend returned {entry!r}; return a pytest_pulsar_ha.runtime.backends.BackendEntry"
        )
    return entry


@pytest.hookimpl(trylast=True)
def pytest_pulsar_ha_backend(settings: HaSettings) -> BackendEntry:
    from pytest_pulsar_ha.runtime.backends import BACKENDS

    return BACKENDS[settings.backend]


def _only_the_named_cases(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``file::name`` on the command line runs the scenario case ``name``, not its variants too (see
    :mod:`pytest_pulsar_ha.pytest.selection`); they are deselected, as ``--deselect`` would."""
    from pytest_pulsar_ha.pytest.collect import ScenarioItem
    from pytest_pulsar_ha.pytest.selection import asked_ids, variants_not_asked_for

    asked = asked_ids(config.args, config.invocation_params.dir, config.rootpath)
    if not asked:
        return
    scenario_ids = [item.nodeid for item in items if isinstance(item, ScenarioItem)]
    drop = variants_not_asked_for(scenario_ids, asked)
    if drop:
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid in drop])
        items[:] = [item for item in items if item.nodeid not in drop]


def _apply_clusters_mark(item: pytest.Item) -> None:
    """``@pytest.mark.pulsar_ha_clusters(ClusterSpec(...), ...)`` -> ``item.environment_specs`` (what the ordering
    groups by and :func:`pulsar_ha_marked_environment` starts)."""
    mark = item.get_closest_marker(CLUSTERS_MARK)
    if mark is None:
        return
    specs = tuple(mark.args)
    if not specs or not all(isinstance(spec, ClusterSpec) for spec in specs) or mark.kwargs:
        raise pytest.UsageError(
            f"{item.nodeid}: @pytest.mark.{CLUSTERS_MARK} takes one or more ClusterSpec arguments "
            "(from pytest_pulsar_ha.settings.clusters), e.g. "
            f"@pytest.mark.{CLUSTERS_MARK}(ClusterSpec('blue'), ClusterSpec('green'))"
        )
    names = [spec.name for spec in specs]
    if len(set(names)) != len(names):
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.{CLUSTERS_MARK} names a cluster twice: {names}")
    item.environment_specs = specs  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _pulsar_ha_heal(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each test that used the environment, undo whatever faults it left in force."""
    if "pulsar_ha" in request.fixturenames:
        pool = request.config.stash.get(POOL_KEY, None)
        if pool is not None and pool.is_stopped(request.getfixturevalue("pulsar_ha")):
            pytest.fail(
                "the session's environment was stopped to run tests of another topology before this test; "
                "run the tests in collection order (the plugin puts those of other topologies last)",
                pytrace=False,
            )
    yield
    if "pulsar_ha" in request.fixturenames:
        env = request.config.stash.get(ENV_KEY, None)
        if env is not None:
            env.heal()
    marked = request.node.stash.get(MARKED_ENV_KEY, None)
    if marked is not None:
        marked.heal()


@pytest.fixture(scope="session")
def pulsar_ha_evidence_dir(pytestconfig: pytest.Config) -> Path:
    """Where scenario evidence goes (``--pulsar-ha-evidence-dir``, relative to the rootdir).

    Override it in a conftest.py to move everything: each scenario's evidence and the index page (written, at
    the end of the session, in the directory each scenario used).
    """
    value, _ = option_value(pytestconfig, "evidence_dir")
    path = Path(value)
    return path if path.is_absolute() else pytestconfig.rootpath / path


@pytest.fixture(scope="session")
def pulsar_ha_spark(pytestconfig: pytest.Config) -> Iterator[object]:
    """A SparkSession for the history checks, started once (on first use) and stopped at session end."""
    from spark_checks.spark.session import build_spark_session

    master, _ = option_value(pytestconfig, "spark_master")
    spark = build_spark_session(master or None, conf={"spark.driver.memory": "1g", "spark.sql.shuffle.partitions": 4})
    yield spark
    spark.stop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    attach_failure_logs(item, report)
    link_run_page_in_html_report(item, report)
    return report


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The broker logs of failed tests; after scenarios ran: one line each, and the index page of their evidence."""
    write_failure_logs(terminalreporter)
    found = terminalreporter.config.pluginmanager.get_plugin(STATE_NAME)
    if not isinstance(found, PulsarHaState) or not found.results:
        return
    from pytest_pulsar_ha.pytest.summary import write_scenario_summary

    # the index goes where the evidence went: the pulsar_ha_evidence_dir each scenario used (the fixture, which
    # a conftest may override, is the single source of truth; the option only sets its default)
    default_root = (
        Path(str(terminalreporter.config.rootpath)) / option_value(terminalreporter.config, "evidence_dir")[0]
    )
    write_scenario_summary(terminalreporter, found.results, found.seconds, default_root)


@pytest.fixture
def url_provider(pulsar_ha: PulsarHaEnvironment) -> Iterator[UrlProviderService]:
    """A running PIP-121 URL-provider service serving every cluster of the environment; the first is active.

    Switch with ``url_provider.switch_to(name)`` or ``POST <url>admin/switch/<name>``.
    """
    from pulsar_ha_providers import UrlProviderService

    clusters = {name: {"serviceUrl": c.service_url} for name, c in pulsar_ha.clusters.items()}
    with UrlProviderService(clusters, next(iter(clusters))) as service:
        yield service


@pytest.fixture
def geo_namespace(pulsar_ha: PulsarHaEnvironment) -> str:
    """A fresh ``tenant/namespace`` replicated across all clusters."""
    return pulsar_ha.create_geo_namespace()
