"""``arena bench referee``: bot decisions per second through the referee, K matches at once.

Two benchmark bots (``arena.bench.first_legal``: the first legal option, at once) play whole
matches through ``play_match``, K in parallel threads, over the same transport as
``arena bench transport``. With ``--compare`` both are measured in one run on the same bot
processes and the ratio is printed: the referee's target is at least 0.8 of the raw rate.
"""

from __future__ import annotations

import itertools
import statistics
import threading
import time
from collections.abc import Sequence
from typing import Any

from arena.bench.transport import (
    bench_bots,
    cpu_meter,
    match_plan,
    measure_calls,
    measure_session_calls,
)
from arena.errors import ArenaError
from arena.referee import play_match


def measure_matches(
    bots: Sequence[Any],
    *,
    concurrency: int,
    seconds: float | None,
    matches: int | None,
    first_seed: int = 1,
    sessions: bool = True,
) -> dict[str, Any]:
    """Decisions per second of ``concurrency`` threads playing matches back to back.

    With ``seconds``, the matches in play when the time is up are stopped (``play_match``'s
    ``stop``), so that all ``concurrency`` matches run for the whole window and their decisions
    so far count; with ``matches``, that many are played to the end."""
    seeds = itertools.count(first_seed)
    lock = threading.Lock()
    decisions = [0] * concurrency
    played = [0] * concurrency
    call_us: list[list[int]] = [[] for _ in range(concurrency)]
    pair = (bots[0], bots[1])
    start = threading.Barrier(concurrency + 1)
    stop = threading.Event()
    budget = threading.Semaphore(matches) if matches is not None else None
    failures: list[str] = []

    def work(i: int) -> None:
        start.wait()
        while not stop.is_set():
            if budget is not None and not budget.acquire(blocking=False):
                return
            with lock:
                seed = next(seeds)
            result = play_match(pair, seed=seed, stop=stop, sessions=sessions)
            if result.faults != (0, 0) or result.termination.is_forfeit:
                failures.append(f"benchmark match {seed} faulted: {result.detail}")
                stop.set()
            decisions[i] += len(result.decisions)
            played[i] += 1
            call_us[i].extend(d.elapsed_us for d in result.decisions)

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(concurrency)]
    for t in threads:
        t.start()
    timer = threading.Timer(seconds, stop.set) if seconds is not None else None
    cpu: dict[str, Any] = {}
    with cpu_meter(bots, cpu, lambda: sum(decisions)):
        t0 = time.perf_counter()
        start.wait()
        if timer is not None:
            timer.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
    if timer is not None:
        timer.cancel()
    if failures:
        raise ArenaError(f"the benchmark is void: {failures[0]}")
    total = sum(decisions)
    flat = [x for c in call_us for x in c]
    return {
        "decisions_per_s": round(total / elapsed, 1),
        "concurrency": concurrency,
        "seconds": round(elapsed, 3),
        "matches": sum(played),
        "stopped_at_time_limit": seconds is not None,
        "decisions": total,
        "mean_call_us": round(statistics.fmean(flat), 1) if flat else None,
        **cpu,
    }


def _combine(slices: list[dict[str, Any]], count: str, rate: str) -> dict[str, Any]:
    """Several measured slices as one: totals, and CPU per call weighted by the counts."""
    total = sum(x[count] for x in slices)
    seconds = sum(x["seconds"] for x in slices)
    out = dict(slices[0])
    out.update({count: total, "seconds": round(seconds, 3), rate: round(total / seconds, 1)})
    for key in ("arena_cpu_us_per_call", "bots_cpu_us_per_call", "mean_call_us"):
        if all(x.get(key) is not None for x in slices):
            out[key] = round(sum(x[key] * x[count] for x in slices) / max(1, total), 1)
    if count == "decisions":
        out["matches"] = sum(x["matches"] for x in slices)
    out.pop("latency_us", None)
    out["slices"] = len(slices)
    return out


