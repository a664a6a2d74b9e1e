"""The double-dummy solver (arena.analysis) against references that cannot share its bugs.

- a plain minimax, written here without pruning, bounds or card merging, over random positions
  of real hands (drawn, bid and partly played by the engine) with up to 6 tricks left;
- the engine's own scoring (R-5): playing the solver's best cards out through ``Match`` must
  score exactly the par the solver gave;
- properties: the best card's value is the position's value; a warm table (other positions of
  the hand solved first) gives what a cold one gives; renaming the cards out of play
  (a transposition of ranks that keeps every comparison) changes nothing; C and Python agree.
"""

from __future__ import annotations

import functools
import random
import time

import pytest

from arena.analysis import (
    C_SEARCH,
    Position,
    max_tricks,
    new_search,
    payoff_table,
    solve,
    trick_payoff,
)
from arena.analysis.search import Search, beats, groups
from arena.rules import Decision, Match, RuleSet, make_card

SPADES_FIRST = 39
SUIT = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))


def minimax(
    payoff: tuple[int, ...], h0: int, h1: int, mover: int, lead: int, won0: int, broken: bool
) -> int:
    """Every legal card of every line, scored by the payoff (R-4.3 to R-4.6 written anew).

    No pruning, no card merging and no bounds: only a cache of this call's own positions,
    keyed by every argument of the position (a pure function's cache changes no value), so
    that a line reaching a position another line reached is not searched twice.
    """

    @functools.cache
    def value(h0: int, h1: int, mover: int, lead: int, won0: int, broken: bool) -> int:
        if not h0 | h1 and lead < 0:
            return payoff[won0]
        hand = h0 if mover == 0 else h1
        if lead >= 0:
            legal = hand & SUIT[lead // 13] or hand
        elif broken:
            legal = hand
        else:
            legal = hand & ~SUIT[3] or hand
        values = []
        while legal:
            card = (legal & -legal).bit_length() - 1
            legal &= legal - 1
            n0, n1 = (h0 & ~(1 << card), h1) if mover == 0 else (h0, h1 & ~(1 << card))
            nb = broken or card >= SPADES_FIRST
            if lead < 0:
                values.append(value(n0, n1, mover ^ 1, card, won0, nb))
            else:
                same = card // 13 == lead // 13
                wins = card > lead if same else card >= SPADES_FIRST
                winner = mover if wins else mover ^ 1
                values.append(value(n0, n1, winner, -1, won0 + (winner == 0), nb))
        return max(values) if mover == 0 else min(values)

    return value(h0, h1, mover, lead, won0, broken)


def random_play_position(rng: random.Random, tricks_left: int, rules: RuleSet) -> Match:
    """A real match at a play decision with ``tricks_left`` tricks (or a half trick) to go."""
    m = Match(rng.getrandbits(32), rules)
    plays = 2 * (13 - tricks_left) + rng.randint(0, 1)
    while m.decision is not Decision.PLAY:
        m.apply(m.random_action(rng))
    for _ in range(plays):
        m.apply(m.random_action(rng))
    assert m.decision is Decision.PLAY
    return m


def _args(p: Position) -> tuple[int, int, int, int, int, bool]:
    return p.hands[0], p.hands[1], p.to_act, p.lead, p.tricks_won[0], p.spades_broken


RULES = (RuleSet(), RuleSet(nil_tricks_count_as_bags=True))


def _check_against_minimax(count: int, lefts: tuple[int, ...], seed: int) -> None:
    rng = random.Random(seed)
    for i in range(count):
        m = random_play_position(rng, rng.choice(lefts), RULES[i % 2])
        p = Position.of(m)
        payoff = p.payoff()
        expected = minimax(payoff, *_args(p))
        sign = 1 if p.to_act == 0 else -1
        for search in (Search(payoff), new_search(payoff)):
            assert search.value(*_args(p)) == expected, (i, p)
        solution = solve(p)
        assert solution.value == sign * expected, (i, p)


def test_par_equals_a_plain_minimax_on_2000_positions_up_to_4_tricks() -> None:
    """A second or so: the plain minimax's tree grows some tenfold a trick."""
    _check_against_minimax(2000, (1, 2, 3, 4), seed=29)


def test_par_equals_a_plain_minimax_on_positions_of_5_and_6_tricks() -> None:
    _check_against_minimax(24, (5, 6), seed=31)


@pytest.mark.slow
def test_par_equals_a_plain_minimax_on_2000_positions_up_to_6_tricks() -> None:
    """The issue's figure, every count of tricks alike (some ten seconds)."""
    _check_against_minimax(2000, (1, 2, 3, 4, 5, 6), seed=2929)


def test_every_cards_value_equals_a_plain_minimax_of_its_position() -> None:
    rng = random.Random(5)
    for _ in range(300):
        p = Position.of(random_play_position(rng, rng.randint(1, 4), RuleSet()))
        payoff = p.payoff()
        h0, h1, mover, lead, won0, broken = _args(p)
        values = Search(payoff).card_values(*_args(p))
        assert values == new_search(payoff).card_values(*_args(p))
        for card, value in values.items():
            bit = 1 << card
            n0, n1 = (h0 ^ bit, h1) if mover == 0 else (h0, h1 ^ bit)
            nb = broken or card >= SPADES_FIRST
            if lead < 0:
                ref = minimax(payoff, n0, n1, mover ^ 1, card, won0, nb)
            else:
                winner = mover if beats(lead, card) else mover ^ 1
                ref = minimax(payoff, n0, n1, winner, -1, won0 + (winner == 0), nb)
            assert value == ref


def _play_out(m: Match) -> tuple[int, int]:
    """Both seats play a best card to the end of the hand; the hand's score for each seat."""
    hand = m.hand_number
    search = new_search(Position.of(m).payoff())
    while not m.is_over and m.hand_number == hand:
        solution = solve(Position.of(m), search)
        m.apply(solution.best[0])
    result = m.hand_results[hand - 1]
    return (result.points[0] + result.bag_penalties[0], result.points[1] + result.bag_penalties[1])


def test_the_engine_scores_best_play_exactly_as_the_par() -> None:
    rng = random.Random(7)
    for i in range(120):
        rules = RULES[i % 2]
        m = random_play_position(rng, rng.randint(1, 13), rules)
        p = Position.of(m)
        par = solve(p).value
        s0, s1 = _play_out(m)
        assert (s0 - s1) * (1 if p.to_act == 0 else -1) == par, (i, p)


def test_the_best_cards_value_is_the_positions_value_and_a_warm_table_agrees() -> None:
    rng = random.Random(11)
    for _ in range(40):
        m = random_play_position(rng, 13, RuleSet())
        payoff = Position.of(m).payoff()
        warm = new_search(payoff)
        hand = m.hand_number
        while not m.is_over and m.hand_number == hand:
            p = Position.of(m)
            cold = new_search(payoff)
            values = warm.card_values(*_args(p))
            assert values == cold.card_values(*_args(p))
            best = max(values.values()) if p.to_act == 0 else min(values.values())
            assert new_search(payoff).value(*_args(p)) == best
            m.apply(rng.choice(sorted(values)))


def _rename(rng: random.Random, p: Position) -> tuple[Position, dict[int, int]]:
    """The same position with each suit's live cards moved to other ranks in the same order."""
    live = p.hands[0] | p.hands[1] | (1 << p.lead if p.lead >= 0 else 0)
    mapping: dict[int, int] = {}
    for suit in range(4):
        old = [c for c in range(13 * suit, 13 * suit + 13) if live >> c & 1]
        new = sorted(rng.sample(range(13 * suit, 13 * suit + 13), len(old)))
        mapping.update(zip(old, new, strict=True))

    def moved(mask: int) -> int:
        return sum(1 << mapping[c] for c in range(52) if mask >> c & 1)

    renamed = Position(
        hands=(moved(p.hands[0]), moved(p.hands[1])),
        to_act=p.to_act,
        lead=mapping[p.lead] if p.lead >= 0 else -1,
        tricks_won=p.tricks_won,
        bids=p.bids,
        double_nil=p.double_nil,
        bags=p.bags,
        spades_broken=p.spades_broken,
        rules=p.rules,
    )
    return renamed, mapping


def test_renaming_the_cards_out_of_play_changes_no_value() -> None:
    rng = random.Random(13)
    for _ in range(60):
        p = Position.of(random_play_position(rng, rng.randint(4, 13), RuleSet()))
        renamed, mapping = _rename(rng, p)
        a, b = solve(p), solve(renamed)
        assert a.value == b.value
        assert {mapping[c]: v for c, v in a.card_values.items()} == b.card_values


def test_equivalent_cards_are_runs_between_the_other_hands_cards() -> None:
    c = make_card
    mine = sum(1 << x for x in (c(2, 2), c(2, 3), c(2, 5), c(2, 9), c(2, 14)))
    other = sum(1 << x for x in (c(2, 4), c(2, 10)))
    runs = groups(mine, other, -1)
    assert [low for low, _ in runs] == [c(2, 2), c(2, 5), c(2, 14)]
    # the card led splits a run too: 5 and 9 of hearts are no longer alike over a 7 led
    runs = groups(mine, other, c(2, 7))
    assert [low for low, _ in runs] == [c(2, 2), c(2, 5), c(2, 9), c(2, 14)]


def _fields(p: Position) -> dict[str, object]:
    return {f: getattr(p, f) for f in Position.__slots__}


def test_a_nil_at_stake_is_worth_more_than_a_trick() -> None:
    """Seat 1 bid Nil and holds the ace and two of hearts; seat 0 leads the five: duck."""
    c = make_card
    p = Position(
        hands=((1 << c(2, 5)) | (1 << c(0, 3)), (1 << c(2, 14)) | (1 << c(2, 2))),
        to_act=0,
        lead=-1,
        tricks_won=(11, 0),
        bids=(4, 0),
        double_nil=(False, False),
        bags=(0, 0),
        spades_broken=False,
        rules=RuleSet(),
    )
    # whatever seat 0 leads, seat 1 keeps the two under the five and throws the ace on the club
    solution = solve(p)
    made_nil = (40 + 9) - 100  # 13 tricks on a bid of 4: 40 + 9 bags; seat 1: +100
    assert solution.card_values[c(2, 5)] == made_nil
    follower = Position(
        **{**_fields(p), "hands": (1 << c(0, 3), p.hands[1]), "lead": c(2, 5), "to_act": 1}
    )
    answer = solve(follower)
    assert answer.best == (c(2, 2),)
    assert answer.card_values[c(2, 14)] < answer.value - 150  # the ace breaks the Nil
    with pytest.raises(ValueError, match=r"R-4\.1"):
        Position(**{**_fields(p), "tricks_won": (12, 0)})


def test_double_dummy_tricks_add_up_and_match_a_trick_count_minimax() -> None:
    rng = random.Random(17)
    for _ in range(100):
        p = Position.of(random_play_position(rng, rng.randint(1, 5), RuleSet()))
        t0, t1 = max_tricks(p)
        assert t0 + t1 == 13
        assert t0 == minimax(trick_payoff(), *_args(p))


def test_payoff_is_the_rules_score_difference() -> None:
    rules = RuleSet()
    # E-2 style: seat 0 bids 7, seat 1 bids 5, seat 0 carries 9 bags: one overtrick costs 100
    table = payoff_table((7, 5), (False, False), (9, 0), rules)
    assert table[7] == 70 - 51  # seat 1 takes 6 on a bid of 5: 50 and a bag
    assert table[8] == (71 - 100) - 50  # seat 0's overtrick is its tenth bag (R-5.5)
    # Double Nil of seat 1: +200 if it takes no trick
    table = payoff_table((3, 0), (False, True), (0, 0), rules)
    assert table[13] == (30 + 10 - 100) - 200  # ten overtricks are ten bags
    assert table[12] == (30 + 9) + 200
    # choice: a broken Nil's tricks are bags and can bring the penalty
    bags = payoff_table((5, 0), (False, False), (0, 9), RuleSet(nil_tricks_count_as_bags=True))
    assert bags[12] == 57 - (-100 - 100)


@pytest.mark.parametrize("python", [True, False])
def test_a_search_refuses_what_is_not_a_play_position(python: bool) -> None:
    if not python and C_SEARCH is None:
        pytest.skip("the C search was not built")
    search = new_search(trick_payoff(), python=python)
    with pytest.raises(ValueError):
        search.value(1, 1, 0, -1, 0, False)  # a card in both hands
    with pytest.raises(ValueError):
        search.value(1, 6, 0, -1, 0, False)  # 1 card against 2
    with pytest.raises(ValueError):
        search.value(1, 2, 0, -1, 13, False)  # 13 tricks won and one to go
    with pytest.raises(ValueError):
        search.value(1, 2, 2, -1, 0, False)  # no seat 2
    with pytest.raises(ValueError):
        search.value(2, 0, 0, 1, 12, False)  # the card led is in a hand
    with pytest.raises(ValueError):
        search.card_values(0, 0, 0, -1, 13, False)  # the hand is over
    assert search.value(0, 0, 0, -1, 13, False) == 13
    with pytest.raises(ValueError):
        new_search((1, 2, 3), python=python)


def test_the_analysis_imports_only_the_rules_and_the_engine_not_the_analysis() -> None:
    import ast
    from pathlib import Path

    import arena

    root = Path(arena.__file__).parent
    for path in (root / "analysis").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("arena"):
                assert node.module.startswith(("arena.rules", "arena.analysis")), path
    for path in (root / "rules").glob("*.py"):
        assert "arena.analysis" not in path.read_text(), path


@pytest.mark.parametrize("python", [True, False])
def test_a_limited_search_stops_with_none_and_leaves_its_table_sound(python: bool) -> None:
    if not python and C_SEARCH is None:
        pytest.skip("the C search was not built")
    rng = random.Random(17)
    checked = 0
    while checked < 6:
        p = Position.of(random_play_position(rng, 8, RuleSet()))
        payoff = p.payoff()
        cold = new_search(payoff, python=python)
        exact = cold.card_values(*_args(p))
        if cold.nodes < 10:
            continue  # settled by the payoff's bounds at once: nothing to stop
        checked += 1
        search = new_search(payoff, python=python)
        assert search.card_values(*_args(p), 3) is None  # stopped after 3 positions
        assert search.value(*_args(p), 1) is None
        before = search.nodes
        assert search.card_values(*_args(p), 10**9) == exact  # what was stored is still right
        assert search.nodes > before
        best = max(exact.values()) if p.to_act == 0 else min(exact.values())
        assert search.value(*_args(p)) == best
        with pytest.raises(ValueError, match="limit is None or a number of positions >= 1"):
            search.value(*_args(p), 0)


@pytest.mark.parametrize("python", [True, False])
def test_a_search_past_its_deadline_stops_with_none(python: bool) -> None:
    if not python and C_SEARCH is None:
        pytest.skip("the C search was not built")
    rng = random.Random(19)
    while True:  # a position whose search walks more than 1,024 positions
        p = Position.of(random_play_position(rng, 13, RuleSet()))
        cold = new_search(p.payoff())
        exact = cold.card_values(*_args(p))
        if cold.nodes > 5000:
            break
    search = new_search(p.payoff(), python=python)
    past = time.monotonic() - 1.0
    assert search.card_values(*_args(p), None, past) is None  # stopped at its 1024th position
    assert 1000 <= search.nodes <= 1100
    later = time.monotonic() + 3600.0
    assert search.card_values(*_args(p), None, later) == exact
    with pytest.raises(ValueError, match=r"deadline is None or a time\.monotonic\(\) > 0"):
        search.value(*_args(p), None, -1.0)
