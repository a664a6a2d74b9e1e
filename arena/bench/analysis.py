"""``arena bench analysis``: the double-dummy solver's speed on random deals and whole matches.

Deals are the engine's own: a seeded match, random draws, no Double Nil, and each seat bidding
its double-dummy tricks give or take one (a 0 is a Nil), so that contracts sit where the search
is hardest (near par, where a trick changes the score). Timed per deal: ``solve`` of the first
lead, cold (a new search and table), which is the par and the value of every legal card.
Timed per match: ``analyse_match`` of a 13-hand match of such deals played with random legal
cards, every play decision analysed. CPU time of this process (one core), so that other load
on the machine counts less.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from arena.analysis import C_SEARCH, Position, analyse_match, new_search, solve, trick_payoff
from arena.rules import Action, Decision, Match, RuleSet


def _deal_actions(m: Match, rng: random.Random) -> list[Action]:
    """Play ``m`` from the start of a hand to its first lead: random draws, no Double Nil,
    bids at the double-dummy tricks give or take one."""
    actions: list[Action] = []
    while m.decision is not Decision.PLAY:
        decision = m.decision
        if decision is Decision.DOUBLE_NIL:
            action: Action = False
        elif decision is Decision.BID:
            seat = m.to_act
            assert seat is not None
            h = [sum(1 << c for c in m.hand(s)) for s in (0, 1)]
            tricks0 = new_search(trick_payoff()).value(h[0], h[1], m.first_drawer ^ 1, -1, 0, False)
            assert tricks0 is not None  # a search without a limit or a deadline ends
            tricks = tricks0 if seat == 0 else 13 - tricks0
            action = max(0, min(13, tricks + rng.choice((-1, 0, 0, 1))))
        else:
            action = m.random_action(rng)
        m.apply(action)
        actions.append(action)
    return actions


def _quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def measure(
    deals: int = 1000, matches: int = 5, seed: int = 0, python_deals: int = 20
) -> dict[str, Any]:
    rng = random.Random(seed)
    clock = time.process_time
    times: list[float] = []
    nodes: list[int] = []
    positions: list[Position] = []
    for i in range(deals):
        m = Match(seed + i, RuleSet())
        _deal_actions(m, rng)
        p = Position.of(m)
        positions.append(p)
        t = clock()
        search = new_search(p.payoff())
        solve(p, search)
        times.append(clock() - t)
        nodes.append(search.nodes)
    python_times: list[float] = []
    for p in positions[:python_deals]:
        t = clock()
        solve(p, new_search(p.payoff(), python=True))
        python_times.append(clock() - t)
    match_times: list[float] = []
    decisions = 0
    for j in range(matches):
        m = Match(10_000 + seed + j, RuleSet(max_hands=13))
        actions: list[Action] = []
        while not m.is_over:
            if m.decision is Decision.PLAY:
                action = m.random_action(rng)
                m.apply(action)
                actions.append(action)
            else:
                actions.extend(_deal_actions(m, rng))
        t = clock()
        analysis = analyse_match(m.seed, m.rules, actions)
        match_times.append(clock() - t)
        decisions += len(analysis.plays)
    return {
        "c_search": C_SEARCH is not None,
        "deals": deals,
        "solve_median_ms": 1e3 * statistics.median(times),
        "solve_p99_ms": 1e3 * _quantile(times, 0.99),
        "solve_worst_ms": 1e3 * max(times),
        "solve_mean_ms": 1e3 * statistics.fmean(times),
        "nodes_median": statistics.median(nodes),
        "nodes_worst": max(nodes),
        "python_deals": len(python_times),
        "python_solve_median_ms": 1e3 * statistics.median(python_times) if python_times else None,
        "python_over_c_median": (
            statistics.median(python_times) / statistics.median(times[: len(python_times)])
            if python_times
            else None
        ),
        "matches": matches,
        "hands_per_match": 13,
        "match_median_s": statistics.median(match_times) if match_times else None,
        "match_worst_s": max(match_times) if match_times else None,
        "decision_mean_ms": 1e3 * sum(match_times) / decisions if decisions else None,
    }


def describe(r: dict[str, Any]) -> str:
    lines = [
        f"double-dummy solver ({'C' if r['c_search'] else 'Python'} search), CPU time of one core",
        f"  {r['deals']} deals, first lead solved cold (par and every card): median "
        f"{r['solve_median_ms']:.2f} ms, p99 {r['solve_p99_ms']:.1f} ms, worst "
        f"{r['solve_worst_ms']:.1f} ms, mean {r['solve_mean_ms']:.2f} ms; nodes median "
        f"{r['nodes_median']:.0f}, worst {r['nodes_worst']}",
    ]
    if r["python_deals"]:
        lines.append(
            f"  Python search on the first {r['python_deals']} deals: median "
            f"{r['python_solve_median_ms']:.1f} ms ({r['python_over_c_median']:.0f}x the C "
            "search's median on the same deals)"
        )
    if r["matches"]:
        lines.append(
            f"  {r['matches']} matches of 13 hands, every play analysed: median "
            f"{r['match_median_s']:.2f} s, worst {r['match_worst_s']:.2f} s, "
            f"{r['decision_mean_ms']:.2f} ms a play decision"
        )
    return "\n".join(lines)
