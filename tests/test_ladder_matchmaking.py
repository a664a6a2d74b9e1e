"""The ladder's scheduler alone: what it prefers, and that it orders a field faster than
uniform random pairing (seeded simulations of synthetic bots of known strength)."""

from __future__ import annotations

import math
import random

import pytest

from arena.ladder import simulation
from arena.ladder.matchmaking import LadderEntrant, Matchmaker, PairCounts


def field(*sigmas: float, mus: tuple[float, ...] | None = None) -> list[LadderEntrant]:
    mus = mus or tuple(25.0 for _ in sigmas)
    pairs = enumerate(zip(mus, sigmas, strict=True))
    return [LadderEntrant(i, f"b{i}", mu, s) for i, (mu, s) in pairs]


def test_a_new_bot_is_played_first() -> None:
    settled = [
        LadderEntrant(i, f"b{i}", 20.0 + 3 * i, 1.5, pairs=30, last_pair=90 + i) for i in range(5)
    ]
    newcomer = LadderEntrant(99, "new", 25.0, 25.0 / 3)
    choice = Matchmaker().choose([*settled, newcomer], {}, next_pair=100, rng=random.Random(1))
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
    assert (
        mm.choose(entrants, {}, next_pair=0, rng=random.Random(1), busy=frozenset({0, 1})) is None
    )


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
        for c in (
            Matchmaker().choose(entrants, {}, next_pair=0, rng=random.Random(7)) for _ in range(5)
        )
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
    pairs = simulation.placement(skills, settle_pairs=120, sigma_target=2.0, max_pairs=40, seed=3)
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


def _large_field(
    seed: int, m: int, fresh: int
) -> tuple[list[LadderEntrant], PairCounts, frozenset[int]]:
    rng = random.Random(seed)
    entrants = [
        LadderEntrant(
            i, f"b{i}",
            25.0 if i < fresh else rng.gauss(25, 8),
            25.0 / 3 if i < fresh else rng.choice([rng.uniform(0.8, 2.5), 1.5]),
            pairs=rng.randrange(50),
            last_pair=rng.choice([-1, rng.randrange(300)]),
            owner=rng.choice([None, rng.randrange(max(1, m // 3))]),
            house=rng.random() < 0.05,
        )
        for i in range(m)
    ]  # fmt: skip
    played = PairCounts()
    for _ in range(3 * m):
        a, b = rng.sample(range(m), 2)
        played.add(frozenset((a, b)), rng.randrange(1, 4))
    return entrants, played, frozenset(rng.sample(range(m), 4))


@pytest.mark.parametrize("seed", range(12))
def test_the_fast_choice_is_the_all_pairs_choice(seed: int) -> None:
    """Past SCAN_ALL_BELOW entrants ``choose`` prunes instead of scoring every pair: the pair
    (the seeded draw among ties included) must be the one the all-pairs ranking gives."""
    m = (64, 90, 150)[seed % 3]
    entrants, played, busy = _large_field(seed, m, fresh=seed % 4)
    ranked = Matchmaker().rank(entrants, played, next_pair=300 + seed, busy=busy)
    tied = [c for c in ranked if math.isclose(c.priority, ranked[0].priority, rel_tol=1e-9)]
    want = tied[random.Random(seed).randrange(len(tied))]
    got = Matchmaker().choose(
        entrants, played, next_pair=300 + seed, rng=random.Random(seed), busy=busy
    )
    assert got == want


def test_the_fast_choice_keeps_the_owner_and_house_rules() -> None:
    """A large field where the best pairs by rating are one owner's, or two house bots: the
    choice is neither."""
    others = [LadderEntrant(i, f"s{i}", 25.0 + 0.01 * i, 1.0, owner=1000 + i) for i in range(80)]
    mine = [LadderEntrant(200 + i, f"m{i}", 25.0, 25.0 / 3, owner=7) for i in range(3)]
    house = [LadderEntrant(300 + i, f"h{i}", 25.0, 25.0 / 3, house=True) for i in range(3)]
    c = Matchmaker().choose(
        [*others, *mine, *house], PairCounts(), next_pair=0, rng=random.Random(1)
    )
    assert c is not None
    assert not (c.a.owner == c.b.owner == 7) and not (c.a.house and c.b.house)
    assert c.uncertainty > 2 * (25.0 / 3) ** 2 - 1  # still a fresh bot against a fresh bot


def test_pair_counts_keep_their_total() -> None:
    played = PairCounts()
    played.add(frozenset((1, 2)))
    played.add(frozenset((1, 2)), 2)
    played.add(frozenset((3, 2)))
    assert played[frozenset((2, 1))] == 3 and played.total == 4 == sum(played.values())


def test_bench_ladder_entrants_prints_the_choice_time() -> None:
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "arena", "bench", "ladder", "--entrants", "400", "--choices", "3",
         "--old-entrants", "70", "--json"],
        capture_output=True, text=True, timeout=300, check=True,
    ).stdout  # fmt: skip
    r = json.loads(out)
    assert r["entrants"] == 400 and r["same_choice"] is True
    assert r["same_choice_kept_and_listed"] is True  # the kept field chose as the list did
    assert 0 < r["choice_ms_p50"] <= r["choice_ms_p95"]
    bad = subprocess.run(
        [sys.executable, "-m", "arena", "bench", "ladder", "--entrants", "1"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert bad.returncode != 0 and "--entrants and --old-entrants need 2 or more" in bad.stderr


@pytest.mark.parametrize("seed", range(6))
def test_a_field_kept_between_choices_chooses_as_the_list_does(seed: int) -> None:
    """A ``LadderField`` changed row by row (results change two ratings, a pair played two
    last-pair marks, bots join and leave) chooses exactly what its entrants in a list choose,
    the draw among ties included, choice after choice."""
    import dataclasses

    from arena.ladder.matchmaking import LadderField

    entrants, played, busy = _large_field(seed, (70, 120, 200)[seed % 3], fresh=seed % 4)
    kept = LadderField(entrants)
    rng = random.Random(seed)
    mm_list, mm_kept = Matchmaker(), Matchmaker()
    r_list, r_kept = random.Random(seed), random.Random(seed)
    next_id = 10_000
    for step in range(25):
        want = mm_list.choose(entrants, played, next_pair=400 + step, rng=r_list, busy=busy)
        got = mm_kept.choose(kept, played, next_pair=400 + step, rng=r_kept, busy=busy)
        assert got == want
        assert kept.entrants() == entrants
        if want is None:
            break
        played.add(frozenset((want.a.version_id, want.b.version_id)))
        # The pair played: new ratings and last-pair marks for its two rows.
        for e in (want.a, want.b):
            i = entrants.index(e)
            entrants[i] = dataclasses.replace(
                e, mu=e.mu + rng.uniform(-2, 2), sigma=max(0.5, e.sigma * 0.9),
                pairs=e.pairs + 1, last_pair=400 + step,
            )  # fmt: skip
            kept.put(entrants[i])
        if step % 5 == 1:  # a bot joins, in the middle of the order
            new = LadderEntrant(next_id, f"n{next_id}", 25.0, 25.0 / 3, owner=rng.choice([None, 3]))
            at = rng.randrange(len(entrants))
            entrants.insert(at, new)
            kept.put(new, at)
            next_id += 1
        if step % 7 == 3:  # one leaves (paused, or a new version replaced it)
            gone = entrants.pop(rng.randrange(len(entrants)))
            kept.remove(gone.version_id)
            assert gone.version_id not in kept
