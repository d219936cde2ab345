"""pytest collection of scenario files: one test per scenario and per variant of every ``*.pulsar-ha.yaml``.

Register it from a plugin or a conftest.py::

    from pytest_pulsar_ha.pytest.collect import collect_scenario_file

    def pytest_collect_file(parent, file_path):
        return collect_scenario_file(parent, file_path)

A file that is not valid is a collection error that lists every problem as ``file:line: key.path: message``
(no traceback), so nothing of the session runs. Each test is a :class:`ScenarioItem`: a ``pytest.Function`` whose
fixtures are those of :data:`SCENARIO_FIXTURES` (``pulsar_ha``) plus the autouse ones, set up and torn down as for
any test, whatever their scope (the file is the module scope). Its ``runtest`` hands the item and its
:class:`ScenarioCase` to the runner (:func:`get_runner`); the runner reads the environment as ``item.pulsar_ha``
and may request any other fixture with ``item.getfixturevalue(name)``. A :class:`ScenarioFailed` it raises is
reported as its plain message.
"""

from __future__ import annotations

import inspect
import os
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

from pytest_pulsar_ha.pytest.mutation import MUTANT_PROPERTY, mutants_of
from pytest_pulsar_ha.scenario.errors import ScenarioError, ScenarioFailed
from pytest_pulsar_ha.scenario.loader import ScenarioCase, is_scenario_file, load_scenarios

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

    from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
    from pytest_pulsar_ha.runtime.environment_pool import EnvironmentPool
    from pytest_pulsar_ha.settings.clusters import ClusterSpec

Runner = Callable[["ScenarioItem", ScenarioCase], None]

#: Where the runner comes from: ``config.stash[RUNNER_KEY] = my_runner`` (in ``pytest_configure``) replaces the
#: default, the ``pytest_pulsar_ha_run_scenario`` hook (:mod:`pytest_pulsar_ha.pytest.hookspecs`).
RUNNER_KEY = pytest.StashKey[Runner]()


def _scenario(pulsar_ha: object) -> None:
    """Stand-in test function of every scenario: pytest reads the fixtures to set up from its parameters.

    `ScenarioItem.runtest` runs the scenario; this function is never called.
    """


def _scenario_own_environment(pulsar_ha_environments: object) -> None:
    """Stand-in test function of a scenario whose topology the session's environment does not fit: it gets
    the environments of the session (keyed by topology) instead of the session's own."""


#: The fixtures every scenario test requests (set up before the runner is called).
SCENARIO_FIXTURES = tuple(inspect.signature(_scenario).parameters)
#: ... and those of a scenario that needs an environment of its own.
OWN_ENVIRONMENT_FIXTURES = tuple(inspect.signature(_scenario_own_environment).parameters)

#: The mark every scenario test carries (``-m pulsar_ha_scenario`` selects them all).
SCENARIO_MARK = "pulsar_ha_scenario"
_MARK_HELP = f"{SCENARIO_MARK}: a test collected from a *.pulsar-ha.yaml scenario file"


def register_markers(config: pytest.Config) -> None:
    """Declare the ``pulsar_ha_scenario`` mark (idempotent); call it from ``pytest_configure``."""
    if not any(line.split(":", 1)[0].strip() == SCENARIO_MARK for line in config.getini("markers")):
        config.addinivalue_line("markers", _MARK_HELP)


def get_runner(config: pytest.Config) -> Runner:
    """The runner set in ``config.stash[RUNNER_KEY]``, else the ``pytest_pulsar_ha_run_scenario`` hook (whose
    last implementation is the plugin's scenario runner)."""
    runner = config.stash.get(RUNNER_KEY, None)
    if runner is not None:
        return runner

    def by_hook(item: ScenarioItem, case: ScenarioCase) -> None:
        hook = getattr(config.hook, "pytest_pulsar_ha_run_scenario", None)  # absent with -p no:pulsar_ha
        handled = None if hook is None else hook(item=item, case=case)
        if handled is None:
            pytest.fail(
                "no scenario runner: no implementation of the pytest_pulsar_ha_run_scenario hook handled it "
                "(the pulsar_ha plugin's own is disabled?), and none was set in "
                "config.stash[pytest_pulsar_ha.pytest.collect.RUNNER_KEY]",
                pytrace=False,
            )

    return by_hook


_SEEN = pytest.StashKey[dict[Path, Path]]()


def collect_scenario_file(parent: pytest.Collector, file_path: Path) -> ScenarioFile | None:
    """A :class:`ScenarioFile` for ``*.pulsar-ha.yaml`` files, None for any other file (``pytest_collect_file``).

    Registering it twice (the plugin and a conftest.py) is harmless: a file is collected once per parent.
    """
    if not is_scenario_file(file_path):
        return None
    # Every implementation of one `pytest_collect_file` call gets the same path object; pytest collects a
    # directory again (a new path object) for each command-line argument in it, and each time it needs the file.
    seen = parent.stash.setdefault(_SEEN, {})
    if seen.get(file_path) is file_path:
        return None
    seen[file_path] = file_path
    register_markers(parent.config)
    return ScenarioFile.from_parent(parent, path=file_path)


