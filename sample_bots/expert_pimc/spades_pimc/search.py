"""The searches: PIMC for the play, simulation-based bidding (Nil included), and the fast choices.

Play (Perfect Information Monte Carlo): sample a deal of the opponent's hand consistent with
everything known (``inference``), play every candidate card in it and the rest of the hand with
the ``rollout`` policy for both players, and score the end of the hand; repeat until the time
budget is spent, and play the card of best average. All candidates see the same deals.

Bidding (after "Bidding in Spades", Cohensius et al. 2020): sample deals, play each out once
taking every trick it can and, when Nil is plausible, once more playing for Nil, and pick the
bid whose expected value over those deals is best.

A hand's value is its points for both players under the match situation: the engine's scoring
(``arena.rules.settle``: bids, Nil, Double Nil, bags and their penalty) from the current scores
and bags, bags carried counted as the future penalty they bring, and a bonus for winning (or
against losing) the match with this hand.
"""

from __future__ import annotations

import time
from random import Random

from arena.rules import RuleSet, settle
from arena.rules.playout import FOLLOWER_WINS
from arena.sdk import View
from spades_pimc.inference import Knowledge, estimate_tricks, sample_weighted
from spades_pimc.rollout import playout

BAG_COST = 8.0
"""What a bag carried to later hands costs, in points (10 bags are -100, R-5.5)."""
BID_SHADE = 1.0
"""Tricks taken off each simulated count before scoring a bid: the play-outs see both hands,
so they take more tricks than a real hand does. 1.0 won 158 of 200 matches against heuristic
where 1.5 won 149 and 0.5 148, on the same 200 deals (``EXPERT_WORK=3000``, in-process;
docs/benchmarks.md)."""
MATCH_BONUS = 400.0
"""The value of ending the match with a win (minus it for a loss), in points."""


RACE_Z = 3.0
"""How many standard errors of the paired difference make a candidate card clearly worse than
the leader of the race (and dropped from it)."""
RACE_FIRST = 16
"""Deals every candidate sees before any is dropped."""
RACE_EVERY = 8
"""Deals between two looks at the race at least (a quarter of the deals so far at most)."""
SAME_DEALS = 48
"""Deals with no difference at all between the candidates left after which the search stops."""
DEAL_WORK = 2
"""A sampled deal's cost in work units (a unit is one trick played out)."""


class Stats:
    """Simulations run by one search, for the benchmarks."""

    __slots__ = ("deals", "playouts", "seconds", "work")

    def __init__(self) -> None:
        self.deals = 0
        self.playouts = 0
        self.work = 0
        self.seconds = 0.0


class Limit:
    """When a search stops: at a wall-clock time (``time.perf_counter``), after a number of
    sampled deals, or after a number of work units (tricks played out, a load-independent
    measure of CPU time, ``DEAL_WORK`` a deal). Any of them that is set stops it."""

    __slots__ = ("deadline", "deals", "work")

    def __init__(
        self, deadline: float | None = None, deals: int | None = None, work: int | None = None
    ) -> None:
        self.deadline = deadline
        self.deals = deals
        self.work = work

    def spent(self, deals: int, work: int) -> bool:
        """Whether the search stops after ``deals`` complete deals and ``work`` units."""
        if self.deals is not None and deals >= self.deals:
            return True
        return self.cut(work)

    def cut(self, work: int) -> bool:
        """Whether the search stops within a deal (the time or the work is spent; a count of
        deals always finishes its last deal)."""
        if self.work is not None and work >= self.work:
            return True
        return self.deadline is not None and time.perf_counter() >= self.deadline


