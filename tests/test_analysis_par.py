"""Par loss per card and card-play loss per hand (arena.analysis.par, card_play_loss).

The strongest check is the engine's own scoring: along a hand, the par at the first lead minus
seat 0's par losses plus seat 1's must be exactly the hand's score difference the engine
records (R-5), because each card's value is the next position's par.
"""

from __future__ import annotations

import math
import random

import pytest

from arena.analysis import (
    BLUNDER,
    MISTAKE,
    PlayAnalysis,
    PlayClass,
    Position,
    Solution,
    analyse_match,
    new_search,
    solve,
    summarise,
    trick_loss,
    trick_payoff,
)
from arena.rules import Decision, IllegalActionError, Match, RuleSet, mask_of, parse_card


def _played(seed: int, rules: RuleSet, rng: random.Random, hands: int) -> tuple[Match, list]:
    """A match of random actions, cut after ``hands`` hands (or its end)."""
    m = Match(seed, rules)
    actions = []
    while not m.is_over and m.hand_number <= hands:
        action = m.random_action(rng)
        actions.append(action)
        m.apply(action)
    return m, actions


@pytest.mark.parametrize("rules", [RuleSet(), RuleSet(nil_tricks_count_as_bags=True)])
def test_par_less_each_sides_losses_is_the_engines_hand_score(rules: RuleSet) -> None:
    rng = random.Random(1)
    m, actions = _played(101, rules, rng, hands=6)
    analysis = analyse_match(101, rules, actions)
    results = m.hand_results
    assert len(analysis.hands) == 6
    for hand in analysis.hands:
        r = results[hand.hand_number - 1]
        diff = (r.points[0] + r.bag_penalties[0]) - (r.points[1] + r.bag_penalties[1])
        assert hand.complete
        assert hand.par - hand.loss(0) + hand.loss(1) == diff
        assert len(hand.plays) == 26
        assert sum(hand.dd_tricks) == 13
        assert hand.bids == r.bids
        for a, b in zip(hand.plays, hand.plays[1:], strict=False):
            # a card's value is the next position's par, seen from the player of the card
            assert a.value == (b.par if b.seat == a.seat else -b.par)
        for p in hand.plays:
            assert p.loss >= 0
            assert (p.loss == 0) == (p.card in p.best) == (p.kind is PlayClass.BEST)


def test_best_play_loses_nothing_and_the_steps_are_the_records() -> None:
    rng = random.Random(2)
    m = Match(7)
    actions = []
    search = None
    hand = 0
    while m.hand_number <= 2 and not m.is_over:
        if m.decision is Decision.PLAY:
            p = Position.of(m)
            if m.hand_number != hand:
                hand, search = m.hand_number, new_search(p.payoff())
            action = solve(p, search).best[-1]
        else:
            action = m.random_action(rng)
        actions.append(action)
        m.apply(action)
    analysis = analyse_match(7, m.rules, actions)
    assert analysis.plays and all(p.loss == 0 for p in analysis.plays)
    assert all(actions[p.step] == p.card for p in analysis.plays)
    assert [h.loss(0) for h in analysis.hands] == [0] * len(analysis.hands)


def test_substitutes_are_marked_and_left_out_of_the_bots_loss() -> None:
    rng = random.Random(3)
    _, actions = _played(5, RuleSet(), rng, hands=1)
    plain = analyse_match(5, RuleSet(), actions)
    steps = {p.step for p in plain.plays if p.seat == 0}
    marked = analyse_match(5, RuleSet(), actions, substituted=steps)
    assert all(p.substituted == (p.seat == 0) for p in marked.plays)
    assert marked.hand_losses(0) == [0]
    assert marked.hand_losses(1) == plain.hand_losses(1)


def test_a_hand_cut_short_is_not_a_sample() -> None:
    rng = random.Random(4)
    _, actions = _played(9, RuleSet(), rng, hands=1)
    analysis = analyse_match(9, RuleSet(), actions[:-5])
    assert len(analysis.hands) == 1 and not analysis.hands[0].complete
    assert analysis.hand_losses(0) == []


def test_an_illegal_recorded_card_gets_the_engines_error() -> None:
    rng = random.Random(6)
    m = Match(11)
    actions = []
    while m.decision is not Decision.PLAY:
        action = m.random_action(rng)
        actions.append(action)
        m.apply(action)
    wrong = next(c for c in range(52) if not m.is_legal(c))
    with pytest.raises(IllegalActionError):
        analyse_match(11, RuleSet(), [*actions, wrong])


def test_the_classes_thresholds() -> None:
    assert PlayClass.of(0) is PlayClass.BEST
    assert PlayClass.of(1) is PlayClass.INACCURACY
    assert PlayClass.of(MISTAKE - 1) is PlayClass.INACCURACY
    assert PlayClass.of(MISTAKE) is PlayClass.MISTAKE
    assert PlayClass.of(BLUNDER - 1) is PlayClass.MISTAKE
    assert PlayClass.of(BLUNDER) is PlayClass.BLUNDER
    with pytest.raises(ValueError):
        PlayClass.of(-1)


def test_card_play_loss_interval() -> None:
    s = summarise([0, 10, 20, 30])
    assert s.mean == 15 and s.hands == 4
    half = 1.959963984540054 * math.sqrt((225 + 25 + 25 + 225) / 3 / 4)
    assert s.low == pytest.approx(15 - half) and s.high == pytest.approx(15 + half)
    one = summarise([7])
    assert one.mean == 7 and one.low is None and one.high is None
    with pytest.raises(ValueError):
        summarise([])


