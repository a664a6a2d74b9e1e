"""``arena bench referee --sandbox compare``: what the sandbox costs, measured in one run.

Two pairs of benchmark bots (``arena.bench.first_legal``) are started, one pair as plain
supervised processes and one in the sandbox (own uid, cgroup, namespaces). Matches are played
through the referee on each pair in turns, ``slices`` of each, so that both sides see the same
machine load; the ratio of their decisions per second is the sandbox's cost on the match path.
Start-up is timed the same way, alternating plain and sandboxed starts of the benchmark bot and
of the ``random`` sample bot, from ``start_bot`` to a SERVING health check.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from arena.bench.first_legal import manifest_dir
from arena.bench.referee import _combine, measure_matches
from arena.referee import play_match

_SAMPLE = Path(__file__).resolve().parents[2] / "sample_bots" / "random"


def _startup_s(manifest: Any, sandbox: str) -> float:
    from arena.runtime import start_bot

    t0 = time.perf_counter()
    bot = start_bot(manifest, sandbox=sandbox)
    elapsed = time.perf_counter() - t0
    bot.stop()
    return elapsed


def measure_startup(startups: int = 5) -> dict[str, Any]:
    from arena.runtime import load_manifest

    out: dict[str, Any] = {}
    with TemporaryDirectory(prefix="arena-bench-") as tmp:
        bots = {"first_legal": load_manifest(manifest_dir(Path(tmp)))}
        if _SAMPLE.is_dir():
            bots["random"] = load_manifest(_SAMPLE)
        for name, manifest in bots.items():
            _startup_s(manifest, "on")  # warm the page cache for both sides
            times: dict[str, list[float]] = {"off": [], "on": []}
            for _ in range(startups):
                for mode in ("off", "on"):
                    times[mode].append(_startup_s(manifest, mode))
            plain, boxed = statistics.median(times["off"]), statistics.median(times["on"])
            out[name] = {
                "plain_s": round(plain, 3),
                "sandboxed_s": round(boxed, 3),
                "ratio": round(boxed / plain, 2),
                "starts": startups,
            }
    return out


def measure(
    concurrency: int = 1, seconds: float = 8.0, slices: int = 8, startups: int = 5
) -> dict[str, Any]:
    from arena.runtime import load_manifest, start_bot

    with TemporaryDirectory(prefix="arena-bench-") as tmp:
        pairs: dict[str, list[Any]] = {"off": [], "on": []}
        try:
            for mode in ("off", "on"):
                for i in range(2):
                    manifest = load_manifest(manifest_dir(Path(tmp), f"first_legal_{mode}_{i}"))
                    pairs[mode].append(start_bot(manifest, sandbox=mode))
                play_match((pairs[mode][0], pairs[mode][1]), seed=0)  # warm up
            measured: dict[str, list[dict[str, Any]]] = {"off": [], "on": []}
            per_slice = seconds / slices
            for i in range(slices):
                order = ("off", "on") if i % 2 == 0 else ("on", "off")
                for mode in order:
                    measured[mode].append(
                        measure_matches(
                            pairs[mode], concurrency=concurrency, seconds=per_slice,
                            matches=None, first_seed=1 + 1000 * i,
                        )
                    )  # fmt: skip
        finally:
            for bots in pairs.values():
                for bot in bots:
                    bot.stop()
    plain = _combine(measured["off"], "decisions", "decisions_per_s")
    boxed = _combine(measured["on"], "decisions", "decisions_per_s")
    # Each slice's pair ran back to back, under nearly the same load: the median of their
    # ratios is steadier than the ratio of the totals when the load swings during the run.
    pair_ratios = [
        on["decisions_per_s"] / off["decisions_per_s"]
        for off, on in zip(measured["off"], measured["on"], strict=True)
    ]
    return {
        "benchmark": "referee-sandbox",
        "concurrency": concurrency,
        "plain": plain,
        "sandboxed": boxed,
        "ratio": round(boxed["decisions_per_s"] / plain["decisions_per_s"], 3),
        "median_slice_ratio": round(statistics.median(pair_ratios), 3),
        "slice_ratios": [round(r, 3) for r in pair_ratios],
        "startup": measure_startup(startups),
    }


def describe(result: dict[str, Any]) -> str:
    p, s = result["plain"], result["sandboxed"]
    lines = [
        f"referee, K={result['concurrency']}: plain {p['decisions_per_s']:.0f} decisions/s, "
        f"sandboxed {s['decisions_per_s']:.0f} decisions/s ({p['slices']} slices of each, in "
        f"turns); sandboxed/plain = {result['ratio']:.3f} (target >= 0.95); median of the "
        f"slices' ratios {result['median_slice_ratio']:.3f}",
        f"  mean call: plain {p['mean_call_us']} us, sandboxed {s['mean_call_us']} us; arena "
        f"CPU per decision: plain {p['arena_cpu_us_per_call']} us, sandboxed "
        f"{s['arena_cpu_us_per_call']} us",
    ]
    for name, st in result["startup"].items():
        lines.append(
            f"start-up of {name} (median of {st['starts']}): plain {st['plain_s']:.3f} s, "
            f"sandboxed {st['sandboxed_s']:.3f} s; ratio {st['ratio']:.2f} (target <= 1.5)"
        )
    return "\n".join(lines)
