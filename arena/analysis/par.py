"""Par loss of each card played in a match, and its class.

A play's **par loss** is the value of the best card minus the value of the card played, both
double-dummy values of the position (``solver.solve``) in hand points from the player's view:
how many points of the hand's score difference the card gave away against perfect play from
there on. It is never negative. Its class:

==============  ================  =====================================================
class           par loss          what it typically is
==============  ================  =====================================================
best            0                 a card that keeps the par
inaccuracy      1 to 9            an overtrick (a bag) given or a point of a contract
mistake         10 to 49          a trick of a small contract, a bag that brings R-5.5
blunder         50 or more        a contract set, a Nil broken or let through
==============  ================  =====================================================

A play's **share** is its par loss over what was at stake in the decision, the par less the
value of the worst legal card: 0 to 1, and 0 where every card is worth the same. Card-play loss
(``card_play_loss``) adds the shares of a hand: a Nil or a tenth bag puts 100-200 points on one
card and a lost contract none, and the share weighs every decision alike.

Beside it, each play's **trick loss**, the classic double-dummy measure of bridge: the tricks
the card gave away, the most tricks the player could make sure of from the position (both
seeing both hands, the other playing to stop it) less the most it can make sure of after the
card played (``solver.trick_payoff``). It counts a deliberate duck (to keep a Nil, to avoid
bags) as a trick given.

A play made by the referee for a bot that faulted (a substitute) is analysed but marked, and
the card-play loss of the bot leaves it out.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import cast

from arena.analysis.position import Position
from arena.analysis.solver import (
    SOLVER_VERSION,
    SearchLike,
    max_tricks,
    new_search,
    solve,
    trick_payoff,
)
from arena.rules import Action, Decision, Match, RuleSet

INACCURACY = 1
"""The least par loss (hand points) that is not ``best``."""
MISTAKE = 10
"""The least par loss that is a mistake: a trick's worth in a contract (R-5.1, R-5.2)."""
BLUNDER = 50
"""The least par loss that is a blunder: half a Nil (R-5.3), a contract of 3 or more set."""


class PlayClass(enum.Enum):
    BEST = "best"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"

    @classmethod
    def of(cls, loss: int) -> PlayClass:
        if loss < 0:
            raise ValueError(f"a par loss is never negative, got {loss}")
        if loss >= BLUNDER:
            return cls.BLUNDER
        if loss >= MISTAKE:
            return cls.MISTAKE
        if loss >= INACCURACY:
            return cls.INACCURACY
        return cls.BEST


@dataclass(frozen=True, slots=True)
class PlayAnalysis:
    step: int
    """Index of the decision in the match's record (0 is the first decision of the match)."""
    hand_number: int
    trick: int
    """1-13."""
    seat: int
    card: int
    par: int
    """The position's value before the play, for ``seat``."""
    value: int
    """The value of the card played, for ``seat``."""
    best: tuple[int, ...]
    """The cards that keep the par, lowest first."""
    trick_loss: int
    """Double-dummy tricks the card gave away (0 for a card that keeps the most tricks)."""
    low: int
    """The value of the worst legal card, for ``seat``: ``par - low`` is what is at stake."""
    substituted: bool = False
    """Played by the referee for a bot that faulted: not the bot's choice."""

    @property
    def loss(self) -> int:
        return self.par - self.value

    @property
    def kind(self) -> PlayClass:
        return PlayClass.of(self.loss)

    @property
    def share(self) -> float:
        """The share of the points at stake that the card gave away: its par loss over the
        par less the worst card's value, 0 to 1 (0 where every card is worth the same)."""
        stake = self.par - self.low
        return self.loss / stake if stake else 0.0


@dataclass(frozen=True, slots=True)
class HandAnalysis:
    hand_number: int
    bids: tuple[int, int]
    double_nil: tuple[bool, bool]
    dd_tricks: tuple[int, int]
    """Tricks each seat could have taken double-dummy, from the first lead (its bid beside it)."""
    par: int
    """The hand's par at the first lead, for seat 0 (seat 1's is its negation)."""
    plays: tuple[PlayAnalysis, ...]
    complete: bool
    """All 13 tricks were played (a forfeit can cut a hand short)."""

    def loss(self, seat: int) -> int:
        """``seat``'s par loss over the hand, substitutes left out."""
        return sum(p.loss for p in self.plays if p.seat == seat and not p.substituted)

    def share(self, seat: int) -> float:
        """``seat``'s shares of the stake given away (``PlayAnalysis.share``) summed over the
        hand, substitutes left out: 0 to 13, in decisions' worth."""
        return math.fsum(p.share for p in self.plays if p.seat == seat and not p.substituted)

    def trick_loss(self, seat: int) -> int:
        """``seat``'s trick loss over the hand, substitutes left out."""
        return sum(p.trick_loss for p in self.plays if p.seat == seat and not p.substituted)

    @property
    def nil(self) -> bool:
        """A seat bid Nil or Double Nil (R-5.3, R-5.4): losing tricks is then a goal, not a loss,
        and the hand is no sample of trick loss."""
        return 0 in self.bids or any(self.double_nil)