def _two_tricks_left(bids: tuple[int, int], won: tuple[int, int]) -> Position:
    """Seat 0 has led the 5♥ and holds the 7♥; seat 1 follows from the 6♥ and the 4♥.

    The 6♥ wins this trick and loses the last to the 7♥; the 4♥ loses both."""
    return Position(
        hands=(mask_of([parse_card("7h")]), mask_of([parse_card("6h"), parse_card("4h")])),
        to_act=1,
        lead=parse_card("5h"),
        tricks_won=won,
        bids=bids,
        double_nil=(False, False),
        bags=(0, 0),
        spades_broken=True,
        rules=RuleSet(),
    )


def test_a_card_that_gives_away_a_double_dummy_trick_loses_one_trick() -> None:
    p = _two_tricks_left(bids=(5, 5), won=(6, 5))
    search = new_search(trick_payoff())
    assert trick_loss(p, parse_card("6h"), search) == 0
    assert trick_loss(p, parse_card("4h"), search) == 1
    assert trick_loss(p, parse_card("4h")) == 1  # a search of its own: the same
    with pytest.raises(ValueError, match="not a legal play"):
        trick_loss(p, parse_card("Ah"))


def test_a_nil_breaking_card_loses_the_nil_swing_in_points() -> None:
    # Seat 1 bid Nil and has no trick: the 4♥ keeps it (seat 0 takes 13 of its 11: 110 and two
    # bags, R-5.1; the Nil 100, R-5.3), the 6♥ breaks it (seat 0 12 tricks: 111; the Nil -100).
    p = _two_tricks_left(bids=(11, 0), won=(11, 0))
    s = solve(p)
    assert s.card_values == {parse_card("4h"): 100 - 112, parse_card("6h"): -100 - 111}
    assert s.best == (parse_card("4h"),)
    assert PlayClass.of(s.value - s.card_values[parse_card("6h")]) is PlayClass.BLUNDER
    # in tricks the Nil-keeping card is the one that gives one away: no sample of trick loss
    assert trick_loss(p, parse_card("4h")) == 1
    # its share of the stake: all of it (199 of the 199 points between the best and worst card)
    broken, kept = (_play(p, s, c) for c in (parse_card("6h"), parse_card("4h")))
    assert (broken.loss, broken.share, kept.share) == (199, 1.0, 0.0)


def _play(p: Position, s: Solution, card: int) -> PlayAnalysis:
    return PlayAnalysis(
        step=0,
        hand_number=1,
        trick=12,
        seat=p.to_act,
        card=card,
        par=s.value,
        value=s.card_values[card],
        best=s.best,
        trick_loss=trick_loss(p, card),
        low=min(s.card_values.values()),
    )


def test_the_share_of_the_stake_weighs_a_two_point_decision_as_a_nil() -> None:
    # seat 1 bid 5 and has 5, seat 0 bid 7 and has 6: the 6♥ takes a sixth trick and leaves
    # seat 0 its 7 (51 against 70, R-5.1); the 4♥ gives seat 0 an overtrick (50 against 71)
    p = _two_tricks_left(bids=(7, 5), won=(6, 5))
    s = solve(p)
    six, four = (_play(p, s, c) for c in (parse_card("6h"), parse_card("4h")))
    assert s.best == (parse_card("6h"),) and six.share == 0.0
    assert four.loss == (51 - 70) - (50 - 71) == 2 and four.share == 1.0
    # nothing at stake (a single legal card): no share
    forced = Position(
        hands=(mask_of([parse_card("7h")]), mask_of([parse_card("6h"), parse_card("4d")])),
        to_act=1,
        lead=parse_card("5h"),
        tricks_won=(6, 5),
        bids=(7, 5),
        double_nil=(False, False),
        bags=(0, 0),
        spades_broken=True,
        rules=RuleSet(),
    )
    only = _play(forced, solve(forced), parse_card("6h"))
    assert (only.loss, only.par - only.low, only.share) == (0, 0, 0.0)


def test_trick_loss_per_hand_adds_up_and_nil_hands_are_no_sample() -> None:
    rng = random.Random(8)
    m, actions = _played(21, RuleSet(), rng, hands=8)
    analysis = analyse_match(21, RuleSet(), actions)
    results = m.hand_results
    for h in analysis.hands:
        # each card's trick value is the next position's: along the hand, the double-dummy
        # tricks at the first lead less seat 0's trick losses plus seat 1's are the tricks
        # seat 0 took, as the engine counted them
        tricks = h.dd_tricks[0] - h.trick_loss(0) + h.trick_loss(1)
        assert tricks == results[h.hand_number - 1].tricks_won[0]
        assert h.nil == (0 in h.bids or any(h.double_nil))
        assert all(0 <= p.trick_loss <= 13 and 0 <= p.share <= 1 for p in h.plays)
        assert h.share(0) == pytest.approx(sum(p.share for p in h.plays if p.seat == 0))
    for seat in (0, 1):
        assert analysis.hand_trick_losses(seat) == [
            h.trick_loss(seat) for h in analysis.hands if h.complete and not h.nil
        ]
    assert any(h.nil for h in analysis.hands) and not all(h.nil for h in analysis.hands)
    assert sum(analysis.hand_trick_losses(0)) > 0  # a random player gives tricks away
    assert analysis.hand_shares(1) == [h.share(1) for h in analysis.hands if h.complete]
    assert 0 < sum(analysis.hand_shares(1)) <= sum(analysis.hand_losses(1))  # stakes are 1+
