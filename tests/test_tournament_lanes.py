"""The lane plan (``arena.tournament.lanes``): no lane of a bot plays one deal seed twice, in
either seat, so a deal's two seatings never share a process."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.tournament.lanes import assign_lanes
from arena.tournament.schedule import DealMode, build_schedule

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