def _own_environment(config: pytest.Config, case: ScenarioCase) -> tuple[ClusterSpec, ...] | None:
    """The clusters ``case`` needs when the session's (the plugin's settings) do not fit it; None otherwise or
    without the plugin."""
    from pytest_pulsar_ha.pytest.keys import SETTINGS_KEY
    from pytest_pulsar_ha.runtime.environment_pool import scenario_specs

    settings = config.stash.get(SETTINGS_KEY, None)
    if settings is None:
        return None
    return scenario_specs(case.scenario.topology, settings.clusters)


class ScenarioFile(pytest.Module):
    """A ``*.pulsar-ha.yaml`` file. It is a ``pytest.Module`` (of an empty, synthetic module object) so that
    fixtures of every scope, module scope included, work for its scenarios as for Python tests."""

    def _getobj(self) -> types.ModuleType:
        module = types.ModuleType(f"pulsar_ha_scenarios:{self.path.name}")
        module.__file__ = str(self.path)
        return module

    def _display_path(self) -> str:
        relative = os.path.relpath(self.path, self.config.invocation_params.dir)
        return str(self.path) if relative.startswith("..") else relative

    def collect(self) -> Iterator[ScenarioItem]:
        try:
            cases = load_scenarios(self.path, display_path=self._display_path())
        except ScenarioError as exc:
            raise self.CollectError(f"invalid scenario file:\n{exc}") from None
        mutants = mutants_of(self.config)
        for case in cases:
            yield ScenarioItem.from_parent(self, name=case.id, case=case)  # with mutants: their baseline, first
            for mutant in mutants:
                yield ScenarioItem.from_parent(self, name=f"{case.id}@{mutant}", case=case, mutant=mutant)


class ScenarioItem(pytest.Function):
    """One scenario (or one variant of it) as a test; see the module's documentation for how it runs."""

    def __init__(self, *, case: ScenarioCase, mutant: str | None = None, **kwargs: Any) -> None:
        specs = _own_environment(kwargs["parent"].config, case)
        super().__init__(callobj=_scenario if specs is None else _scenario_own_environment, **kwargs)
        self.case = case
        self.mutant = mutant
        """the mutant this test runs the case with (``--pulsar-ha-mutants``), or None"""
        self.environment_specs = specs
        """The clusters this scenario needs when the session's environment does not fit it (else None)."""
        self.add_marker(SCENARIO_MARK)
        for mark in case.scenario.marks:
            self.add_marker(mark)
        if case.scenario.failures_to_show:
            # a selection mark only, whatever the version (make matrix runs each on every version): whether the
            # run is XFAIL, XPASS or a failure is decided from its verdicts and the brokers' answer
            # (checks.outcome), never from marks
            self.add_marker("expected_failure")
        if mutant is not None:
            self._mutate(mutant)
            return
        mutants = mutants_of(kwargs["parent"].config)
        if mutants:
            self._baseline(mutants)
        self.user_properties.append(("scenario_seed", case.seed))

    def _baseline(self, mutants: list[str]) -> None:
        """The unmutated run of a mutation session, which its mutants are judged against: skipped when none of
        them can apply (nothing to judge against it)."""
        from pytest_pulsar_ha.mutants.catalogue import cannot_apply

        if all(cannot_apply(self.case.scenario, m) is not None for m in mutants):
            self.add_marker(pytest.mark.skip(reason="baseline of no mutant: none of the selected mutants can apply"))

    def _mutate(self, mutant: str) -> None:
        from pytest_pulsar_ha.mutants.catalogue import cannot_apply

        self.user_properties += [(MUTANT_PROPERTY, mutant), ("scenario_seed", self.case.seed)]
        reason = cannot_apply(self.case.scenario, mutant)
        if reason is not None:
            self.add_marker(pytest.mark.skip(reason=f"mutant {mutant} cannot apply: {reason}"))

    @property
    def seed(self) -> int:
        """The seed of every random choice of this scenario: its `seed:`, or one derived from its id."""
        return self.case.seed

    @property
    def pulsar_ha(self) -> PulsarHaEnvironment:
        """The environment this scenario runs on, set up before :meth:`runtest`: the session's (the ``pulsar_ha``
        fixture), or, for a scenario in :attr:`environment_specs`, the one of its topology."""
        if self.funcargs and self.environment_specs is not None and "pulsar_ha_environments" in self.funcargs:
            pool = cast("EnvironmentPool", self.funcargs["pulsar_ha_environments"])
            return pool.get(self.environment_specs)
        if not self.funcargs or "pulsar_ha" not in self.funcargs:
            raise RuntimeError(f"{self.nodeid}: the pulsar_ha fixture is set up only while the scenario runs")
        return cast("PulsarHaEnvironment", self.funcargs["pulsar_ha"])

    def getfixturevalue(self, name: str) -> Any:
        """The value of any fixture (set up now if needed, torn down with the test)."""
        return self._request.getfixturevalue(name)

    def runtest(self) -> None:
        get_runner(self.config)(self, self.case)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> str | TerminalRepr:  # type: ignore[override]
        if isinstance(excinfo.value, ScenarioFailed):  # ExpectedScenarioFailure included
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        """(file, 0-based line of the scenario or variant, "scenario: <id>"), as pytest expects."""
        return self.path, self.case.line - 1, f"scenario: {self.case.id}"
