"""What a bot is shown: a typed, read-only view of one request, with cards as ints.

Cards are the engine's ints (``suit * 13 + rank - 2``; see :mod:`arena.rules.cards`), so a bot
can use the engine's card helpers and bit masks directly. The view holds the whole information
set of spades-rules.md, so a bot needs no memory between requests.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from arena.rules.cards import SPADES, cards_of, mask_of, suit_of
from arena.rules.decisions import Decision
from arena.rules.observation import Observation, SeatView, TrickView
from arena.rules.outcome import HandResult
from arena.rules.ruleset import RuleSet


@dataclass(frozen=True, slots=True)
class Clock:
    """The time for one decision, on the referee's clock."""

    move_time_ms: int
    """The per-decision limit."""
    time_bank_ms: int
    """What is left of the match's time bank; spent only beyond ``move_time_ms``."""

    @property
    def deadline_ms(self) -> int:
        """The most this decision may take before it is a timeout."""
        return self.move_time_ms + self.time_bank_ms


@dataclass(frozen=True)
class View:
    """One decision request: the player's information set, the clock and the legal options."""

    match_id: str
    """Tells concurrent matches apart: key any per-match state by it."""
    decision: Decision
    seat: int
    """The seat asked, 0 or 1."""
    rules: RuleSet
    hand_number: int
    """1 for the first hand of the match."""
    first_drawer: int
    """The seat that drew first this hand (R-1.3); the other seat bids first and leads first."""
    hand: tuple[int, ...]
    """The bot's own cards, lowest first."""
    looking_at: int | None
    """In a draw decision, the card to keep or reject (R-2.1)."""
    own_discards: tuple[int, ...]
    """The cards this bot put on the discard pile this hand (R-2.2)."""
    stock_size: int
    seats: tuple[SeatView, SeatView]
    """Public facts per seat: score, bags, bid, Double Nil, tricks won, cards exchanged."""
    tricks: tuple[TrickView, ...]
    """This hand's tricks in order; the last is open while it has one card."""
    spades_broken: bool
    clock: Clock
    legal_cards: tuple[int, ...] = ()
    """In a play decision, the cards that may be played (R-4.3, R-4.5)."""
    legal_bids: tuple[int, ...] = ()
    """In a bid decision, the bids that may be made (R-3.1)."""
    max_cards: int = 0
    """In an exchange decision, the most cards that may be put aside (R-3.4)."""
    own_put_aside: tuple[int, ...] = ()
    """The cards this bot put aside in its own Double Nil exchange this hand, lowest first;
    empty before it has exchanged (R-3.4). They are out of play for this hand."""

    # -- seats ------------------------------------------------------------------------------

    @property
    def opponent(self) -> int:
        return 1 - self.seat

    @property
    def me(self) -> SeatView:
        return self.seats[self.seat]

    @property
    def opp(self) -> SeatView:
        return self.seats[1 - self.seat]

    @property
    def is_first_drawer(self) -> bool:
        return self.first_drawer == self.seat

    # -- the hand ---------------------------------------------------------------------------

    def in_suit(self, suit: int) -> tuple[int, ...]:
        """The bot's cards of ``suit``, lowest first."""
        return tuple(c for c in self.hand if c // 13 == suit)

    @cached_property
    def hand_mask(self) -> int:
        return mask_of(self.hand)

    # -- the play ---------------------------------------------------------------------------

    @property
    def current_trick(self) -> TrickView | None:
        """The open trick (one card played), or None between tricks."""
        if self.tricks and self.tricks[-1].winner is None:
            return self.tricks[-1]
        return None

    @property
    def completed_tricks(self) -> tuple[TrickView, ...]:
        if self.current_trick is None:
            return self.tricks
        return self.tricks[:-1]

    @property
    def tricks_left(self) -> int:
        """Tricks not yet won by anyone this hand, the open one included."""
        return 13 - len(self.completed_tricks)

    @property
    def leading(self) -> bool:
        """True when the bot plays the first card of a trick."""
        return self.decision is Decision.PLAY and self.current_trick is None

    @property
    def led_card(self) -> int | None:
        trick = self.current_trick
        return trick.cards[0] if trick is not None else None

    @property
    def led_suit(self) -> int | None:
        card = self.led_card
        return None if card is None else suit_of(card)

    @cached_property
    def played(self) -> tuple[int, ...]:
        """Every card played to a trick this hand, in play order."""
        return tuple(c for t in self.tricks for c in t.cards)

    @cached_property
    def played_mask(self) -> int:
        return mask_of(self.played)

    @cached_property
    def unseen_mask(self) -> int:
        """Cards this bot has not seen this hand: in the opponent's hand, the stock, the
        discard pile or put aside in the opponent's exchange (it cannot tell which)."""
        seen = self.hand_mask | self.played_mask | mask_of(self.own_discards)
        seen |= mask_of(self.own_put_aside)
        if self.looking_at is not None:
            seen |= 1 << self.looking_at
        return ((1 << 52) - 1) & ~seen

    @property
    def unseen(self) -> tuple[int, ...]:
        return cards_of(self.unseen_mask)

    def wins_against(self, card: int, led: int) -> bool:
        """Whether ``card``, played in answer to ``led``, wins the trick (R-4.6)."""
        return trick_winner(led, card) == card

    @property
    def observation(self) -> Observation:
        """The same facts as the engine's Observation, for bots that simulate with the engine."""
        return Observation(
            seat=self.seat,
            rules=self.rules,
            hand_number=self.hand_number,
            first_drawer=self.first_drawer,
            to_act=self.seat,
            decision=self.decision,
            hand=self.hand,
            looking_at=self.looking_at,
            own_discards=self.own_discards,
            stock_size=self.stock_size,
            seats=self.seats,
            tricks=self.tricks,
            spades_broken=self.spades_broken,
            own_put_aside=self.own_put_aside,
        )


def trick_winner(led: int, answer: int) -> int:
    """The card that wins a trick led with ``led`` and answered with ``answer`` (R-4.6)."""
    led_suit, answer_suit = led // 13, answer // 13
    if answer_suit == led_suit:
        return answer if answer > led else led
    return answer if answer_suit == SPADES else led


@dataclass(frozen=True, slots=True)
class MatchStart:
    """The StartMatch notice."""

    match_id: str
    seat: int
    rules: RuleSet
    opponent: str
    """The opponent's name, for logs."""
    clock: Clock


@dataclass(frozen=True, slots=True)
class HandEnd:
    """The EndHand notice: how a hand was scored, with its tricks."""

    match_id: str
    seat: int
    result: HandResult


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """The EndMatch notice."""

    match_id: str
    seat: int
    winner: int | None
    """The winning seat; None for a draw or an aborted match."""
    scores: tuple[int, ...]
    hands_played: int
    termination: str
    """Why it ended: ``"target_reached"``, ``"hand_limit"``, ``"forfeit_timeout"``, …"""
    detail: str
    """A readable reason for a forfeit; empty otherwise."""

    @property
    def won(self) -> bool:
        return self.winner == self.seat