def hand_values(
    rules: RuleSet,
    seat: int,
    bids: tuple[int, int],
    double_nil: tuple[bool, bool],
    scores: tuple[int, int],
    bags: tuple[int, int],
) -> list[float]:
    """``values[t]``: the value for ``seat`` of a hand in which it wins ``t`` of the 13 tricks."""
    values = []
    for t in range(14):
        won = (t, 13 - t) if seat == 0 else (13 - t, t)
        new_scores, new_bags = settle(rules, bids, double_nil, won, scores, bags)
        me, opp = new_scores[seat], new_scores[seat ^ 1]
        v = (me - BAG_COST * new_bags[seat]) - (opp - BAG_COST * new_bags[seat ^ 1])
        if max(me, opp) >= rules.target_score and me != opp:
            v += MATCH_BONUS if me > opp else -MATCH_BONUS
        values.append(v)
    return values


def equivalent_moves(legal: tuple[int, ...], possible: int) -> list[int]:
    """The legal cards, one per run of cards of a suit with no card between them that the
    opponent may hold: playing either of a run changes nothing (the higher one is kept)."""
    out: list[int] = []
    for c in sorted(legal):
        if out and out[-1] // 13 == c // 13:
            between = ((1 << c) - 1) ^ ((2 << out[-1]) - 1)
            if not possible & between:
                out[-1] = c
                continue
        out.append(c)
    return out


