"""``arena bench ladder --entrants N``: how long the matchmaker takes to choose the next pair.

A synthetic ladder of N entrants as a long-running one looks: most settled (sigma 0.8-2.5, mu
spread as a field of bots is), a few newcomers at the initial rating, half of them owned by
members (some owning two), a few house bots, a history of duplicate pairs played mostly between
neighbours in mu, and ``k`` pairs in play. Between choices the field changes as a running
ladder changes it (``_LiveLadder``). Each choice is timed alone, twice on the same state,
alternating: from a ``LadderField`` kept between choices (now), and from the entrants read
into arrays again (before). The all-pairs scan that ``choose`` used before that
(``Matchmaker.rank``, kept as the definition) is timed in the same run on a smaller field,
since at N = 10,000 it scores 50 million pairs a choice; its time grows with the square of N.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from dataclasses import replace
from typing import Any

from arena.ladder.matchmaking import LadderEntrant, LadderField, Matchmaker, PairCounts


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


class _LiveLadder:
    """The synthetic field as a running ladder changes it between choices: the chosen pair
    goes into play and the oldest pair in play finishes (TrueSkill moves its two ratings, their
    pair counts and last-pair marks change), and every tenth choice a bot joins and another
    leaves. ``kept`` applies each change to a ``LadderField`` row by row; the list the
    choice was made from before (every entrant read again) is kept beside it, the same."""

    def __init__(self, entrants: int, seed: int) -> None:
        self.entrants, self.played, busy, self.next_pair = synthetic_field(entrants, seed)
        ids = sorted(busy)
        self.in_play = [(ids[2 * i], ids[2 * i + 1]) for i in range(len(ids) // 2)]
        self.kept = LadderField(self.entrants)
        self.rng = random.Random(seed + 1)
        self.env = Matchmaker().config.environment()
        self.next_id = entrants

    def busy(self) -> frozenset[int]:
        return frozenset(v for p in self.in_play for v in p)

    def after(self, choice: Any) -> None:
        if choice is None:
            return
        a, b = choice.a.version_id, choice.b.version_id
        self.played.add(frozenset((a, b)))
        self.in_play.append((a, b))
        changed = {a: dict(pairs=choice.a.pairs + 1, last_pair=self.next_pair),
                   b: dict(pairs=choice.b.pairs + 1, last_pair=self.next_pair)}  # fmt: skip
        self.next_pair += 1
        done = self.in_play.pop(0)
        rows = {e.version_id: i for i, e in enumerate(self.entrants) if e.version_id in done}
        ra, rb = (self.entrants[rows[v]] for v in done)
        new_a, new_b = self.env.rate_1vs1(
            self.env.create_rating(ra.mu, ra.sigma), self.env.create_rating(rb.mu, rb.sigma)
        )
        for e, r in ((ra, new_a), (rb, new_b)):
            changed.setdefault(e.version_id, {}).update(mu=r.mu, sigma=r.sigma)
        for i, e in enumerate(self.entrants):
            if e.version_id in changed:
                self.entrants[i] = replace(e, **changed[e.version_id])
                self.kept.put(self.entrants[i])
        if self.next_pair % 10 == 0:
            busy = self.busy()
            leaving = self.rng.randrange(6, len(self.entrants))
            while self.entrants[leaving].version_id in busy:
                leaving = self.rng.randrange(6, len(self.entrants))
            self.kept.remove(self.entrants.pop(leaving).version_id)
            new = LadderEntrant(self.next_id, f"bot{self.next_id}", 25.0, 25.0 / 3,
                                owner=self.rng.choice([None, self.next_id]))  # fmt: skip
            at = self.rng.randrange(len(self.entrants))
            self.entrants.insert(at, new)
            self.kept.put(new, at)
            self.next_id += 1


def measure(
    entrants: int = 10_000,
    choices: int = 50,
    old_entrants: int = 200,
    old_choices: int = 3,
    seed: int = 1,
) -> dict[str, Any]:
    mm = Matchmaker()
    live = _LiveLadder(entrants, seed)
    rng = random.Random(seed)
    picked = []
    kept_ms: list[float] = []
    kept_cpu: list[float] = []
    listed_ms: list[float] = []
    listed_cpu: list[float] = []
    same_live = True
    # Alternating, on the same states: the field kept between choices (now), and the list of
    # entrants read into arrays at every choice (before; the same quality memory, so the
    # difference is the columns alone).
    for _ in range(choices):
        busy = live.busy()
        state = rng.getstate()
        t0, c0 = time.perf_counter(), time.process_time()
        c = mm.choose(live.kept, live.played, next_pair=live.next_pair, rng=rng, busy=busy)
        kept_ms.append(1000 * (time.perf_counter() - t0))
        kept_cpu.append(1000 * (time.process_time() - c0))
        rng2 = random.Random()
        rng2.setstate(state)
        t0, c0 = time.perf_counter(), time.process_time()
        listed = mm.choose(
            list(live.entrants), live.played, next_pair=live.next_pair, rng=rng2, busy=busy
        )
        listed_ms.append(1000 * (time.perf_counter() - t0))
        listed_cpu.append(1000 * (time.process_time() - c0))
        same_live = same_live and listed == c
        picked.append(c)
        live.after(c)
    small, s_played, s_busy, s_next = synthetic_field(old_entrants, seed)
    # The same choice both ways on the smaller field (the check that nothing changed).
    same = mm.choose(
        small, s_played, next_pair=s_next, rng=random.Random(seed), busy=s_busy
    ) == _choose_by_rank(mm, small, s_played, s_next, random.Random(seed), s_busy)
    # A fresh matchmaker each time: the scan as it was, every pair's quality computed anew.
    old_ms = _time(
        lambda: _choose_by_rank(Matchmaker(), small, s_played, s_next, rng, s_busy), old_choices
    )
    new_small_ms = _time(
        lambda: mm.choose(small, s_played, next_pair=s_next, rng=rng, busy=s_busy), choices
    )
    old_p50 = statistics.median(old_ms)
    return {
        "entrants": entrants,
        "pairs_played": live.played.total,
        "in_play": len(live.in_play),
        "choices": choices,
        "choice_ms_p50": round(statistics.median(kept_ms), 2),
        "choice_ms_p95": round(_p95(kept_ms), 2),
        "choice_cpu_ms_p50": round(statistics.median(kept_cpu), 2),
        "choice_cpu_ms_p95": round(_p95(kept_cpu), 2),
        "listed_ms_p50": round(statistics.median(listed_ms), 2),
        "listed_ms_p95": round(_p95(listed_ms), 2),
        "listed_cpu_ms_p50": round(statistics.median(listed_cpu), 2),
        "listed_cpu_ms_p95": round(_p95(listed_cpu), 2),
        "same_choice_kept_and_listed": same_live,
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
    mm: Matchmaker,
    field: list[LadderEntrant],
    played: PairCounts,
    next_pair: int,
    rng: random.Random,
    busy: frozenset[int],
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
        f" (CPU {r['choice_cpu_ms_p50']:.2f} / {r['choice_cpu_ms_p95']:.2f} ms), the field kept "
        "between choices and changed as a running ladder changes it",
        f"  from the entrants read again at each choice: {r['listed_ms_p50']:.2f} ms p50, "
        f"{r['listed_ms_p95']:.2f} ms p95 (CPU {r['listed_cpu_ms_p50']:.2f} / "
        f"{r['listed_cpu_ms_p95']:.2f} ms); same pairs: "
        f"{'yes' if r['same_choice_kept_and_listed'] else 'NO'}",
        f"  {r['chosen']}",
        f"all-pairs scan (the choice before), at {r['old_entrants']:,} entrants: "
        f"{r['old_choice_ms_p50']:.1f} ms p50, {r['old_choice_ms_p95']:.1f} ms p95 "
        f"({r['old_choices']} choices); now {r['new_at_old_entrants_ms_p50']:.2f} ms p50; "
        f"same pair: {'yes' if r['same_choice'] else 'NO'}",
        f"  at {r['entrants']:,} entrants it would take about "
        f"{r['old_at_entrants_ms_estimate'] / 1000:,.0f} s a choice (grows with the square)",
    ])  # fmt: skip
