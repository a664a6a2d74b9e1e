"""The ladder: the arena schedules rated duplicate pairs by itself, most informative first."""

from arena.ladder.matchmaking import Choice, Entrant, Matchmaker
from arena.ladder.runner import LADDER_KEY, Ladder, LadderError, LadderSettings, describe_status

__all__ = [
    "LADDER_KEY",
    "Choice",
    "Entrant",
    "Ladder",
    "LadderError",
    "LadderSettings",
    "Matchmaker",
    "describe_status",
]
