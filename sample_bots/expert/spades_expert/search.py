"""The searches: PIMC with double-dummy play, simulation-based bidding (Nil included), and the
fast choices.

Play (Perfect Information Monte Carlo, as GIB plays bridge): sample a deal of the opponent's hand
consistent with everything known (``inference``), solve it exactly with the double-dummy search
of ``arena.analysis`` (every legal card's value when both play perfectly from here, valued by
the hand's points under the match situation), and play the card of best average over the
sampled deals.

Bidding (after "Bidding in Spades", Cohensius et al. 2020): sample deals, count the tricks each
gives the bot when both take all the tricks they can (double dummy), and pick the bid whose
expected value over those counts is best; Nil is valued by solving the deal under a Nil's payoff.

A hand's value is its points for both players under the match situation: the engine's scoring
(``arena.rules.settle``: bids, Nil, Double Nil, bags and their penalty) from the current scores
and bags, bags carried counted as the future penalty they bring, and a bonus for winning (or
against losing) the match with this hand.

A double-dummy search cannot be interrupted from Python, so each is given a number of positions
to walk at most (``limit``): the time left at the search's measured speed. A search that reaches
it gives nothing, and the decision rests on the deals solved before; with none, the card comes
from a fast play policy (``rollout.choose``) on one sampled deal.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from random import Random

from arena.analysis import new_search, trick_payoff
from arena.analysis.solver import SearchLike
from arena.rules import RuleSet, settle
from arena.sdk import View
from spades_expert.inference import Knowledge, estimate_tricks, sample_weighted
from spades_expert.rollout import choose as policy_choose
from spades_expert.rollout import mode_of

BAG_COST = 8.0
"""What a bag carried to later hands costs, in points (10 bags are -100, R-5.5)."""
BID_SHADE = 0.5
"""Tricks taken off each double-dummy count before scoring a bid: the solver sees both hands, so
it takes more tricks than a real hand does."""
MATCH_BONUS = 400.0
"""The value of ending the match with a win (minus it for a loss), in points."""
RACE_Z = 3.0
"""How many standard errors of the paired difference make a candidate card clearly worse than
the leader (the search stops once one card is left)."""
RACE_FIRST = 6
"""Deals every candidate sees before the race is looked at."""
RACE_EVERY = 6
"""Deals between two looks at the race at least (a quarter of the deals so far at most)."""
MAX_DEALS = 200
"""Deals a decision solves at most: the averages have settled long before, and the time left
goes to the hand's later decisions (and to the machine)."""
SAME_DEALS = 12
"""Deals with no difference at all between the candidates after which the search stops."""
NODES_PER_S = 500_000.0
"""The double-dummy search's speed before any is measured (positions a second)."""
MIN_NODES = 2_000
"""A search is never given fewer positions than this (a late trick needs a few hundred)."""
NODE_SAFETY = 0.5
"""A solve is given this share of the positions the time left would allow at the planned speed:
a machine whose load rises mid-solve slows it, and an answer must never be late."""
SHORT_SHARE = 0.7
"""A search stops when the time left is worth less than this share of its last solve."""
SEARCHES_KEPT = 4
"""Double-dummy searches (one per payoff, each with its table) kept per thread."""


class Stats:
    """Work done by one search, for the benchmarks: sampled deals, double-dummy solves (and
    how many were cut by their limit), positions searched, seconds."""

    __slots__ = ("cut", "deals", "nodes", "playouts", "seconds", "work")

    def __init__(self) -> None:
        self.deals = 0
        self.playouts = 0
        """Double-dummy solves (the name the benchmarks print)."""
        self.cut = 0
        self.nodes = 0
        self.work = 0
        self.seconds = 0.0