def choose_play(
    view: View, k: Knowledge, rng: Random, limit: Limit, stats: Stats | None = None
) -> int:
    """The card to play by PIMC: the best average over sampled deals.

    A race over the candidates: all see the same deals, and from ``RACE_FIRST`` deals on a
    candidate whose paired loss to the leader is more than ``RACE_Z`` standard errors is dropped,
    so the deals left go to the cards still in contention. The search ends when one candidate is
    left, when all have scored the same on every deal for ``SAME_DEALS`` deals (no deal tells
    them apart), or when ``limit`` is spent. Forced moves (one legal card, or only cards of one
    run that are worth the same, ``equivalent_moves``) are played without a search."""
    legal = view.legal_cards
    if len(legal) == 1:
        return legal[0]
    moves = equivalent_moves(legal, k.possible)
    if len(moves) == 1:
        return moves[0]
    seat = view.seat
    seats = view.seats
    bids = (seats[0].bid or 0, seats[1].bid or 0)
    dn = (seats[0].double_nil, seats[1].double_nil)
    values = hand_values(
        view.rules,
        seat,
        bids,
        dn,
        (seats[0].score, seats[1].score),
        (seats[0].bags, seats[1].bags),
    )
    if seat == 1:
        values = values[::-1]  # indexed by the tricks of seat 0, as playout returns them
    won0 = [seats[0].tricks_won, seats[1].tricks_won]
    trick = view.current_trick
    lead = trick.cards[0] if trick is not None else -1
    broken = view.spades_broken
    hand = k.hand
    left = 13 - won0[0] - won0[1]
    scores: list[list[float]] = [[] for _ in moves]
    active = list(range(len(moves)))
    start = time.perf_counter()
    deals = playouts = work = 0
    check = RACE_FIRST
    while True:
        opp = sample_weighted(k, rng)
        deals += 1
        work += DEAL_WORK
        cut = False
        for i in active:
            if deals > 1 and limit.cut(work):
                cut = True  # the budget is spent: stop within the deal, not after it
                break
            card = moves[i]
            hands = [0, 0]
            hands[seat] = hand ^ (1 << card)
            hands[seat ^ 1] = opp
            won = won0[:]
            b = broken or card >= 39
            if lead < 0:
                t0 = playout(hands, seat ^ 1, card, b, won, bids)
            else:
                winner = seat if FOLLOWER_WINS[lead * 52 + card] else seat ^ 1
                won[winner] += 1
                t0 = playout(hands, winner, -1, b, won, bids)
            scores[i].append(values[t0])
            playouts += 1
            work += left
        if cut or limit.spent(deals, work):
            break
        if deals >= check:
            check = deals + max(RACE_EVERY, deals // 4)
            active, settled = race(scores, active, deals)
            if settled:
                break
    if stats is not None:
        stats.deals += deals
        stats.playouts += playouts
        stats.work += work
        stats.seconds += time.perf_counter() - start
    best = max(active, key=lambda i: (sum(scores[i]) / max(1, len(scores[i])), -i))
    return moves[best]


def race(scores: list[list[float]], active: list[int], n: int) -> tuple[list[int], bool]:
    """The candidates still in the race after ``n`` common deals, and whether it is settled
    (one left, or none of them told apart by any of ``SAME_DEALS`` deals or more)."""
    means = {i: sum(scores[i][:n]) / n for i in active}
    lead = max(active, key=lambda i: (means[i], -i))
    best = scores[lead]
    keep = [lead]
    same = n >= SAME_DEALS
    for j in active:
        if j == lead:
            continue
        other = scores[j]
        d = [best[t] - other[t] for t in range(n)]
        m = sum(d) / n
        var = sum((x - m) * (x - m) for x in d) / (n - 1)
        if var == 0.0:
            if m > 0.0:
                continue  # worse on every deal by the same amount
            keep.append(j)
            continue
        same = False
        if m * m * n > RACE_Z * RACE_Z * var:
            continue  # clearly worse than the leader
        keep.append(j)
    keep.sort()
    return keep, len(keep) == 1 or same


def guess_opponent_bid(opp_hand: int, my_bid: int | None) -> int:
    """What an opponent holding ``opp_hand`` would bid: its rough trick count, rounded down."""
    bid = int(estimate_tricks(opp_hand))
    if my_bid == 0:
        bid -= 1
    return max(1, min(13, bid))


def sure_spades(hand: int, possible: int) -> int:
    """Spades of ``hand`` that win whenever played: from the ace down, every card the opponent
    may hold ends the run."""
    count = 0
    for c in range(51, 38, -1):
        if hand >> c & 1:
            count += 1
        elif possible >> c & 1:
            break
    return count


def nil_plausible(hand: int) -> bool:
    """Whether Nil is worth simulating: few high cards and few, low spades."""
    spades = hand >> 39 & 0x1FFF
    if spades.bit_count() > 3 or spades >> 9:  # more than three spades, or J-A of spades
        return False
    return estimate_tricks(hand) < 2.5


def choose_bid(
    view: View, k: Knowledge, rng: Random, limit: Limit, stats: Stats | None = None
) -> int:
    """The bid of best expected value over sampled deals, Nil included when plausible."""
    seat = view.seat
    seats = view.seats
    legal = view.legal_bids
    opp_bid = seats[seat ^ 1].bid
    opp_nil = opp_bid == 0
    try_nil = 0 in legal and not opp_nil and nil_plausible(k.hand)
    scores = (seats[0].score, seats[1].score)
    bags = (seats[0].bags, seats[1].bags)
    dn = (seats[0].double_nil, seats[1].double_nil)
    leader = view.first_drawer ^ 1
    candidates = [b for b in legal if b > 0]
    tables: dict[tuple[int, int], list[float]] = {}

    def value(my_bid: int, their_bid: int, tricks: int) -> float:
        key = (my_bid, their_bid)
        table = tables.get(key)
        if table is None:
            pair = (my_bid, their_bid) if seat == 0 else (their_bid, my_bid)
            table = hand_values(view.rules, seat, pair, dn, scores, bags)
            tables[key] = table
        return table[tricks]

    totals = {b: 0.0 for b in candidates}
    sure = sure_spades(k.hand, k.possible)
    shade = int(BID_SHADE + 0.999)
    frac = shade - BID_SHADE  # a fractional shade mixes the two counts around it
    nil_total = 0.0
    start = time.perf_counter()
    deals = playouts = work = 0
    while True:
        opp = sample_weighted(k, rng)
        deals += 1
        work += DEAL_WORK + 13
        their = opp_bid if opp_bid is not None else guess_opponent_bid(opp, None)
        hands = [0, 0]
        hands[seat] = k.hand
        hands[seat ^ 1] = opp
        t0 = playout(hands, leader, -1, False, [0, 0], (13, 13))  # both take all they can
        playouts += 1
        mine = t0 if seat == 0 else 13 - t0
        sure_here = min(mine, sure)  # no shading of tricks that cannot be lost
        low = max(0, mine - shade, sure_here)
        high = max(min(13, mine - shade + 1), sure_here)
        for b in candidates:
            totals[b] += (1 - frac) * value(b, their, low) + frac * value(b, their, high)
        if try_nil:
            their_vs_nil = opp_bid if opp_bid is not None else guess_opponent_bid(opp, 0)
            pair = (0, their_vs_nil) if seat == 0 else (their_vs_nil, 0)
            hands = [0, 0]
            hands[seat] = k.hand
            hands[seat ^ 1] = opp
            t0 = playout(hands, leader, -1, False, [0, 0], pair)
            playouts += 1
            work += 13
            nil_total += value(0, their_vs_nil, t0 if seat == 0 else 13 - t0)
        if limit.spent(deals, work):
            break
    if stats is not None:
        stats.deals += deals
        stats.playouts += playouts
        stats.work += work
        stats.seconds += time.perf_counter() - start
    if not candidates:
        return legal[0]
    best = max(candidates, key=lambda b: (totals[b], -b))
    if try_nil and nil_total > totals[best]:
        return 0
    return best


# -- the fast choices --------------------------------------------------------------------------

_SPADE_VALUE = (0.45,) * 6 + (0.5, 0.55, 0.6, 0.7, 0.8, 0.9, 1.0)
_SIDE_VALUE = (0.0,) * 8 + (0.05, 0.15, 0.3, 0.6, 0.85)


def trick_value(card: int) -> float:
    """A card's worth to a hand that takes tricks: roughly its chance to win one."""
    r = card % 13
    return _SPADE_VALUE[r] if card >= 39 else _SIDE_VALUE[r]


def nil_value(card: int) -> float:
    """A card's worth to a Nil hand: low side cards best, spades worst."""
    r = card % 13
    return 0.5 - 0.1 * r if card >= 39 else 1.0 - 0.1 * r


def plans_nil(view: View) -> bool:
    """Build the hand for Nil in the draw: a Double Nil declared, or after four cards none
    dangerous (no spade above the six, at most one spade, no side card above the nine)."""
    if view.me.double_nil:
        return True
    hand = view.hand
    if len(hand) < 4 or view.opp.bid == 0:
        return False
    spades = [c for c in hand if c >= 39]
    if len(spades) > 1 or any(c % 13 > 4 for c in spades):
        return False
    return all(c % 13 <= 7 for c in hand if c < 39)


def choose_draw(view: View) -> bool:
    """Keep the card looked at when it is worth more than the average card not yet seen (a
    rejected card is replaced by one of those)."""
    card = view.looking_at
    assert card is not None
    unseen = view.unseen
    if not unseen:
        return True
    value = nil_value if plans_nil(view) else trick_value
    average = sum(value(c) for c in unseen) / len(unseen)
    return value(card) >= average


def choose_exchange(view: View) -> list[int]:
    """After a Double Nil: put aside the (up to three) cards most likely to take a trick, when
    they are worse for a Nil than a card drawn at random from the pile."""
    pile = set(view.unseen) | set(view.own_discards)
    average = sum(nil_value(c) for c in pile) / len(pile) if pile else 0.0
    worst = sorted(view.hand, key=lambda c: (nil_value(c), -c))[: view.max_cards]
    return [c for c in worst if nil_value(c) < average - 0.1]


def choose_double_nil(view: View) -> bool:
    """Declare Double Nil (blind, R-3.3) only as a gamble when the match is otherwise lost: the
    opponent should reach the target with this hand, too far ahead for a normal hand to catch
    up, and not so far that +200 would not."""
    me, opp = view.me, view.opp
    if opp.double_nil:
        return False
    target = view.rules.target_score
    return opp.score >= target - 60 and 110 <= opp.score - me.score <= 240
