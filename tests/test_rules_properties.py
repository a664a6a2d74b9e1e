"""Invariants over random legal playouts of whole matches with random rule sets (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rules import (
    Decision,
    InformationSet,
    Match,
    Observation,
    RuleSet,
    TrickView,
    bag_penalty,
    hand_points,
)
from arena.rules.cards import cards_of

rule_sets = st.builds(
    RuleSet,
    target_score=st.integers(50, 300),
    max_hands=st.integers(1, 6),
    draw_decision_public=st.booleans(),
    double_nil_allowed=st.booleans(),
    nil_tricks_count_as_bags=st.booleans(),
)


def choose(m: Match, rng: random.Random, modest: bool):
    """A random legal action; ``modest`` players bid 1-3 so that targets are sometimes reached."""
    if modest and m.decision is Decision.BID:
        return rng.randint(1, 3)
    if modest and m.decision is Decision.DOUBLE_NIL:
        return rng.random() < 0.05
    return m.random_action(rng)


def from_information_set(m: Match, seat: int) -> Observation:
    """``m.information_set(seat)``'s plain values read back as an observation."""
    number, fd, hand, looking_at, discards, stock_size, seats, plays, winners, broken, aside = (
        m.information_set(seat)
    )
    tricks, leader = [], fd ^ 1
    for t in range(0, len(plays), 2):
        winner = winners[t // 2] if t // 2 < len(winners) else None
        tricks.append(TrickView(leader, tuple(plays[t : t + 2]), winner))
        leader = winner
    return Observation(
        seat=seat,
        rules=m.rules,
        hand_number=number,
        first_drawer=fd,
        to_act=m.to_act,
        decision=m.decision,
        hand=cards_of(hand),
        looking_at=looking_at,
        own_discards=tuple(discards),
        stock_size=stock_size,
        seats=seats,
        tricks=tuple(tricks),
        spades_broken=broken,
        own_put_aside=cards_of(aside),
    )


def observed_cards(obs: Observation) -> set[int]:
    cards = set(obs.hand) | set(obs.own_discards) | set(obs.own_put_aside)
    if obs.looking_at is not None:
        cards.add(obs.looking_at)
    for trick in obs.tricks:
        cards |= set(trick.cards)
    return cards


def check_cards(m: Match) -> None:
    """All 52 cards, each in exactly one place."""
    played = [c for t in m.observation(0).tricks for c in t.cards]
    places = [m.hand(0), m.hand(1), m.stock, m.discard_pile, *m.set_aside, played]
    every = [c for place in places for c in place]
    assert sorted(every) == list(range(52)), places


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(-(2**40), 2**40), rules=rule_sets, play_seed=st.integers(0, 2**32))
def test_random_matches_keep_every_invariant(seed: int, rules: RuleSet, play_seed: int):
    rng = random.Random(play_seed)
    modest = play_seed % 2 == 0
    m = Match(seed, rules)
    actions = []
    known: list[set[int]] = [set(), set()]  # cards each seat has legitimately seen this hand
    hand_number = 1
    while not m.is_over:
        if m.hand_number != hand_number:
            hand_number = m.hand_number
            known = [set(), set()]
        seat, decision = m.to_act, m.decision
        assert seat is not None and decision is not None
        check_cards(m)
        legal = m.legal_actions()
        assert legal
        assert cards_of(m.legal_mask) == (tuple(legal) if decision is Decision.PLAY else ())
        assert m.is_legal(m.random_action(rng))
        if decision is Decision.DRAW:  # she looks at the top card, then sees the next one
            known[seat].add(m.stock[0])
            second = m.stock[1]
        for s in (0, 1):
            obs = m.observation(s)
            assert from_information_set(m, s) == obs  # the encoders' view: the same facts
            rebuilt = m.copy()
            rebuilt._seats = None  # the kept seat views are those the state gives now
            assert rebuilt.observation(s).seats == obs.seats
            assert obs.hand == m.hand(s)
            assert (obs.to_act, obs.decision) == (seat, decision)
            assert obs.stock_size == len(m.stock) - (decision is Decision.DRAW)
            assert observed_cards(obs) - set(obs.hand) <= known[s], "a hidden card leaked"
            assert (obs.looking_at is not None) == (s == seat and decision is Decision.DRAW)
            assert obs.own_put_aside == m.set_aside[s]  # her own, never the other's
            for view in obs.seats:
                assert (view.draw_choices is not None) == rules.draw_decision_public
                assert view.cards_exchanged is None or 0 <= view.cards_exchanged <= 3
        action = choose(m, rng, modest)
        assert m.is_legal(action)
        before = set(m.hand(seat))
        m.apply(action)
        actions.append(action)
        if decision is Decision.DRAW:
            known[seat].add(second)
        if decision is Decision.EXCHANGE and m.hand_number == hand_number:
            known[seat] |= set(m.hand(seat)) - before
        if decision is Decision.PLAY:
            known[0].add(action)  # type: ignore[arg-type]
            known[1].add(action)  # type: ignore[arg-type]

    results = m.hand_results
    outcome = m.outcome
    assert outcome is not None and outcome.hands_played == len(results) == m.hand_number
    scores, bags = [0, 0], [0, 0]
    for r in results:
        assert len(r.tricks) == 13 and sum(r.tricks_won) == 13
        played = [c for t in r.tricks for c in t.cards]
        assert len(set(played)) == 26
        for s in (0, 1):
            pts, new_bags = hand_points(
                r.bids[s], r.double_nil[s], r.tricks_won[s], rules.nil_tricks_count_as_bags
            )
            penalty, bags[s] = bag_penalty(bags[s], new_bags)
            assert (r.points[s], r.bag_penalties[s], r.bags[s]) == (pts, penalty, bags[s])
            assert 0 <= r.bags[s] <= 9
            scores[s] += r.points[s] + r.bag_penalties[s]
            assert r.scores[s] == scores[s]
            if r.double_nil[s]:
                assert r.bids[s] == 0
    assert tuple(scores) == m.scores == outcome.scores
    s0, s1 = scores
    if max(scores) >= rules.target_score and s0 != s1:
        assert outcome.winner == (0 if s0 > s1 else 1)
    else:
        assert len(results) == rules.max_hands
        assert outcome.winner == (None if s0 == s1 else (0 if s0 > s1 else 1))
    for r in results[:-1]:  # no earlier hand ended the match
        a, b = r.scores
        assert not (max(a, b) >= rules.target_score and a != b)

    replay = Match(seed, rules)
    for action in actions:
        replay.apply(action)
    assert replay.hand_results == results and replay.outcome == outcome
    assert replay.observation(0) == m.observation(0)
    assert replay.observation(1) == m.observation(1)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), cut=st.integers(0, 600), play_seed=st.integers(0, 2**32))
