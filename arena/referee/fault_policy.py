"""What a fault costs: forfeit at once, or a random legal move played for the bot.

The engine never decides this (design: policies live in the referee). ``substitute`` keeps a
long tournament going through the odd glitch while still counting it; after ``max_faults``
faults in one match the bot forfeits all the same. A crash (a dead process or a lost
connection) forfeits under both policies: no later answer can come from a dead bot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from arena.referee.clock import RefereeConfigError

PolicyKind = Literal["forfeit", "substitute"]


@dataclass(frozen=True, slots=True)
class FaultPolicy:
    kind: PolicyKind = "forfeit"
    """``forfeit``: the first fault loses the match. ``substitute``: a uniformly random legal
    action is played for the bot and the fault counted."""
    max_faults: int = 3
    """Under ``substitute``, the fault that brings a seat's count to this forfeits."""

    def __post_init__(self) -> None:
        if self.kind not in ("forfeit", "substitute"):
            raise RefereeConfigError(
                f"unknown fault policy {self.kind!r}: use 'forfeit' or 'substitute'"
            )
        if type(self.max_faults) is not int or self.max_faults < 1:
            raise RefereeConfigError(
                f"max_faults must be a positive whole number, got {self.max_faults!r}"
            )

    def forfeits(self, faults: int) -> bool:
        """Whether a seat that has just made its ``faults``-th fault forfeits."""
        return self.kind == "forfeit" or faults >= self.max_faults

    def describe(self) -> str:
        return "forfeit" if self.kind == "forfeit" else f"substitute (max {self.max_faults} faults)"
