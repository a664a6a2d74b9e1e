"""The ladder's scheduler alone: what it prefers, and that it orders a field faster than
uniform random pairing (seeded simulations of synthetic bots of known strength)."""

from __future__ import annotations

import random

import pytest

from arena.ladder import simulation
from arena.ladder.matchmaking import LadderEntrant, Matchmaker


def field(*sigmas: float, mus: tuple[float, ...] | None = None) -> list[LadderEntrant]:
    mus = mus or tuple(25.0 for _ in sigmas)
    pairs = enumerate(zip(mus, sigmas, strict=True))
    return [LadderEntrant(i, f"b{i}", mu, s) for i, (mu, s) in pairs]


def test_a_new_bot_is_played_first() -> None:
    settled = [
        LadderEntrant(i, f"b{i}", 20.0 + 3 * i, 1.5, pairs=30, last_pair=90 + i) for i in range(5)
    ]
    newcomer = LadderEntrant(99, "new", 25.0, 25.0 / 3)
    choice = Matchmaker().choose(
        [*settled, newcomer], {}, next_pair=100, rng=random.Random(1)
    )
    assert choice is not None and 99 in (choice.a.version_id, choice.b.version_id)


def test_close_opponents_are_preferred_for_equal_uncertainty() -> None:
    entrants = field(3.0, 3.0, 3.0, mus=(25.0, 26.0, 40.0))
    choice = Matchmaker().choose(entrants, {}, next_pair=0, rng=random.Random(1))
    assert choice is not None
    assert {choice.a.version_id, choice.b.version_id} == {0, 1}
    assert choice.quality > 0.5


def test_a_pair_played_often_yields_to_a_fresh_one() -> None:
    entrants = field(3.0, 3.0, 3.0, mus=(25.0, 25.5, 26.5))
    played = {frozenset((0, 1)): 20}
    choice = Matchmaker().choose(entrants, played, next_pair=20, rng=random.Random(1))
    assert choice is not None
    assert {choice.a.version_id, choice.b.version_id} != {0, 1}


def test_busy_bots_are_not_chosen_and_two_are_needed() -> None:
    entrants = field(5.0, 4.0, 3.0)
    mm = Matchmaker()
    choice = mm.choose(entrants, {}, next_pair=0, rng=random.Random(1), busy=frozenset({0}))
    assert choice is not None and 0 not in (choice.a.version_id, choice.b.version_id)
    assert mm.choose(entrants, {}, next_pair=0, rng=random.Random(1),
                     busy=frozenset({0, 1})) is None


def test_a_bot_left_waiting_gains_priority() -> None:
    # b2 is as certain as the others but has waited far longer than 2 * bots pairs.
    entrants = [
        LadderEntrant(0, "b0", 25.0, 2.0, pairs=40, last_pair=99),
        LadderEntrant(1, "b1", 25.0, 2.0, pairs=40, last_pair=99),
        LadderEntrant(2, "b2", 40.0, 2.0, pairs=5, last_pair=10),
    ]
    choice = Matchmaker().choose(entrants, {}, next_pair=100, rng=random.Random(1))
    assert choice is not None and 2 in (choice.a.version_id, choice.b.version_id)


def test_the_choice_is_deterministic_for_a_seed() -> None:
    entrants = field(4.0, 4.0, 4.0, 4.0)
    picks = {
        (c.a.version_id, c.b.version_id)
        for c in (Matchmaker().choose(entrants, {}, next_pair=0, rng=random.Random(7))
                  for _ in range(5))
        if c is not None
    }
    assert len(picks) == 1


@pytest.mark.slow
def test_matchmaking_orders_the_field_in_fewer_pairs_than_uniform_pairing() -> None:
    # Seeded: the same numbers on every run (docs/benchmarks.md has the larger run).
    c = simulation.compare(bots=8, spacing=2.5, runs=6, max_pairs=250, seed=1)
    assert c.matchmaking_median < c.uniform_median, (c.matchmaking, c.uniform)


def test_a_newcomer_is_placed_within_a_few_pairs() -> None:
    skills = simulation.true_skills(8, 2.5, random.Random(3))
    pairs = simulation.placement(
        skills, settle_pairs=120, sigma_target=2.0, max_pairs=40, seed=3
    )
    assert pairs is not None and pairs <= 15


def test_one_owners_bots_are_never_paired() -> None:
    """The issue's field: one owner's 4 fresh bots beside 8 settled bots of others. Fresh
    bots have the highest priority among themselves; none of their pairs may be ranked."""
    settled = [
        LadderEntrant(i, f"s{i}", 20.0 + i, 1.5, pairs=30, last_pair=90 + i, owner=100 + i)
        for i in range(8)
    ]
    fresh = [LadderEntrant(50 + i, f"f{i}", 25.0, 25.0 / 3, owner=7) for i in range(4)]
    ranked = Matchmaker().rank([*settled, *fresh], {}, next_pair=100)
    assert ranked and all(not (c.a.owner == c.b.owner == 7) for c in ranked)
    assert all(7 in (c.a.owner, c.b.owner) for c in ranked[:6])  # the fresh ones still first
    # The organiser's bots (no owner) do meet each other.
    house = [LadderEntrant(i, f"h{i}", 25.0, 3.0) for i in range(2)]
    assert len(Matchmaker().rank(house, {}, next_pair=0)) == 1
    assert Matchmaker().rank(fresh, {}, next_pair=0) == []
