"""The round-robin schedule and the standings computed from results (pure, no processes)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from arena.errors import ArenaError
from arena.ratings import Rater
from arena.tournament.schedule import (
    DEFAULT_DEALS,
    SEED_BITS,
    DealMode,
    build_schedule,
    deal_seed,
    parse_deal_mode,
)
from arena.tournament.standings import GameRecord, compute_standings, rate_in_order


@pytest.mark.parametrize("num_bots,games", [(2, 1), (3, 4), (4, 5), (6, 2)])
def test_every_pair_plays_its_seeds_in_both_seatings(num_bots: int, games: int) -> None:
    schedule = build_schedule(num_bots, games, seed=7)
    pairs = num_bots * (num_bots - 1) // 2
    assert len(schedule) == pairs * games * 2
    assert [g.index for g in schedule] == list(range(len(schedule)))
    seatings = Counter(g.seats for g in schedule)
    # Every ordered seating appears exactly N times: each bot has seat 0 as often as seat 1.
    assert set(seatings) == {(a, b) for a in range(num_bots) for b in range(num_bots) if a != b}
    assert set(seatings.values()) == {games}
    # Pairs (the default): every pair plays N seeds of its own, each twice, seats swapped.
    by_pair = {
        (a, b): Counter(g.seed for g in schedule if set(g.seats) == {a, b})
        for a, b in combinations(range(num_bots), 2)
    }
    for seeds in by_pair.values():
        assert seeds == Counter({s: 2 for s in seeds}) and len(seeds) == games
    assert len({g.seed for g in schedule}) == pairs * games, "no two pairs share a seed"


@pytest.mark.parametrize("num_bots,games", [(2, 1), (3, 4), (6, 2)])
def test_duplicate_deals_are_shared_by_every_pair(num_bots: int, games: int) -> None:
    schedule = build_schedule(num_bots, games, seed=7, deals=DealMode.DUPLICATE)
    # The N deals are N distinct seeds, shared by all pairs, each played twice by every pair.
    round_seeds = {g.seed for g in schedule}
    assert len(round_seeds) == games
    for a, b in combinations(range(num_bots), 2):
        seeds = Counter(g.seed for g in schedule if set(g.seats) == {a, b})
        assert seeds == Counter({s: 2 for s in round_seeds})
    # Same pairs, seats, pair ids and rounds as the pairs schedule: only the seeds differ.
    pairs = build_schedule(num_bots, games, seed=7, deals=DealMode.PAIRS)
    assert [(g.index, g.pair_id, g.seats, g.round) for g in schedule] == [
        (g.index, g.pair_id, g.seats, g.round) for g in pairs
    ]


def test_a_pairs_seed_is_the_pairs_own_and_derives_from_the_pair() -> None:
    """The seed of a pair's deal in round r depends on the tournament seed, r and the two
    entrants' indices alone: a resume (the config's entrant list) derives the same seeds, and
    a bigger field leaves the seeds of the pairs it shares with a smaller one unchanged."""
    schedule = build_schedule(4, 3, seed=21)
    for g in schedule:
        a, b = sorted(g.seats)
        assert g.seed == deal_seed(21, g.round, "pair", a, b)
    assert schedule == build_schedule(4, 3, seed=21, deals=DealMode.PAIRS)
    smaller = {(frozenset(g.seats), g.round): g.seed for g in build_schedule(3, 3, seed=21)}
    for g in schedule:
        if max(g.seats) < 3:
            assert smaller[frozenset(g.seats), g.round] == g.seed
    # Neither the shared seed of the round nor any independent match's seed.
    shared = {g.seed for g in build_schedule(4, 3, seed=21, deals=DealMode.DUPLICATE)}
    independent = {g.seed for g in build_schedule(4, 3, seed=21, deals=DealMode.INDEPENDENT)}
    assert not {g.seed for g in schedule} & (shared | independent)


def test_the_default_deal_mode_is_pairs() -> None:
    assert DEFAULT_DEALS is DealMode.PAIRS
    assert build_schedule(3, 2, seed=4) == build_schedule(3, 2, seed=4, deals=DealMode.PAIRS)


@pytest.mark.parametrize("text", ["shuffled", "", "Pairs", "duplicate "])
def test_an_unknown_deal_mode_is_refused_naming_the_modes(text: str) -> None:
    with pytest.raises(ArenaError, match="--deals must be one of pairs, duplicate, independent"):
        parse_deal_mode(text)
    assert parse_deal_mode("duplicate") is DealMode.DUPLICATE


def test_duplicate_pairs_are_kept_together() -> None:
    schedule = build_schedule(4, 3, seed=11)
    by_pair: dict[int, list] = {}
    for g in schedule:
        by_pair.setdefault(g.pair_id, []).append(g)
    assert len(by_pair) == 6 * 3
    for games in by_pair.values():
        first, second = games
        assert second.index == first.index + 1, "the two seatings stand next to each other"
        assert second.seats == first.seats[::-1], "seats swapped"
        assert first.seed == second.seed, "one deal seed for both seatings"
        assert first.round == second.round


def test_rounds_are_balanced_prefixes() -> None:
    """Round r holds exactly one duplicate pair of every bot pair."""
    schedule = build_schedule(4, 5, seed=3)
    for r in range(5):
        games = [g for g in schedule if g.round == r]
        assert {frozenset(g.seats) for g in games} == {
            frozenset(p) for p in combinations(range(4), 2)
        }
        assert {g.index for g in games} == set(range(r * 12, r * 12 + 12))


def test_schedule_is_a_function_of_the_seed() -> None:
    assert build_schedule(4, 6, seed=42) == build_schedule(4, 6, seed=42)
    other = build_schedule(4, 6, seed=43)
    assert [g.seed for g in other] != [g.seed for g in build_schedule(4, 6, seed=42)]
    # Deal seeds do not depend on Python's per-process hash salt: a fixed value pins them.
    assert deal_seed(1, 0) == deal_seed(1, 0)
    assert all(0 <= g.seed < 2**SEED_BITS for g in other)


def test_independent_deals_give_every_match_its_own_seed() -> None:
    schedule = build_schedule(3, 10, seed=5, deals=DealMode.INDEPENDENT)
    assert len({g.seed for g in schedule}) == len(schedule)
    # Same pairs, seats and pair ids as the duplicate schedule: only the seeds differ.
    duplicate = build_schedule(3, 10, seed=5, deals=DealMode.DUPLICATE)
    assert [(g.pair_id, g.seats) for g in schedule] == [(g.pair_id, g.seats) for g in duplicate]


@pytest.mark.parametrize("num_bots,games", [(0, 1), (1, 3), (2, 0), (3, -1)])
def test_bad_sizes_are_refused(num_bots: int, games: int) -> None:
    with pytest.raises(ArenaError, match="at least"):
        build_schedule(num_bots, games, seed=1)


def _record(index: int, pair_id: int, seats, winner, scores=(500, 100), **kw) -> GameRecord:
    return GameRecord(
        index=index,
        pair_id=pair_id,
        seats=seats,
        winner=winner,
        scores=scores,
        termination=kw.pop("termination", "target_reached"),
        faults=kw.pop("faults", (0, 0)),
        **kw,
    )


def test_ratings_do_not_depend_on_the_order_results_arrive_in() -> None:
    schedule = build_schedule(3, 4, seed=9)
    records = [_record(g.index, g.pair_id, g.seats, winner=(g.index * 7 % 3) % 2) for g in schedule]
    rater = Rater()
    forward = rate_in_order(3, records, rater)
    backward = rate_in_order(3, list(reversed(records)), rater)
    assert forward == backward
    # ...whereas applying them in arrival order would not give the same numbers.
    naive = [rater.initial() for _ in range(3)]
    for r in reversed(records):
        a, b = r.seats
        naive[a], naive[b] = rater.rate(naive[a], naive[b], r.winner)
    assert naive != forward


def test_standings_tables() -> None:
    bots = [("alpha", "v1"), ("beta", "v2"), ("gamma", "v3")]
    records = [
        # pair 0, alpha vs beta: alpha wins both seatings -> a duplicate pair won by alpha
        _record(0, 0, (0, 1), 0, scores=(510, 200)),
        _record(1, 0, (1, 0), 1, scores=(150, 505)),
        # pair 1, alpha vs gamma: one win each -> split
        _record(2, 1, (0, 2), 0, scores=(500, 480)),
        _record(3, 1, (2, 0), 0, scores=(520, 300)),
        # pair 2, beta vs gamma: beta forfeits by timeout in one, a draw in the other
        _record(4, 2, (1, 2), 1, scores=(0, 0), termination="forfeit_timeout", faults=(1, 0)),
        _record(5, 2, (2, 1), None, scores=(300, 300), termination="hand_limit"),
        # pair 3, alpha vs beta, only one seating recorded so far -> not a complete pair
        _record(6, 3, (0, 1), 1, scores=(100, 500)),
    ]
    s = compute_standings(bots, records, Rater(), total=12)
    assert s.played == 7 and s.total == 12
    assert [row.rank for row in s.leaderboard] == [1, 2, 3]
    scores = [row.score for row in s.leaderboard]
    assert scores == sorted(scores, reverse=True)
    for row in s.leaderboard:
        assert row.score == pytest.approx(row.mu - 3 * row.sigma)
    alpha = next(r for r in s.leaderboard if r.bot == "alpha")
    assert (alpha.matches, alpha.wins, alpha.losses, alpha.draws) == (5, 3, 2, 0)
    beta = next(r for r in s.leaderboard if r.bot == "beta")
    assert (beta.matches, beta.wins, beta.losses, beta.draws, beta.faults) == (5, 1, 3, 1, 1)

    h2h = {(h.bot_a, h.bot_b): h for h in s.head_to_head}
    ab = h2h[("alpha", "beta")]
    assert (ab.matches, ab.wins_a, ab.wins_b, ab.draws) == (3, 2, 1, 0)
    assert (ab.pairs_won_a, ab.pairs_won_b, ab.pairs_split) == (1, 0, 0)
    assert ab.margin_a == (510 - 200) + (505 - 150) + (100 - 500)
    ag = h2h[("alpha", "gamma")]
    assert (ag.wins_a, ag.wins_b, ag.pairs_won_a, ag.pairs_won_b, ag.pairs_split) == (1, 1, 0, 0, 1)
    bg = h2h[("beta", "gamma")]
    assert (bg.wins_a, bg.wins_b, bg.draws) == (0, 1, 1)
    assert (bg.pairs_won_a, bg.pairs_won_b, bg.pairs_split) == (0, 1, 0)

    faults = {f.bot: f for f in s.faults}
    assert faults["beta"].forfeits == {"forfeit_timeout": 1}
    assert faults["beta"].faults == 1
    assert faults["alpha"].forfeit_total == 0
