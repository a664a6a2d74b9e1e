"""The engine's public API: construction, legality queries, random actions, copies, errors."""

from __future__ import annotations

import random
from collections import Counter
from math import comb

import pytest

import arena.rules as rules_pkg
from arena.rules import (
    Decision,
    HandResult,
    IllegalActionError,
    InvalidRuleSetError,
    Match,
    MatchOverError,
    Observation,
    RulesError,
    RuleSet,
    TrickView,
    WrongDecisionError,
    exchange_order,
    stock_order,
)


def advance_to(m: Match, decision: Decision, rng: random.Random) -> Match:
    while m.decision is not decision:
        m.apply(m.random_action(rng))
    return m


def state_key(m: Match) -> tuple:
    return (
        m.observation(0),
        m.observation(1),
        m.hand(0),
        m.hand(1),
        m.stock,
        m.discard_pile,
        m.set_aside,
        m.scores,
        m.bags,
        m.hand_number,
        m.to_act,
        m.decision,
        tuple(m.hand_results),
        m.outcome,
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"target_score": 0},
        {"target_score": -500},
        {"max_hands": 0},
        {"max_hands": -1},
        {"target_score": "500"},
        {"target_score": 500.0},
        {"target_score": True},
        {"max_hands": None},
        {"draw_decision_public": 1},
        {"double_nil_allowed": "yes"},
        {"nil_tricks_count_as_bags": None},
    ],
)
def test_invalid_rule_sets_are_refused(fields: dict):
    with pytest.raises(InvalidRuleSetError):
        RuleSet(**fields)


def test_rule_set_round_trip_and_unknown_fields():
    rules = RuleSet(target_score=300, draw_decision_public=True)
    assert RuleSet.from_dict(rules.to_dict()) == rules
    assert rules.describe() == "target_score=300,draw_decision_public=True"
    with pytest.raises(InvalidRuleSetError, match="unknown"):
        RuleSet.from_dict({"target": 300})


def test_match_arguments_are_checked():
    with pytest.raises(TypeError, match="seed"):
        Match("7")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seed"):
        Match(True)
    with pytest.raises(TypeError, match="RuleSet"):
        Match(7, {"target_score": 100})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="52 cards"):
        Match.from_stocks([list(range(51))])
    with pytest.raises(ValueError, match="52 cards"):
        Match.from_stocks([[0] * 52])
    with pytest.raises(ValueError, match="seat"):
        Match(7).observation(2)


def test_exports():
    for name in (
        "Match",
        "RuleSet",
        "Decision",
        "Observation",
        "SeatView",
        "TrickView",
        "Outcome",
        "Termination",
        "HandResult",
        "RulesError",
        "IllegalActionError",
        "WrongDecisionError",
        "MatchOverError",
        "InvalidRuleSetError",
        "ENGINE_VERSION",
        "card_name",
        "parse_card",
        "cards_of",
        "mask_of",
    ):
        assert hasattr(rules_pkg, name), name
    assert sorted(rules_pkg.__all__) == sorted(set(rules_pkg.__all__))


def test_errors_are_value_errors_that_name_the_rule():
    m = Match(1)
    with pytest.raises(RulesError) as err:
        m.apply(5)
    assert isinstance(err.value, ValueError) and isinstance(err.value, WrongDecisionError)
    assert err.value.rule == "R-3.3" and str(err.value).startswith("R-3.3: ")
    assert err.value.detail in str(err.value)


CANDIDATES: list = [
    True,
    False,
    -1,
    0,
    1,
    13,
    14,
    51,
    52,
    None,
    "As",
    1.0,
    (),
    [],
    (0,),
    (0, 0),
    (0, 1, 2, 3),
    {1},
    *range(52),
]


@pytest.mark.parametrize("seed", range(6))
def test_legal_actions_is_legal_and_apply_agree(seed: int):
    rng = random.Random(seed)
    m = Match(seed, RuleSet(max_hands=2))
    steps = 0
    while not m.is_over:
        legal = m.legal_actions()
        assert legal, "the player to act always has a legal action"
        hand = m.hand(m.to_act)  # type: ignore[arg-type]
        extra = [hand[:1], hand[:3], hand[:4], tuple(reversed(hand[:2]))]
        for action in CANDIDATES + extra:
            expected = any(type(a) is type(action) and a == action for a in legal) or (
                m.decision is Decision.EXCHANGE and _is_exchange_of(action, legal)
            )
            assert m.is_legal(action) == expected, (m, action)
            if not expected:
                before = state_key(m)
                with pytest.raises(RulesError):
                    m.apply(action)
                assert state_key(m) == before  # a refused action changes nothing
        if steps % 7 == 0:
            for action in legal[:20]:
                m.copy().apply(action)
        m.apply(m.random_action(rng))
        steps += 1
    assert m.legal_actions() == []
    with pytest.raises(MatchOverError):
        m.random_action(rng)
    with pytest.raises(MatchOverError, match="R-6: the match is over"):
        m.apply(0)


def _is_exchange_of(action: object, legal: list) -> bool:
    return (
        isinstance(action, (tuple, list))
        and tuple(sorted(action)) in legal
        and len(set(action)) == len(action)
    )


def test_legal_actions_by_decision():
    rng = random.Random(3)
    m = Match(40)
    assert m.legal_actions() == [False, True]
    m.apply(True)
    assert m.legal_actions() == [False, True]
    advance_to(m, Decision.EXCHANGE, rng)
    ex = m.legal_actions()
    assert len(ex) == 378 and ex[0] == () and all(tuple(sorted(a)) == a for a in ex)  # type: ignore[arg-type]
    assert len(set(ex)) == 378
    advance_to(m, Decision.PLAY, rng)
    assert all(type(a) is int for a in m.legal_actions())