@dataclass(frozen=True, slots=True)
class MatchAnalysis:
    solver_version: str
    hands: tuple[HandAnalysis, ...] = field(default=())

    def hand_losses(self, seat: int) -> list[int]:
        """``seat``'s par loss in each complete hand: the samples of its card-play loss in
        points."""
        return [h.loss(seat) for h in self.hands if h.complete]

    def hand_shares(self, seat: int) -> list[float]:
        """``seat``'s stake given away in each complete hand (``HandAnalysis.share``): the
        samples of its card-play loss."""
        return [h.share(seat) for h in self.hands if h.complete]

    def hand_trick_losses(self, seat: int) -> list[int]:
        """``seat``'s trick loss in each complete hand without a Nil bid: the samples of its
        card-play loss in tricks."""
        return [h.trick_loss(seat) for h in self.hands if h.complete and not h.nil]

    @property
    def plays(self) -> list[PlayAnalysis]:
        return [p for h in self.hands for p in h.plays]


def trick_loss(position: Position, card: int, search: SearchLike | None = None) -> int:
    """The double-dummy tricks ``card`` gives away in ``position``: the most tricks its player
    can make sure of there, less the most after playing it.

    ``search``: one made with ``trick_payoff()``, reused across the hand's positions."""
    s = solve(position, search if search is not None else new_search(trick_payoff()))
    if card not in s.card_values:
        raise ValueError(f"card {card} is not a legal play of the position (R-4)")
    return s.value - s.card_values[card]


def analyse_match(
    seed: int,
    rules: RuleSet,
    actions: Iterable[Action],
    substituted: Collection[int] = (),
) -> MatchAnalysis:
    """Replay a match's actions through the engine and analyse every card played.

    ``substituted``: the steps whose action the referee chose for a faulting bot. Raises the
    engine's RulesError if an action is not legal where it is recorded."""
    m = Match(seed, rules)
    hands: list[HandAnalysis] = []
    plays: list[PlayAnalysis] = []
    start: tuple[int, tuple[int, int], tuple[bool, bool], tuple[int, int], int] | None = None
    search = tricks = None
    for step, action in enumerate(actions):
        if m.decision is Decision.PLAY:
            p = Position.of(m)
            hand = m.hand_number
            if start is None or start[0] != hand:
                if start is not None:
                    hands.append(_hand(start, plays, complete=True))
                    plays = []
                search, tricks = new_search(p.payoff()), new_search(trick_payoff())
                par0 = solve(p, search).value * (1 if p.to_act == 0 else -1)
                start = (hand, p.bids, p.double_nil, max_tricks(p, tricks), par0)
            if not m.is_legal(action):
                m.apply(action)  # raises the engine's error, which names the rule broken
            card = cast(int, action)  # a legal play is a card
            solution = solve(p, search)
            plays.append(
                PlayAnalysis(
                    step=step,
                    hand_number=hand,
                    trick=sum(p.tricks_won) + 1,
                    seat=p.to_act,
                    card=card,
                    par=solution.value,
                    value=solution.card_values[card],
                    best=solution.best,
                    trick_loss=trick_loss(p, card, tricks),
                    low=min(solution.card_values.values()),
                    substituted=step in substituted,
                )
            )
        m.apply(action)
    if start is not None:
        done = m.is_over or m.hand_number != start[0]
        hands.append(_hand(start, plays, complete=done))
    return MatchAnalysis(solver_version=SOLVER_VERSION, hands=tuple(hands))


def _hand(
    start: tuple[int, tuple[int, int], tuple[bool, bool], tuple[int, int], int],
    plays: list[PlayAnalysis],
    complete: bool,
) -> HandAnalysis:
    hand, bids, dn, dd, par0 = start
    return HandAnalysis(
        hand_number=hand,
        bids=bids,
        double_nil=dn,
        dd_tricks=dd,
        par=par0,
        plays=tuple(plays),
        complete=complete,
    )
