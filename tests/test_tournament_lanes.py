"""The lane plan (``arena.tournament.lanes``): no lane of a bot plays one deal seed twice, in
either seat, so a deal's two seatings never share a process."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest

from arena.tournament.lanes import assign_lanes, play_order
from arena.tournament.schedule import DealMode, ScheduledGame, build_schedule

Game = tuple[tuple[int, int], int, tuple[int, int]]
"""Seats, deal seed, lanes."""


def _plan(bots: int, games: int, deals: DealMode) -> list[Game]:
    schedule = build_schedule(bots, games, seed=7, deals=deals)
    lanes = assign_lanes((g.seats, g.seed) for g in schedule)
    return [(g.seats, g.seed, lane) for g, lane in zip(schedule, lanes, strict=True)]


@pytest.mark.parametrize("bots", [2, 3, 5])
@pytest.mark.parametrize("deals", list(DealMode))
def test_no_lane_plays_a_deal_twice(bots: int, deals: DealMode) -> None:
    plays: Counter[tuple[int, int, int]] = Counter()
    for seats, seed, lanes in _plan(bots, 3, deals):
        for entrant, lane in zip(seats, lanes, strict=True):
            plays[entrant, lane, seed] += 1
    assert max(plays.values()) == 1


@pytest.mark.parametrize("deals", [DealMode.PAIRS, DealMode.DUPLICATE])
def test_a_deals_two_seatings_go_to_different_lanes(deals: DealMode) -> None:
    schedule = build_schedule(2, 4, seed=3, deals=deals)
    lanes = assign_lanes((g.seats, g.seed) for g in schedule)
    by_pair: dict[int, list[tuple[int, int]]] = {}
    for g, lane in zip(schedule, lanes, strict=True):
        by_pair.setdefault(g.pair_id, []).append(lane)
    assert all(first != second for first, second in by_pair.values())
    # Two bots: two lanes each, the first seating of every deal in lane 0, its twin in lane 1.
    assert lanes == [(0, 0), (1, 1)] * 4


def test_lane_counts_follow_how_often_a_bot_plays_one_deal() -> None:
    def lanes_per_bot(bots: int, deals: DealMode) -> set[int]:
        used: dict[int, int] = {}
        for seats, _, lanes in _plan(bots, 2, deals):
            for entrant, lane in zip(seats, lanes, strict=True):
                used[entrant] = max(used.get(entrant, 0), lane + 1)
        return set(used.values())

    # Pairs (the default): a bot meets a deal only in its own twin pair, once in each seat:
    # two lanes, whatever the field.
    for bots in (2, 3, 4, 7):
        assert lanes_per_bot(bots, DealMode.PAIRS) == {2}
    # Shared deals: each bot plays every deal in both seats against each of the others.
    for bots in (2, 3, 4, 7):
        assert lanes_per_bot(bots, DealMode.DUPLICATE) == {2 * (bots - 1)}
    # A seed per match: nothing to hide from anyone, one lane.
    assert lanes_per_bot(4, DealMode.INDEPENDENT) == {1}


def test_a_resumed_run_plans_its_pending_games_afresh() -> None:
    # Only the games of this run count: a new run starts new processes.
    assert assign_lanes([((1, 0), 9)]) == [(0, 0)]
    assert assign_lanes([((0, 1), 9), ((1, 0), 9), ((0, 1), 8)]) == [(0, 0), (1, 1), (0, 0)]


def test_one_entrant_in_both_seats_is_refused() -> None:
    with pytest.raises(ValueError, match="both seats"):
        assign_lanes([((2, 2), 1)])


def _lanes_in_play_order(
    bots: int, games: int, deals: DealMode, k: int, pending: list[ScheduledGame] | None = None
) -> list[tuple[ScheduledGame, tuple[int, int]]]:
    schedule = pending if pending is not None else build_schedule(bots, games, 7, deals)
    order = play_order(schedule, k)
    return list(zip(order, assign_lanes((g.seats, g.seed) for g in order), strict=True))


def test_one_match_at_a_time_plays_in_schedule_order() -> None:
    schedule = build_schedule(4, 3, seed=7)
    assert play_order(schedule, 1) == schedule


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("bots,games", [(2, 2), (2, 5), (4, 2), (4, 3), (5, 4)])
@pytest.mark.parametrize("deals", list(DealMode))
def test_play_order_keeps_every_game_and_no_lane_plays_a_deal_twice(
    k: int, bots: int, games: int, deals: DealMode
) -> None:
    planned = _lanes_in_play_order(bots, games, deals, k)
    schedule = build_schedule(bots, games, 7, deals)
    assert sorted(g.index for g, _ in planned) == [g.index for g in schedule]
    plays: Counter[tuple[int, int, int]] = Counter()
    used: dict[int, int] = {}
    for g, lanes in planned:
        for entrant, lane in zip(g.seats, lanes, strict=True):
            plays[entrant, lane, g.seed] += 1
            used[entrant] = max(used.get(entrant, 0), lane + 1)
    assert max(plays.values()) == 1
    # As many processes per bot as in schedule order.
    expected = {DealMode.PAIRS: 2, DealMode.DUPLICATE: 2 * (bots - 1), DealMode.INDEPENDENT: 1}
    assert set(used.values()) == {expected[deals]}


def test_at_k_2_a_lane_serves_two_different_deals_at_once() -> None:
    """Handed out two at a time, each two games share both bots' processes (two deals of one
    bot pair on lane 0, later their twins on lane 1); in schedule order they shared none."""
    planned = _lanes_in_play_order(4, 2, DealMode.PAIRS, 2)
    for (g, lanes), (h, other) in zip(planned[::2], planned[1::2], strict=True):
        assert g.seats == h.seats and lanes == other, (g, h)
        assert g.seed != h.seed and g.round != h.round
    # Every bot pair's two first seatings (lane 0), then the twins (lane 1), in the same order.
    assert [lanes for _, lanes in planned] == [(0, 0)] * 12 + [(1, 1)] * 12
    assert [g.pair_id for g, _ in planned[:4]] == [0, 6, 1, 7]
    assert [g.pair_id for g, _ in planned[:12]] == [g.pair_id for g, _ in planned[12:]]
    # Schedule order, for contrast: the two games in play at once are a deal's two seatings.
    schedule = build_schedule(4, 2, seed=7)
    lanes = assign_lanes((g.seats, g.seed) for g in schedule)
    assert all(lanes[i] != lanes[i + 1] for i in range(0, len(lanes), 2))


def test_play_order_goes_block_by_block_of_two_rounds() -> None:
    """A tournament stopped early is balanced across pairs to within two rounds: every pair's
    games of rounds 0 and 1 come before any game of round 2."""
    planned = play_order(build_schedule(3, 5, seed=1), 2)
    rounds = [g.round for g in planned]
    assert rounds[:12] == sorted(rounds[:12]) or max(rounds[:12]) == 1
    assert set(rounds[:12]) == {0, 1} and set(rounds[12:24]) == {2, 3}
    assert set(rounds[24:]) == {4}
    # The last block, of one round: its first seatings, then its twins.
    assert [g.index for g in planned[24:]] == [24, 26, 28, 25, 27, 29]


def test_a_resumed_run_orders_its_pending_games_afresh() -> None:
    """With a deal's first seating already played, its twin is a first for the new run's
    processes: it goes out with the other deal's first seating, on lane 0."""
    schedule = build_schedule(2, 2, seed=5)
    pending = schedule[1:]  # round 0's first seating is recorded
    planned = _lanes_in_play_order(2, 2, DealMode.PAIRS, 2, pending)
    assert [(g.index, lanes) for g, lanes in planned] == [(1, (0, 0)), (2, (0, 0)), (3, (1, 1))]


def test_with_one_deal_a_pair_games_next_to_each_other_share_a_bots_lane() -> None:
    """One deal per pair: a round's first seatings go out pair by pair, then its twins, so two
    games next to each other share a process wherever their pairs share a bot."""
    planned = _lanes_in_play_order(4, 1, DealMode.PAIRS, 2)
    assert [lanes for _, lanes in planned] == [(0, 0)] * 6 + [(1, 1)] * 6
    processes = [set(zip(g.seats, lanes, strict=True)) for g, lanes in planned]
    shared = [bool(p & q) for p, q in pairwise(processes)]
    # Pairs (0,1) (0,2) (0,3) (1,2) (1,3) (2,3): all share a bot's process with the next but
    # (0,3) and (1,2), and the last first seating with the first twin (other lanes).
    assert shared == [True, True, False, True, True, False, True, True, False, True, True]