def test_random_action_is_uniform():
    rng = random.Random(99)
    m = advance_to(Match(5), Decision.PLAY, rng)
    legal = m.legal_actions()
    n = 20000
    counts = Counter(m.random_action(rng) for _ in range(n))
    assert set(counts) == set(legal)
    expected = n / len(legal)
    assert all(abs(c - expected) < 5 * expected**0.5 for c in counts.values())
    bids = advance_to(Match(6, RuleSet(double_nil_allowed=False)), Decision.BID, rng)
    counts = Counter(bids.random_action(rng) for _ in range(14000))
    assert set(counts) == set(range(14))
    assert all(abs(c - 1000) < 160 for c in counts.values())
    draws = Counter(Match(7).random_action(rng) for _ in range(4000))
    assert set(draws) == {True, False} and abs(draws[True] - 2000) < 200


def test_random_exchange_is_uniform_over_all_exchanges():
    rng = random.Random(4)
    m = Match(40)
    m.apply(True)
    advance_to(m, Decision.EXCHANGE, rng)
    n = 37800
    sizes = Counter(len(m.random_action(rng)) for _ in range(n))  # type: ignore[arg-type]
    for k in range(4):
        expected = n * comb(13, k) / 378
        assert abs(sizes[k] - expected) < 5 * expected**0.5 + 5
    assert all(m.is_legal(m.random_action(rng)) for _ in range(200))


def test_copy_is_independent():
    rng = random.Random(1)
    m = Match(77)
    for _ in range(150):
        m.apply(m.random_action(rng))
    snapshot = m.copy()
    key = state_key(m)
    assert state_key(snapshot) == key
    for _ in range(300):
        snapshot.apply(snapshot.random_action(rng))
    assert state_key(m) == key
    assert state_key(snapshot) != key


def test_same_seed_same_actions_same_match():
    rng = random.Random(5)
    a, b = Match(123), Match(123)
    while a.hand_number < 3:
        action = a.random_action(rng)
        a.apply(action)
        b.apply(action)
        assert state_key(a) == state_key(b)


def test_the_stock_depends_on_the_seed_and_hand_only():
    assert stock_order(1, 1) == stock_order(1, 1)
    assert stock_order(1, 1) != stock_order(2, 1) != stock_order(1, 2)
    assert sorted(stock_order(-(10**30), 7)) == list(range(52))
    rng = random.Random(2)
    for seed in (0, 9):
        m = Match(seed)
        while m.hand_number < 4:
            if m.decision in (Decision.DOUBLE_NIL, Decision.DRAW) and m.stock:
                assert len(m.stock) % 2 == 0
            assert m.observation(0).hand_number == m.hand_number
            if m.decision is Decision.DOUBLE_NIL and m.to_act == m.first_drawer:
                assert m.stock == tuple(stock_order(seed, m.hand_number))
            m.apply(m.random_action(rng))


def test_observation_fields():
    m = Match(3, RuleSet(draw_decision_public=True))
    m.apply(False)
    m.apply(True)
    obs = m.observation(0)
    assert isinstance(obs, Observation)
    assert (obs.seat, obs.hand_number, obs.first_drawer) == (0, 1, 0)
    assert (obs.to_act, obs.decision) == (1, Decision.DOUBLE_NIL)
    assert len(obs.hand) == 1 and len(obs.own_discards) == 1
    assert obs.looking_at is None and obs.stock_size == 50
    assert obs.seats[0].draw_choices == (True,) and obs.seats[1].draw_choices == ()
    assert obs.rules == m.rules
    other = m.observation(1)
    assert other.hand == () and other.own_discards == () and other.looking_at is None


def test_hand_results_hold_the_tricks():
    rng = random.Random(8)
    m = Match(8, RuleSet(max_hands=3))
    while not m.is_over:
        m.apply(m.random_action(rng))
    results = m.hand_results
    assert [r.hand_number for r in results] == [1, 2, 3]
    assert all(isinstance(r, HandResult) for r in results)
    for r in results:
        assert len(r.tricks) == 13 and all(isinstance(t, TrickView) for t in r.tricks)
        assert r.tricks[0].leader == 1 - r.first_drawer
        assert sum(1 for t in r.tricks if t.winner == 0) == r.tricks_won[0]
    results.clear()  # a copy: the match keeps its own
    assert len(m.hand_results) == 3
    assert m.outcome is not None and m.outcome.hands_played == 3
    assert "over" in repr(m)


def test_illegal_exchange_and_draw_leave_the_match_unchanged():
    rng = random.Random(2)
    m = Match(40)
    m.apply(True)
    advance_to(m, Decision.EXCHANGE, rng)
    key = state_key(m)
    with pytest.raises(IllegalActionError):
        m.apply((m.hand(0)[0], 60))
    assert state_key(m) == key


def test_stocks_and_exchange_draws_are_uniform():
    n = 5200
    where = Counter(stock_order(seed, 1).index(0) for seed in range(n))  # position of the 2c
    assert len(where) == 52
    assert all(abs(c - 100) < 45 for c in where.values())
    pile = list(range(0, 52, 2))  # any fixed pile of 26 cards
    first = Counter(next(c for c in exchange_order(seed, 3) if c in pile) for seed in range(n))
    assert set(first) == set(pile)
    assert all(abs(c - 200) < 65 for c in first.values())
    assert exchange_order(1, 1) != stock_order(1, 1)