class Limit:
    """When a search stops: at a wall-clock time (``time.perf_counter``) or after a number of
    sampled deals. Either that is set stops it."""

    __slots__ = ("deadline", "deals", "measured")

    def __init__(self, deadline: float | None = None, deals: int | None = None) -> None:
        self.deadline = deadline
        self.deals = deals
        self.measured = 0.0
        """The slowest speed of this decision's solves so far (positions a second; 0: none)."""

    def spent(self, deals: int) -> bool:
        """Whether the search stops after ``deals`` complete deals."""
        if self.deals is not None and deals >= self.deals:
            return True
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def short_of(self, nodes: int) -> bool:
        """Whether the time left is too short for a solve as long as the last one (``nodes``
        positions): the next one would likely be cut, its time lost to the hand's later
        decisions."""
        if self.deadline is None:
            return False
        left = self.deadline - time.perf_counter()
        return left * self.rate() < SHORT_SHARE * nodes

    def nodes(self) -> int | None:
        """Positions the next double-dummy solve may walk: the time left at the measured
        speed (None: no deadline, no limit)."""
        if self.deadline is None:
            return None
        left = self.deadline - time.perf_counter()
        return max(MIN_NODES, int(left * self.rate() * NODE_SAFETY))

    def clock_deadline(self) -> float | None:
        """The deadline on ``time.monotonic``'s clock, the one the C search reads."""
        if self.deadline is None:
            return None
        return max(1e-6, time.monotonic() + self.deadline - time.perf_counter())

    def rate(self) -> float:
        """The speed to plan with: the slower of the process's average and this decision's own
        solves (a loaded machine slows down within seconds)."""
        return min(_speed.rate, self.measured) if self.measured else _speed.rate

    def timed(self, nodes: int, seconds: float) -> None:
        """A solve of this decision: its speed, when long enough to time, is the plan's."""
        if nodes >= 5_000 and seconds > 0:
            rate = nodes / seconds
            self.measured = rate if not self.measured else min(self.measured, rate)


class _Speed:
    """The double-dummy search's positions a second, a moving average over this process."""

    def __init__(self) -> None:
        self.rate = NODES_PER_S
        self._lock = threading.Lock()

    def update(self, nodes: int, seconds: float) -> None:
        if nodes < 5_000 or seconds <= 0:
            return  # too short to time
        with self._lock:
            self.rate = 0.5 * self.rate + 0.5 * nodes / seconds


_speed = _Speed()
_local = threading.local()


def dd_search(payoff: tuple[int, ...]) -> SearchLike:
    """This thread's double-dummy search for ``payoff``: its table kept between the decisions
    of a hand (every world of every decision shares the payoff), a few payoffs at a time."""
    cache: OrderedDict[tuple[int, ...], SearchLike] | None = getattr(_local, "searches", None)
    if cache is None:
        cache = _local.searches = OrderedDict()
    found = cache.get(payoff)
    if found is not None:
        cache.move_to_end(payoff)
        return found
    if len(cache) >= SEARCHES_KEPT:
        cache.popitem(last=False)
    made = cache[payoff] = new_search(payoff)
    return made


def solve_timed(fn, stats: Stats, limit: Limit, *args: object) -> object:
    """One double-dummy call, its positions and time counted (and fed to the speeds)."""
    search = fn.__self__
    nodes = search.nodes
    start = time.perf_counter()
    out = fn(*args)
    seconds = time.perf_counter() - start
    walked = search.nodes - nodes
    _speed.update(walked, seconds)
    limit.timed(walked, seconds)
    stats.nodes += walked
    stats.playouts += 1
    if out is None:
        stats.cut += 1
    return out


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


def payoff_of(view: View, bids: tuple[int, int]) -> tuple[int, ...]:
    """The double-dummy payoff of the hand for seat 0 (``hand_values`` rounded): seat 0
    maximises it and seat 1 minimises it, as the search wants."""
    seats = view.seats
    values = hand_values(
        view.rules,
        0,
        bids,
        (seats[0].double_nil, seats[1].double_nil),
        (seats[0].score, seats[1].score),
        (seats[0].bags, seats[1].bags),
    )
    return tuple(round(v) for v in values)


