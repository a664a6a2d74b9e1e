"""Solve a play position: its par, every legal card's value, and the double-dummy tricks.

Values are hand points from the view of the seat to move: that seat's hand score minus the
other's (R-5, ``position.payoff_table``) when both play perfectly from here, each seeing both
hands. The C search serves where it was built; the Python one (``search.Search``) otherwise,
and is the reference its tests compare with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from arena.analysis.position import TRICKS, Position
from arena.analysis.search import Search as PythonSearch

SOLVER_VERSION = "2"
"""Changes whenever the same position could get a different value or best card: stored with
every analysis, so results of an older solver can be found and recomputed."""


class SearchLike(Protocol):
    nodes: int

    def value(
        self,
        h0: int,
        h1: int,
        to_act: int,
        lead: int,
        won0: int,
        broken: bool,
        limit: int | None = None,
        deadline: float | None = None,
    ) -> int | None: ...

    def card_values(
        self,
        h0: int,
        h1: int,
        to_act: int,
        lead: int,
        won0: int,
        broken: bool,
        limit: int | None = None,
        deadline: float | None = None,
    ) -> dict[int, int] | None: ...


try:
    from arena.analysis._dd import Search as CSearch
except ImportError:  # not built (no compiler at install): the reference serves
    CSearch = None

C_SEARCH: Any = CSearch
"""The C search's class (``search.Search``'s interface and values), or None if not built."""


def new_search(payoff: Sequence[int], *, python: bool = False) -> SearchLike:
    """A search under ``payoff``: the C one where built, unless ``python``."""
    if python or C_SEARCH is None:
        return PythonSearch(payoff)
    return C_SEARCH(payoff)


@dataclass(frozen=True, slots=True)
class Solution:
    value: int
    """The position's par: the best the seat to move can make sure of, in hand points."""
    card_values: dict[int, int]
    """Each legal card and its value for the seat to move."""

    @property
    def best(self) -> tuple[int, ...]:
        """The cards that keep the par, lowest first."""
        return tuple(sorted(c for c, v in self.card_values.items() if v == self.value))


def _args(p: Position) -> tuple[int, int, int, int, int, bool]:
    return p.hands[0], p.hands[1], p.to_act, p.lead, p.tricks_won[0], p.spades_broken


def solve(position: Position, search: SearchLike | None = None) -> Solution:
    """The par of ``position`` and the value of each legal card, for the seat to move.

    ``search`` may be one made for this hand's payoff and reused across its positions."""
    if search is None:
        search = new_search(position.payoff())
    sign = 1 if position.to_act == 0 else -1
    values = search.card_values(*_args(position))
    assert values is not None  # no limit: the search runs to the end
    mover = {card: sign * v for card, v in values.items()}
    return Solution(value=max(mover.values()), card_values=mover)


def max_tricks(position: Position, search: SearchLike | None = None) -> tuple[int, int]:
    """The tricks each seat ends the hand with when it plays for tricks and the other plays to
    stop it (the classic double-dummy number); the two add up to 13.

    ``search`` may be one made with ``trick_payoff()``, reused across the hand's positions."""
    if search is None:
        search = new_search(trick_payoff())
    won0 = search.value(*_args(position))
    assert won0 is not None  # no limit
    return won0, TRICKS - won0


def trick_payoff() -> tuple[int, ...]:
    """The payoff that counts seat 0's tricks: solving under it gives the double-dummy tricks."""
    return tuple(range(TRICKS + 1))
