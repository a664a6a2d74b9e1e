"""The play of one hand's tricks from a given deal and position, as ints: for search.

A search bot (PIMC, ISMCTS) plays thousands of tricks per decision from deals it made up. A
full ``Match`` carries the draw, the bidding, the match score and its logs, so copying one per
simulation is wasteful. ``TrickPlay`` is the play phase of a hand (R-4) and nothing else: two
hand masks, who is to act, the card led, spades broken and the tricks won, with the same legality
(R-4.3, R-4.5), the same breaking of spades (R-4.4) and the same trick winners (R-4.6) as the
``Match``; ``copy`` is a handful of slot assignments. ``settle`` scores the finished hand with the
engine's own scoring (R-5) under a rule set, so a simulation follows every scoring rule of the
engine. Pure: no I/O, no randomness.

The tables and ``legal_plays`` are public so a hand-tuned play-out loop can use them directly.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.rules.cards import FULL_DECK, NUM_CARDS, SPADES_MASK, SUIT_MASKS, card_name, cards_of
from arena.rules.errors import IllegalActionError
from arena.rules.observation import Observation
from arena.rules.ruleset import RuleSet
from arena.rules.scoring import bag_penalty, hand_points

TRICKS_PER_HAND = 13
FIRST_SPADE = 39
NON_SPADES = FULL_DECK ^ SPADES_MASK

SUIT_MASK_OF: tuple[int, ...] = tuple(SUIT_MASKS[c // 13] for c in range(NUM_CARDS))
"""``SUIT_MASK_OF[card]``: the mask of the card's suit."""

FOLLOWER_WINS: tuple[bool, ...] = tuple(
    (card // 13 == lead // 13 and card > lead) or (card >= FIRST_SPADE > lead)
    for lead in range(NUM_CARDS)
    for card in range(NUM_CARDS)
)
"""``FOLLOWER_WINS[lead * 52 + answer]``: whether the answer beats the card led (R-4.6)."""


def legal_plays(hand: int, lead: int, broken: bool) -> int:
    """The mask of the cards of ``hand`` that may be played: following ``lead`` (a card, or -1
    when leading) by R-4.3, or leading by R-4.5."""
    if lead >= 0:
        return hand & SUIT_MASK_OF[lead] or hand
    if broken:
        return hand
    return hand & NON_SPADES or hand


class TrickPlay:
    """The tricks of one hand from a position: hands, seat to act, open trick, tricks won."""

    __slots__ = ("broken", "hands", "lead", "to_act", "won")

    def __init__(
        self,
        hands: Sequence[int],
        to_act: int,
        *,
        lead: int = -1,
        broken: bool = False,
        won: Sequence[int] = (0, 0),
    ) -> None:
        """``hands``: each seat's cards as a mask; ``lead``: the card of the open trick, played
        by the other seat, or -1 when ``to_act`` leads. The hands must hold the same number of
        cards, less one for the leader of an open trick, and not overlap."""
        h0, h1 = hands
        if h0 & h1 or (h0 | h1) >> NUM_CARDS:
            raise ValueError("the two hands must be disjoint sets of cards 0-51")
        if to_act not in (0, 1):
            raise ValueError(f"to_act must be seat 0 or 1, got {to_act!r}")
        sizes = [h0.bit_count(), h1.bit_count()]
        if lead >= 0:
            if not 0 <= lead < NUM_CARDS or (h0 | h1) >> lead & 1:
                raise ValueError(f"the card led, {lead}, must be a card in neither hand")
            sizes[to_act ^ 1] += 1
        if sizes[0] != sizes[1]:
            raise ValueError(f"the hands hold {sizes[0]} and {sizes[1]} cards for this trick")
        w0, w1 = won
        if w0 < 0 or w1 < 0 or w0 + w1 + sizes[0] != TRICKS_PER_HAND:
            raise ValueError(
                f"tricks won ({w0}, {w1}) and {sizes[0]} cards each do not make 13 tricks"
            )
        self.hands = [h0, h1]
        self.to_act = to_act
        self.lead = lead
        self.broken = broken
        self.won = [w0, w1]

    @classmethod
    def from_observation(cls, obs: Observation, opponent_hand: int) -> TrickPlay:
        """The position an observation of the play shows, with ``opponent_hand`` (a mask)
        assumed for the cards the observer cannot see."""
        seat = obs.seat
        hands = [0, 0]
        for c in obs.hand:
            hands[seat] |= 1 << c
        hands[seat ^ 1] = opponent_hand
        tricks = obs.tricks
        lead = -1
        if tricks and tricks[-1].winner is None:
            lead = tricks[-1].cards[0]
            to_act = tricks[-1].leader ^ 1
        elif tricks:
            to_act = tricks[-1].winner  # type: ignore[assignment]
        else:
            to_act = obs.first_drawer ^ 1
        won = (obs.seats[0].tricks_won, obs.seats[1].tricks_won)
        return cls(hands, to_act, lead=lead, broken=obs.spades_broken, won=won)

    def copy(self) -> TrickPlay:
        new = TrickPlay.__new__(TrickPlay)
        new.hands = self.hands[:]
        new.to_act = self.to_act
        new.lead = self.lead
        new.broken = self.broken
        new.won = self.won[:]
        return new

    @property
    def is_over(self) -> bool:
        return self.won[0] + self.won[1] == TRICKS_PER_HAND

    @property
    def tricks_left(self) -> int:
        """Tricks not yet won, the open one included."""
        return TRICKS_PER_HAND - self.won[0] - self.won[1]

    def legal(self) -> int:
        """The mask of the cards ``to_act`` may play (0 once the hand is over)."""
        return legal_plays(self.hands[self.to_act], self.lead, self.broken)

    def play(self, card: int) -> int | None:
        """Play ``card`` for ``to_act``; returns the seat that won the trick it completes, else
        None. Raises IllegalActionError (naming the rule) for a card that may not be played."""
        seat = self.to_act
        hand = self.hands[seat]
        lead = self.lead
        if not (0 <= card < NUM_CARDS and legal_plays(hand, lead, self.broken) >> card & 1):
            raise IllegalActionError(
                "R-4.3" if lead >= 0 else "R-4.5",
                f"{card_name(card) if 0 <= card < NUM_CARDS else card} may not be played now; "
                f"legal: {', '.join(card_name(c) for c in cards_of(self.legal())) or 'none'}",
            )
        self.hands[seat] = hand ^ (1 << card)
        if card >= FIRST_SPADE:
            self.broken = True
        if lead < 0:
            self.lead = card
            self.to_act = seat ^ 1
            return None
        winner = seat if FOLLOWER_WINS[lead * 52 + card] else seat ^ 1
        self.won[winner] += 1
        self.lead = -1
        self.to_act = winner
        return winner


def settle(
    rules: RuleSet,
    bids: Sequence[int],
    double_nil: Sequence[bool],
    won: Sequence[int],
    scores: Sequence[int],
    bags: Sequence[int],
) -> tuple[tuple[int, int], tuple[int, int]]:
    """``(scores, bags)`` after a hand with these bids and tricks, from the scores and bags
    before it: R-5.1 to R-5.5 by the engine's ``hand_points`` and ``bag_penalty``."""
    new_scores = [0, 0]
    new_bags = [0, 0]
    for s in (0, 1):
        points, hand_bags = hand_points(
            bids[s], double_nil[s], won[s], rules.nil_tricks_count_as_bags
        )
        penalty, new_bags[s] = bag_penalty(bags[s], hand_bags)
        new_scores[s] = scores[s] + points + penalty
    return (new_scores[0], new_scores[1]), (new_bags[0], new_bags[1])