def measure(
    concurrency: int = 1,
    seconds: float | None = 5.0,
    matches: int | None = None,
    compare: bool = False,
    slices: int = 4,
    sessions: bool = True,
) -> dict[str, Any]:
    """Start two benchmark bots, measure the referee (and the raw transport), stop them.

    With ``compare``, the transport and the referee are measured in turns, ``slices`` of each
    (``seconds`` is the time of each side), so that both see the same machine load; the ratio
    of the pooled rates is given, and each slice pair's with their median. The bots
    serve ``PlaySession``, so the referee plays over sessions and is compared with session
    messages; with ``sessions`` False, over unary RPCs, compared with unary calls."""
    with bench_bots(2) as bots:
        # Warm up: the first calls on a channel connect and fill caches.
        play_match((bots[0], bots[1]), seed=0, sessions=sessions)
        if not compare:
            return {
                "benchmark": "referee",
                "transport_kind": "session" if sessions else "unary",
                **measure_matches(
                    bots,
                    concurrency=concurrency,
                    seconds=seconds,
                    matches=matches,
                    sessions=sessions,
                ),
            }
        plan = match_plan()
        per_slice = (seconds or 5.0) / slices
        raw: list[dict[str, Any]] = []
        refereed: list[dict[str, Any]] = []
        for i in range(slices):
            raw.append(
                (measure_session_calls if sessions else measure_calls)(
                    bots, plan, concurrency=concurrency, seconds=per_slice, warm_up=i == 0
                )
            )
            refereed.append(
                measure_matches(
                    bots,
                    concurrency=concurrency,
                    seconds=per_slice,
                    matches=None,
                    first_seed=1 + 1000 * i,
                    sessions=sessions,
                )
            )
    transport = _combine(raw, "calls", "calls_per_s")
    result: dict[str, Any] = {
        "benchmark": "referee",
        "transport_kind": "session" if sessions else "unary",
        **_combine(refereed, "decisions", "decisions_per_s"),
        "transport": transport,
        "transport_calls_per_s": transport["calls_per_s"],
    }
    result["ratio"] = round(result["decisions_per_s"] / transport["calls_per_s"], 3)
    # Each slice pair's own ratio too: the machine's speed can drift between slices, and the
    # median of the pairs is what a drift moves least.
    pairs = sorted(
        r["decisions_per_s"] / t["calls_per_s"] for t, r in zip(raw, refereed, strict=True)
    )
    result["slice_ratios"] = [round(x, 3) for x in pairs]
    result["median_slice_ratio"] = round(statistics.median(pairs), 3)
    return result


def describe(result: dict[str, Any]) -> str:
    stopped = ", those in play stopped at the time limit" if result["stopped_at_time_limit"] else ""
    text = (
        f"referee: {result['decisions_per_s']:.0f} decisions/s with {result['concurrency']} "
        f"concurrent match(es) ({result['decisions']} decisions in {result['matches']} "
        f"matches{stopped}, {result['seconds']:.1f} s; mean call {result['mean_call_us']} us)"
        f"\n  CPU per decision: {result['arena_cpu_us_per_call']} us in this process, "
        f"{result['bots_cpu_us_per_call']} us in the bots"
    )
    if "ratio" in result:
        t = result["transport"]
        ratios = result["slice_ratios"]
        text += (
            f"\ntransport ({result.get('transport_kind', 'unary')}): "
            f"{t['calls_per_s']:.0f} calls/s (CPU per call: "
            f"{t['arena_cpu_us_per_call']} us in this process, {t['bots_cpu_us_per_call']} us in "
            f"the bots)\nreferee/transport = {result['ratio']:.2f} (target >= 0.8); each of the "
            f"{len(ratios)} slice pairs: median {result['median_slice_ratio']:.2f}, "
            f"{ratios[0]:.2f} to {ratios[-1]:.2f}"
        )
    return text
