"""A play position as the engine holds it, and what its end is worth in hand points (R-5).

Once the draw is over both hands are fixed and known to the referee, so the rest of the hand is
a game of perfect information. Its end is scored by R-5 from the bids, the tricks and the bags
carried in; since the 13 tricks are shared between the two seats, the whole outcome is a
function of one number, the tricks seat 0 ends with. ``Position.payoff`` is that function:
seat 0's hand score minus seat 1's, the R-5.5 bag penalty and the R-5.3 choice included.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.rules import Decision, Match, RuleSet, bag_penalty, hand_points, mask_of

TRICKS = 13


@dataclass(frozen=True, slots=True)
class Position:
    """Everything the rest of a hand's play depends on, as plain values."""

    hands: tuple[int, int]
    """The cards each seat holds, as masks (arena.rules.cards)."""
    to_act: int
    lead: int
    """The card led to the trick in progress, or -1 at the start of a trick."""
    tricks_won: tuple[int, int]
    bids: tuple[int, int]
    double_nil: tuple[bool, bool]
    bags: tuple[int, int]
    """Bags carried into this hand (R-5.5)."""
    spades_broken: bool
    rules: RuleSet

    def __post_init__(self) -> None:
        h0, h1 = self.hands
        if h0 & h1:
            raise ValueError("a card cannot be in both hands")
        extra = 1 if self.lead >= 0 else 0
        n0, n1 = h0.bit_count(), h1.bit_count()
        leader_n, follower_n = (n1, n0) if self.to_act == 0 else (n0, n1)
        if self.lead >= 0 and (h0 | h1) >> self.lead & 1:
            raise ValueError("the card led is still in a hand")
        if leader_n + extra != follower_n or sum(self.tricks_won) + follower_n != TRICKS:
            raise ValueError(
                f"hands of {n0} and {n1} cards do not fit {sum(self.tricks_won)} tricks won "
                f"and {'a' if extra else 'no'} card led (R-4.1)"
            )

    @classmethod
    def of(cls, match: Match) -> Position:
        """The position of a match whose next decision is a card to play (R-4)."""
        if match.decision is not Decision.PLAY:
            raise ValueError(f"not a play decision: {match.decision}")
        seat = match.to_act
        assert seat is not None
        obs = match.observation(seat)
        trick = obs.tricks[-1] if obs.tricks else None
        lead = trick.cards[0] if trick is not None and trick.winner is None else -1
        s0, s1 = obs.seats
        return cls(
            hands=(mask_of(match.hand(0)), mask_of(match.hand(1))),
            to_act=seat,
            lead=lead,
            tricks_won=(s0.tricks_won, s1.tricks_won),
            bids=(s0.bid or 0, s1.bid or 0),
            double_nil=(s0.double_nil, s1.double_nil),
            bags=(s0.bags, s1.bags),
            spades_broken=obs.spades_broken,
            rules=match.rules,
        )

    @property
    def tricks_left(self) -> int:
        return TRICKS - sum(self.tricks_won)

    def payoff(self) -> tuple[int, ...]:
        """Seat 0's hand score minus seat 1's, indexed by the tricks seat 0 ends with (0-13)."""
        return payoff_table(self.bids, self.double_nil, self.bags, self.rules)


def seat_score(bid: int, double_nil: bool, tricks: int, bags: int, rules: RuleSet) -> int:
    """One seat's hand score by R-5.1 to R-5.5: the hand's points and any sandbag penalty."""
    points, new_bags = hand_points(bid, double_nil, tricks, rules.nil_tricks_count_as_bags)
    return points + bag_penalty(bags, new_bags)[0]


def payoff_table(
    bids: tuple[int, int], double_nil: tuple[bool, bool], bags: tuple[int, int], rules: RuleSet
) -> tuple[int, ...]:
    """``payoff[t]``: seat 0's hand score minus seat 1's when seat 0 ends with ``t`` tricks."""
    return tuple(
        seat_score(bids[0], double_nil[0], t, bags[0], rules)
        - seat_score(bids[1], double_nil[1], TRICKS - t, bags[1], rules)
        for t in range(TRICKS + 1)
    )
