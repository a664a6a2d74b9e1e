"""The play-out API (arena.rules.playout) agrees with the Match on every trick of random hands."""

from __future__ import annotations

import random

import pytest

from arena.rules import (
    Decision,
    IllegalActionError,
    Match,
    RuleSet,
    TrickPlay,
    legal_plays,
    mask_of,
    parse_card,
    settle,
)


def _play_phase(seed: int, rules: RuleSet) -> tuple[Match, random.Random]:
    m = Match(seed, rules)
    rng = random.Random(seed)
    while m.decision is not Decision.PLAY:
        m.apply(m.random_action(rng))
    return m, rng


@pytest.mark.parametrize("rules", [RuleSet(), RuleSet(nil_tricks_count_as_bags=True)])
def test_trick_play_follows_the_match_through_random_hands(rules: RuleSet) -> None:
    for seed in range(60):
        m, rng = _play_phase(seed, rules)
        hand = m.hand_number
        scores, bags = m.scores, m.bags
        obs0 = m.observation(0)
        bids = tuple(s.bid for s in obs0.seats)
        dn = tuple(s.double_nil for s in obs0.seats)
        checked = 0
        while m.hand_number == hand and not m.is_over:
            seat = m.to_act
            assert seat is not None
            obs = m.observation(seat)
            tp = TrickPlay.from_observation(obs, mask_of(m.hand(seat ^ 1)))
            assert tp.to_act == seat
            assert tp.legal() == mask_of(m.legal_actions())
            copy = tp.copy()
            card = m.random_action(rng)
            winner = copy.play(card)
            assert tp.legal() == mask_of(m.legal_actions())  # the copy is independent
            m.apply(card)
            if m.hand_number == hand and not m.is_over:
                after = m.observation(seat)
                assert list(copy.won) == [s.tricks_won for s in after.seats]
                assert copy.broken == after.spades_broken
                if winner is not None:
                    assert after.tricks[-1].winner == winner
            checked += 1
        assert checked == 26
        result = m.hand_results[hand - 1]
        assert settle(rules, bids, dn, result.tricks_won, scores, bags) == (
            result.scores,
            result.bags,
        )


def test_a_whole_hand_played_out_ends_with_thirteen_tricks() -> None:
    m, rng = _play_phase(7, RuleSet())
    tp = TrickPlay.from_observation(m.observation(m.to_act), mask_of(m.hand(m.to_act ^ 1)))
    while not tp.is_over:
        legal = tp.legal()
        cards = [c for c in range(52) if legal >> c & 1]
        tp.play(rng.choice(cards))
    assert sum(tp.won) == 13 and tp.hands == [0, 0] and tp.tricks_left == 0


def test_illegal_plays_name_the_rule() -> None:
    c = parse_card
    hands = (mask_of([c("2h"), c("As")]), mask_of([c("3h"), c("Kd")]))
    tp = TrickPlay(hands, 0, won=(5, 6))
    with pytest.raises(IllegalActionError, match=r"R-4\.5"):
        tp.play(c("As"))  # spades not broken and the hand holds a heart
    tp.play(c("2h"))
    with pytest.raises(IllegalActionError, match=r"R-4\.3"):
        tp.play(c("Kd"))  # must follow hearts
    assert tp.play(c("3h")) == 1
    assert legal_plays(mask_of([c("As"), c("2h")]), -1, True) == mask_of([c("As"), c("2h")])


def test_inconsistent_positions_are_refused() -> None:
    c = parse_card
    with pytest.raises(ValueError, match="disjoint"):
        TrickPlay((mask_of([c("2h")]), mask_of([c("2h")])), 0, won=(6, 6))
    with pytest.raises(ValueError, match="cards for this trick"):
        TrickPlay((mask_of([c("2h"), c("3h")]), mask_of([c("4h")])), 0, won=(6, 5))
    with pytest.raises(ValueError, match="13 tricks"):
        TrickPlay((mask_of([c("2h")]), mask_of([c("4h")])), 0, won=(0, 0))
    with pytest.raises(ValueError, match="in neither hand"):
        TrickPlay((mask_of([c("2h")]), mask_of([c("4h")])), 0, lead=c("4h"), won=(6, 6))
