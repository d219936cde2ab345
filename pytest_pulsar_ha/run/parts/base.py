"""What every part inherits: each step a no-op until the part says otherwise."""

from __future__ import annotations

from typing import ClassVar

from pytest_pulsar_ha.run.context import RunContext
from pytest_pulsar_ha.run.parts import stages


class Part:
    start_stage: ClassVar[int] = stages.NONE
    finish_stage: ClassVar[int] = stages.NONE

    def prepare(self, ctx: RunContext) -> None:
        return None

    def start(self, ctx: RunContext) -> None:
        return None

    def finish(self, ctx: RunContext) -> None:
        return None

    def close(self, ctx: RunContext) -> None:
        return None
