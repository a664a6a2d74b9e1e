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
    PlayClass,
    Position,
    analyse_match,
    new_search,
    solve,
    summarise,
)
from arena.rules import Decision, IllegalActionError, Match, RuleSet


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