def equivalent_moves(legal: tuple[int, ...], possible: int, lead: int = -1) -> list[int]:
    """The legal cards, one per run of cards of a suit with no card between them that the
    opponent may hold, nor the card led: playing either of a run changes nothing (the higher
    one is kept)."""
    if lead >= 0:
        possible |= 1 << lead
    out: list[int] = []
    for c in sorted(legal):
        if out and out[-1] // 13 == c // 13:
            between = ((1 << c) - 1) ^ ((2 << out[-1]) - 1)
            if not possible & between:
                out[-1] = c
                continue
        out.append(c)
    return out


def keep_order(card: int) -> tuple[int, int]:
    """Among cards of equal value, the one to part with: the lowest rank, a side card before a
    spade (the high cards and the spades keep their power for later)."""
    return (-(card % 13), -(card >= 39))


def fallback_play(view: View, k: Knowledge, rng: Random) -> int:
    """A card without search: the fast play policy on one sampled deal."""
    seat = view.seat
    seats = view.seats
    me, opp = seats[seat], seats[seat ^ 1]
    mode = mode_of(me.bid or 0, me.tricks_won, opp.bid or 0, opp.tricks_won, view.tricks_left)
    trick = view.current_trick
    lead = trick.cards[0] if trick is not None else -1
    card = policy_choose(k.hand, sample_weighted(k, rng), lead, view.spades_broken, mode)
    return card if card in view.legal_cards else view.legal_cards[0]


