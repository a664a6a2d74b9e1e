"""How a match ended by the rules (R-6), and what each hand scored (R-5)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from arena.rules.observation import TrickView


class Termination(enum.Enum):
    TARGET_REACHED = "target_reached"
    """R-6.2: one player reached the target score with the higher score."""
    HAND_LIMIT = "hand_limit"
    """R-6.3: adjudicated after ``max_hands`` hands."""


@dataclass(frozen=True, slots=True)
class HandResult:
    hand_number: int
    first_drawer: int
    bids: tuple[int, int]
    double_nil: tuple[bool, bool]
    tricks_won: tuple[int, int]
    points: tuple[int, int]
    """Points of the hand by R-5.1 to R-5.4, before any sandbag penalty."""
    bag_penalties: tuple[int, int]
    """Points lost to R-5.5 in this hand (0 or a negative multiple of 100)."""
    scores: tuple[int, int]
    """Match scores after this hand."""
    bags: tuple[int, int]
    """Bag counts after this hand (0-9)."""
    tricks: tuple[TrickView, ...] = ()
    """The 13 tricks of the hand, in order."""


@dataclass(frozen=True, slots=True)
class Outcome:
    termination: Termination
    winner: int | None
    """The winning seat; None for a draw (possible only by R-6.3)."""
    scores: tuple[int, int]
    hands_played: int
