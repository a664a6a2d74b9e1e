"""What one player may know: exactly the information set of spades-rules.md, nothing more.

Never the opponent's hand, the stock's order, the discard pile beyond one's own discards, the
cards the opponent put aside in an exchange, or the seed. The cards a seat put aside in its own
Double Nil exchange are its own knowledge and are part of its view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from arena.rules.decisions import Decision
from arena.rules.ruleset import RuleSet


@dataclass(frozen=True, slots=True)
class SeatView:
    """The public facts about one seat."""

    score: int
    bags: int
    bid: int | None
    """The bid of this hand once made (0 is Nil); None before. A Double Nil is bid 0."""
    double_nil: bool
    """Declared Double Nil this hand (R-3.3); told to the opponent at once."""
    tricks_won: int
    cards_exchanged: int | None
    """How many cards this seat exchanged (R-3.4); None until it has exchanged."""
    draw_choices: tuple[bool, ...] | None = None
    """Keep (True) or reject (False) of each draw turn so far; only when public (R-2.2)."""


@dataclass(frozen=True, slots=True)
class TrickView:
    leader: int
    """The seat that led."""
    cards: tuple[int, ...]
    """The cards in play order, the leader's first; one card while the trick is open."""
    winner: int | None
    """The seat that won it (R-4.6); None while it is open."""


@dataclass(frozen=True, slots=True)
class Observation:
    seat: int
    rules: RuleSet
    hand_number: int
    """1 for the first hand of the match."""
    first_drawer: int
    """The seat that is first drawer of this hand (R-1.3)."""
    to_act: int | None
    """The seat whose decision it is, None once the match is over."""
    decision: Decision | None
    """The decision being asked of ``to_act``."""
    hand: tuple[int, ...]
    """This seat's own cards, lowest first."""
    looking_at: int | None
    """During this seat's draw decision, the card it is looking at (R-2.1)."""
    own_discards: tuple[int, ...]
    """The cards this seat put on the discard pile this hand, in order (R-2.2)."""
    stock_size: int
    seats: tuple[SeatView, SeatView]
    tricks: tuple[TrickView, ...]
    """This hand's tricks in order; the last may be open."""
    spades_broken: bool
    own_put_aside: tuple[int, ...] = ()
    """The cards this seat put aside in its own Double Nil exchange this hand, lowest first;
    empty before it has exchanged (R-3.4, spades-rules.md "What each player may know")."""


class InformationSet(NamedTuple):
    """What ``Observation`` holds, as the engine's own plain values (``Match.information_set``):
    for encoders on a referee's hot path, where building an ``Observation`` costs too much.
    The same facts, no more (tests check one against the other)."""

    hand_number: int
    first_drawer: int
    hand: int
    """The seat's own cards, as a card mask (bit ``c`` set for card ``c``)."""
    looking_at: int | None
    """During this seat's draw decision, the card it is looking at (R-2.1)."""
    own_discards: list[int]
    """The cards this seat put on the discard pile this hand, in order (R-2.2): the engine's
    own list, read it before the next ``apply`` and never change it."""
    stock_size: int
    seats: tuple[SeatView, SeatView]
    """The pair of the seats' views: the same tuple object for as long as neither seat's
    public facts change (so a caller may keep what it made of them by identity)."""
    plays: list[int]
    """The hand's cards in play order (the engine's own list, as ``own_discards``)."""
    winners: list[int]
    """The winner of each completed trick: the first trick is led by ``first_drawer ^ 1``,
    each next one by the last winner (the engine's own list)."""
    spades_broken: bool
    own_put_aside: int
    """The cards this seat put aside in its own Double Nil exchange this hand, as a card
    mask (R-3.4)."""
