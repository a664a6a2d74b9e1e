"""What a call to a seat comes back as, and how a match ends: the referee's small value types.

A decision's call gives an answer (``SeatAnswer``): the bot's ``Reply``, a ``Fault`` of the
seat's, a ``Fallback`` (the session the bot turned down on its first request: the call goes
over unary RPCs instead) or ``ArenaClosed`` (the arena closed the connection of a living bot).
The play loop takes them apart with a ``match`` statement. A match that ends, at any point of
the referee's, ends as an ``Ending``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from arena.referee.record import FaultKind, Termination

__all__ = [
    "ARENA_CLOSED",
    "FALLBACK",
    "ArenaClosed",
    "Ending",
    "Fallback",
    "Fault",
    "Reply",
    "SeatAnswer",
]


class Reply(NamedTuple):
    """The bot's answer to a call: the response's bytes (a unary call's) or its message (a
    session's), not yet converted into an action."""

    message: Any


class Fault(NamedTuple):
    """A seat's fault on one call: its kind and a readable account."""

    kind: FaultKind
    detail: str


class Fallback:
    """The session the bot turned down on its first request: play the seat over unary RPCs.
    One value, ``FALLBACK``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "FALLBACK"


class ArenaClosed:
    """The arena closed the connection of a living bot (the match is aborted, nobody's
    fault). One value, ``ARENA_CLOSED``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ARENA_CLOSED"


FALLBACK = Fallback()
ARENA_CLOSED = ArenaClosed()

SeatAnswer = Reply | Fault | Fallback | ArenaClosed
"""What a call to a seat comes back as."""


class Ending(NamedTuple):
    """How a match ended: the winner's seat (None: no winner), why, and the referee's account
    (empty when the cards decided)."""

    winner: int | None
    termination: Termination
    detail: str
