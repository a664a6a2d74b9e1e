"""``arena bench ladder --entrants N``: how long the matchmaker takes to choose the next pair.

A synthetic ladder of N entrants as a long-running one looks: most settled (sigma 0.8-2.5, mu
spread as a field of bots is), a few newcomers at the initial rating, half of them owned by
members (some owning two), a few house bots, a history of duplicate pairs played mostly between
neighbours in mu, and ``k`` pairs in play. Each choice is timed alone (the entrants are built
beforehand, as the runner builds them from the store). The all-pairs scan that ``choose`` used
before (``Matchmaker.rank``, kept as the definition) is timed in the same run on a smaller field,
since at N = 10,000 it scores 50 million pairs a choice; its time grows with the square of N.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from typing import Any

from arena.ladder.matchmaking import LadderEntrant, Matchmaker, PairCounts


def synthetic_field(
    entrants: int, seed: int, *, newcomers: int = 10, in_play: int = 8
) -> tuple[list[LadderEntrant], PairCounts, frozenset[int], int]:
    """(entrants, pairs played, the versions in play, the next pair's index)."""
    rng = random.Random(seed)
    history = 20 * entrants
    out = []
    for i in range(entrants):
        fresh = i >= entrants - newcomers
        owner = None if rng.random() < 0.5 else rng.randrange(entrants * 2 // 3)
        out.append(
            LadderEntrant(
                i,
                f"bot{i}",
                25.0 if fresh else rng.gauss(25.0, 8.0),
                25.0 / 3 if fresh else rng.uniform(0.8, 2.5),
                pairs=0 if fresh else rng.randrange(1, 60),
                last_pair=-1 if fresh else rng.randrange(max(1, history - 3 * entrants), history),
                owner=owner,
                house=i < 6,
            )
        )
    by_mu = sorted(range(entrants - newcomers), key=lambda i: out[i].mu)
    played = PairCounts()
    for _ in range(history):
        p = rng.randrange(len(by_mu))
        q = min(len(by_mu) - 1, max(0, p + rng.randint(-40, 40)))
        if p != q:
            played.add(frozenset((by_mu[p], by_mu[q])))
    busy = frozenset(rng.sample(range(entrants - newcomers), 2 * in_play))
    return out, played, busy, history


def _time(fn: Any, repeats: int, cpu: list[float] | None = None) -> list[float]:
    """Wall-clock ms of each call (and, into ``cpu``, this process's CPU ms: on a shared machine
    the less noisy of the two)."""
    times = []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        times.append(1000 * (time.perf_counter() - t0))
        if cpu is not None:
            cpu.append(1000 * (time.process_time() - c0))
    return times


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]


def measure(
    entrants: int = 10_000, choices: int = 50, old_entrants: int = 200, old_choices: int = 3,
    seed: int = 1,
) -> dict[str, Any]:
    mm = Matchmaker()
    field, played, busy, next_pair = synthetic_field(entrants, seed)
    rng = random.Random(seed)
    picked = []

    def new() -> None:
        c = mm.choose(field, played, next_pair=next_pair, rng=rng, busy=busy)
        picked.append(c)

    new_cpu: list[float] = []
    new_ms = _time(new, choices, new_cpu)
    small, s_played, s_busy, s_next = synthetic_field(old_entrants, seed)
    # The same choice both ways on the smaller field (the check that nothing changed).
    same = (
        mm.choose(small, s_played, next_pair=s_next, rng=random.Random(seed), busy=s_busy)
        == _choose_by_rank(mm, small, s_played, s_next, random.Random(seed), s_busy)
    )
    old_ms = _time(
        lambda: _choose_by_rank(mm, small, s_played, s_next, rng, s_busy), old_choices
    )
    new_small_ms = _time(
        lambda: mm.choose(small, s_played, next_pair=s_next, rng=rng, busy=s_busy), choices
    )
    old_p50 = statistics.median(old_ms)
    return {
        "entrants": entrants,
        "pairs_played": played.total,
        "in_play": len(busy) // 2,
        "choices": choices,
        "choice_ms_p50": round(statistics.median(new_ms), 2),
        "choice_ms_p95": round(_p95(new_ms), 2),
        "choice_cpu_ms_p50": round(statistics.median(new_cpu), 2),
        "chosen": picked[0].reason() if picked and picked[0] else None,
        "old_entrants": old_entrants,
        "old_choices": old_choices,
        "old_choice_ms_p50": round(old_p50, 1),
        "old_choice_ms_p95": round(_p95(old_ms), 1),
        "new_at_old_entrants_ms_p50": round(statistics.median(new_small_ms), 2),
        "old_at_entrants_ms_estimate": round(old_p50 * (entrants / old_entrants) ** 2),
        "same_choice": same,
    }


def _choose_by_rank(
    mm: Matchmaker, field: list[LadderEntrant], played: PairCounts, next_pair: int,
    rng: random.Random, busy: frozenset[int],
) -> Any:
    """The choice as ``choose`` made it before: every pair ranked, a draw among the best."""
    ranked = mm.rank(field, played, next_pair=next_pair, busy=busy)
    best = ranked[0].priority
    tied = [c for c in ranked if math.isclose(c.priority, best, rel_tol=1e-9)]
    return tied[rng.randrange(len(tied))]


def describe(r: dict[str, Any]) -> str:
    return "\n".join([
        f"{r['entrants']:,} entrants, {r['pairs_played']:,} pairs played, {r['in_play']} pairs "
        f"in play; {r['choices']} choices",
        f"  next pair chosen in {r['choice_ms_p50']:.2f} ms p50, {r['choice_ms_p95']:.2f} ms p95"
        f" (CPU {r['choice_cpu_ms_p50']:.2f} ms p50)",
        f"  {r['chosen']}",
        f"all-pairs scan (the choice before), at {r['old_entrants']:,} entrants: "
        f"{r['old_choice_ms_p50']:.1f} ms p50, {r['old_choice_ms_p95']:.1f} ms p95 "
        f"({r['old_choices']} choices); now {r['new_at_old_entrants_ms_p50']:.2f} ms p50; "
        f"same pair: {'yes' if r['same_choice'] else 'NO'}",
        f"  at {r['entrants']:,} entrants it would take about "
        f"{r['old_at_entrants_ms_estimate'] / 1000:,.0f} s a choice (grows with the square)",
    ])  # fmt: skip
