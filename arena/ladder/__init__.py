"""The ladder: the arena schedules rated duplicate pairs by itself, most informative first."""

from arena.ladder.matchmaking import Choice, LadderEntrant, Matchmaker
from arena.ladder.runner import LADDER_KEY, Ladder, LadderError, LadderSettings, describe_status

__all__ = [
    "LADDER_KEY",
    "Choice",
    "Ladder",
    "LadderEntrant",
    "LadderError",
    "LadderSettings",
    "Matchmaker",
    "describe_status",
]
