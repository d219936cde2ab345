"""What goes wrong with scenario files (:class:`ScenarioError`) and with scenarios run (:class:`ScenarioFailed`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_pulsar_ha.errors import ConfigurationError


@dataclass(frozen=True)
class Problem:
    """One mistake in a scenario file: where (file, 1-based line, key path) and what, in plain words."""

    file: str
    line: int
    where: str  # e.g. "scenarios[0].faults[1].for"; empty for the file as a whole
    message: str

    def __str__(self) -> str:
        location = f"{self.file}:{self.line}"
        return f"{location}: {self.where}: {self.message}" if self.where else f"{location}: {self.message}"


class ScenarioError(ConfigurationError):
    """A scenario file is not valid. The message lists every problem found, one per line, as ``file:line: ...``."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("\n".join(str(problem) for problem in self.problems))


class ScenarioFailed(AssertionError):
    """Raised by the scenario runner when an expectation does not hold.

    The test report shows its message as written, without a traceback: say what was expected, what was observed,
    and when.
    """


class ExpectedScenarioFailure(ScenarioFailed):
    """Raised instead of :class:`ScenarioFailed` for a scenario with ``expect_failure`` when expectations failed
    as it says they would (the scenario is marked ``xfail(strict=True, raises=ExpectedScenarioFailure)``: this
    reports XFAIL; any other failure stays a failure, and a pass is XPASS(strict), a failure)."""