def choose_play(
    view: View, k: Knowledge, rng: Random, limit: Limit, stats: Stats | None = None
) -> int:
    """The card to play by PIMC over double-dummy solves: the best average over sampled deals.

    Stops when ``limit`` is spent, when one candidate is clearly best (``RACE_Z``), or when no
    deal has told the candidates apart in ``SAME_DEALS`` deals. Forced moves (one legal card, or
    only cards of one run) are played without a search."""
    stats = stats if stats is not None else Stats()
    legal = view.legal_cards
    if len(legal) == 1:
        return legal[0]
    trick = view.current_trick
    lead = trick.cards[0] if trick is not None else -1
    moves = equivalent_moves(legal, k.possible, lead)
    if len(moves) == 1:
        return moves[0]
    seat = view.seat
    seats = view.seats
    search = dd_search(payoff_of(view, (seats[0].bid or 0, seats[1].bid or 0)))
    sign = 1 if seat == 0 else -1
    won0 = seats[0].tricks_won
    broken = view.spades_broken
    scores: list[list[float]] = [[] for _ in moves]
    active = list(range(len(moves)))
    start = time.perf_counter()
    deals = 0
    check = RACE_FIRST
    differ = False
    while True:
        opp = sample_weighted(k, rng)
        h0, h1 = (k.hand, opp) if seat == 0 else (opp, k.hand)
        before = search.nodes
        values = solve_timed(
            search.card_values,
            stats,
            limit,
            h0,
            h1,
            seat,
            lead,
            won0,
            broken,
            limit.nodes(),
            limit.clock_deadline(),
        )
        last = search.nodes - before
        stats.deals += 1
        if values is None:
            break  # the time ran out within the solve
        assert isinstance(values, dict)
        deals += 1
        row = [sign * values[moves[i]] for i in range(len(moves))]
        if min(row) != max(row):
            differ = True
        for i in range(len(moves)):
            scores[i].append(row[i])
        if limit.spent(deals) or limit.short_of(last) or deals >= MAX_DEALS:
            break
        if deals >= check:
            check = deals + max(RACE_EVERY, deals // 4)
            if not differ and deals >= SAME_DEALS:
                break
            active = race(scores, active, deals)
            if len(active) == 1:
                break
    stats.seconds += time.perf_counter() - start
    if deals == 0:
        return fallback_play(view, k, rng)
    best = max(active, key=lambda i: (sum(scores[i]), keep_order(moves[i])))
    return moves[best]


def race(scores: list[list[float]], active: list[int], n: int) -> list[int]:
    """The candidates still in the race after ``n`` common deals: the leader and every one not
    clearly worse than it (by ``RACE_Z`` standard errors of the paired difference)."""
    means = {i: sum(scores[i][:n]) / n for i in active}
    lead = max(active, key=lambda i: (means[i], -i))
    best = scores[lead]
    keep = [lead]
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
        if m * m * n > RACE_Z * RACE_Z * var:
            continue  # clearly worse than the leader
        keep.append(j)
    keep.sort()
    return keep


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
    """The bid of best expected value over sampled deals' double-dummy tricks, Nil included
    when plausible (each deal then also solved under the Nil's payoff)."""
    stats = stats if stats is not None else Stats()
    seat = view.seat
    seats = view.seats
    legal = view.legal_bids
    candidates = [b for b in legal if b > 0]
    if not candidates:
        return legal[0]
    opp_bid = seats[seat ^ 1].bid
    try_nil = 0 in legal and opp_bid != 0 and nil_plausible(k.hand)
    scores = (seats[0].score, seats[1].score)
    bags = (seats[0].bags, seats[1].bags)
    dn = (seats[0].double_nil, seats[1].double_nil)
    leader = view.first_drawer ^ 1
    tables: dict[tuple[int, int], list[float]] = {}

    def value(my_bid: int, their_bid: int, tricks: int) -> float:
        key = (my_bid, their_bid)
        table = tables.get(key)
        if table is None:
            pair = (my_bid, their_bid) if seat == 0 else (their_bid, my_bid)
            table = tables[key] = hand_values(view.rules, seat, pair, dn, scores, bags)
        return table[tricks]

    sure = sure_spades(k.hand, k.possible)
    tricks_search = dd_search(trick_payoff())
    totals = {b: 0.0 for b in candidates}
    shade = int(BID_SHADE + 0.999)
    frac = shade - BID_SHADE  # a fractional shade mixes the two counts around it
    nil_total = 0.0
    nil_deals = 0
    start = time.perf_counter()
    deals = 0
    while True:
        opp = sample_weighted(k, rng)
        h0, h1 = (k.hand, opp) if seat == 0 else (opp, k.hand)
        before = tricks_search.nodes
        t0 = solve_timed(
            tricks_search.value,
            stats,
            limit,
            h0,
            h1,
            leader,
            -1,
            0,
            False,
            limit.nodes(),
            limit.clock_deadline(),
        )
        last = tricks_search.nodes - before
        stats.deals += 1
        if t0 is None:
            break
        assert isinstance(t0, int)
        deals += 1
        mine = t0 if seat == 0 else 13 - t0
        their = opp_bid if opp_bid is not None else guess_opponent_bid(opp, None)
        sure_here = min(mine, sure)  # no shading of tricks that cannot be lost
        low = max(0, mine - shade, sure_here)
        high = max(min(13, mine - shade + 1), sure_here)
        for b in candidates:
            totals[b] += (1 - frac) * value(b, their, low) + frac * value(b, their, high)
        if try_nil:
            their_vs_nil = opp_bid if opp_bid is not None else guess_opponent_bid(opp, 0)
            pair = (0, their_vs_nil) if seat == 0 else (their_vs_nil, 0)
            nil_search = dd_search(payoff_of(view, pair))
            before = nil_search.nodes
            v = solve_timed(
                nil_search.value,
                stats,
                limit,
                h0,
                h1,
                leader,
                -1,
                0,
                False,
                limit.nodes(),
                limit.clock_deadline(),
            )
            last += nil_search.nodes - before
            if v is not None:
                assert isinstance(v, int)
                nil_total += v if seat == 0 else -v
                nil_deals += 1
        if limit.spent(deals) or limit.short_of(last) or deals >= MAX_DEALS:
            break
    stats.seconds += time.perf_counter() - start
    if deals == 0:  # no deal solved in time: the quick count
        return max(1, min(13, round(estimate_tricks(k.hand)))) if 1 in legal else candidates[0]
    best = max(candidates, key=lambda b: (totals[b], -b))
    if nil_deals and nil_total / nil_deals > totals[best] / deals:
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
