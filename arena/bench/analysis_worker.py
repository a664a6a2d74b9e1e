"""``arena bench analysis-worker DB``: does the background analysis slow refereeing?

Each turn copies DB (a database with recorded matches not yet analysed: the worker's backlog),
plays the same tournament of two sample bots into the copy, and times it; turns alternate
worker off and on (ABBA), and the figure is matches/s with the worker on over off, summed over
the turns. The worker is what ``arena serve`` and ``arena web`` run (``AnalysisWorkers``, one
process by default, SCHED_IDLE).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.analysis_worker import AnalysisWorkers

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"


def _turn(
    db: Path, tmp: Path, worker: bool, games: int, k: int, seed: int, max_load: float | None
) -> dict[str, Any]:
    from arena.store import Store
    from arena.tournament import TournamentSettings, create_tournament, run_tournament

    copy = tmp / f"turn-{time.monotonic_ns()}.db"
    shutil.copy(db, copy)
    url = f"sqlite:///{copy}"
    workers = AnalysisWorkers(url, 1, max_load=max_load) if worker else None
    with Store.open(url) as store:
        backlog = len(store.unanalysed_matches(10**6))
        tid = create_tournament(
            store,
            TournamentSettings(
                bots=[str(SAMPLES / "cautious"), str(SAMPLES / "heuristic")],
                games=games,
                concurrency=k,
                seed=seed,
            ),
        )
        if workers is not None:
            workers.start()
            time.sleep(2.0)  # the worker is at work before the clock starts
        try:
            t0 = time.perf_counter()
            run_tournament(store, tid, log_dir=tmp / "logs")
            elapsed = time.perf_counter() - t0
        finally:
            if workers is not None:
                workers.stop()
        left = len(store.unanalysed_matches(10**6))
        played = len(store.list_matches(tournament_id=tid))
    copy.unlink()
    return {
        "worker": worker,
        "matches": played,
        "seconds": elapsed,
        "backlog_before": backlog,
        "unanalysed_after": left,
    }


def measure(
    db: str,
    rounds: int = 2,
    games: int = 10,
    k: int = 2,
    seed: int = 1,
    max_load: float | None = None,
) -> dict[str, Any]:
    """``max_load``: the worker's load threshold (``AnalysisWorkers``; None: its default)."""
    turns = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-worker-") as tmp:
        for r in range(rounds):
            order = (False, True) if r % 2 == 0 else (True, False)
            for worker in order:
                turns.append(_turn(Path(db), Path(tmp), worker, games, k, seed, max_load))
    rate = {
        w: sum(t["matches"] for t in turns if t["worker"] == w)
        / sum(t["seconds"] for t in turns if t["worker"] == w)
        for w in (False, True)
    }
    return {
        "turns": turns,
        "matches_per_s_off": rate[False],
        "matches_per_s_on": rate[True],
        "on_over_off": rate[True] / rate[False],
    }


def describe(r: dict[str, Any]) -> str:
    lines = [
        f"matches/s with the analysis worker off {r['matches_per_s_off']:.3f}, on "
        f"{r['matches_per_s_on']:.3f}: on/off {r['on_over_off']:.3f}"
    ]
    for t in r["turns"]:
        lines.append(
            f"  worker {'on ' if t['worker'] else 'off'}: {t['matches']} matches in "
            f"{t['seconds']:.1f} s; unanalysed {t['backlog_before']} before, "
            f"{t['unanalysed_after']} after"
        )
    return "\n".join(lines)