def test_a_copy_replays_like_the_original(seed: int, cut: int, play_seed: int):
    rules = RuleSet(max_hands=3)
    rng = random.Random(play_seed)
    m = Match(seed, rules)
    for _ in range(cut):
        if m.is_over:
            break
        m.apply(m.random_action(rng))
    twin = m.copy()
    tail = []
    while not m.is_over:
        action = m.random_action(rng)
        tail.append(action)
        m.apply(action)
    for action in tail:
        twin.apply(action)
    assert twin.hand_results == m.hand_results and twin.outcome == m.outcome


def test_the_information_set_names_what_the_observation_holds() -> None:
    """``information_set`` is an ``InformationSet``: each value under the name it has in the
    observation (cards as masks there), through a whole random match."""
    rng = random.Random(5)
    m = Match(5)
    while not m.is_over:
        for s in (0, 1):
            info = m.information_set(s)
            obs = m.observation(s)
            assert type(info) is InformationSet and len(info) == len(InformationSet._fields)
            assert info.hand_number == obs.hand_number and info.first_drawer == obs.first_drawer
            assert cards_of(info.hand) == obs.hand and cards_of(info.own_put_aside) == (
                obs.own_put_aside
            )
            assert (info.looking_at, tuple(info.own_discards)) == (
                obs.looking_at,
                obs.own_discards,
            )
            assert (info.stock_size, info.seats, info.spades_broken) == (
                obs.stock_size,
                obs.seats,
                obs.spades_broken,
            )
            assert len(info.plays) == sum(len(t.cards) for t in obs.tricks)
            assert len(info.winners) == sum(t.winner is not None for t in obs.tricks)
        m.apply(m.random_action(rng))
