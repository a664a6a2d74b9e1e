"""``arena bench store --write-rate N``: how many match records a second the store takes.

This is the coordinator's side of a tournament: one ``Store.record_match`` per finished match,
with its rating update and the mark that its scheduled game is done, in one transaction, one
writer (as ``arena tournament run`` writes, whether its matches run here or on a Ray cluster).
The records are random matches played through the engine beforehand, so only the writing is
timed: with a 13-hand limit (about 700 decisions, the size of a typical match between the
heuristic sample bots) and with the default 200 hands (about 11,000 decisions, the worst case).
Wall time and this process's CPU per record are given: the CPU is what the coordinator spends
beside the database server's own work.
"""

from __future__ import annotations

import dataclasses
import resource
import time
import uuid
from typing import Any

from arena.bench.store_footprint import random_match
from arena.referee.record import MatchResult
from arena.rules import RuleSet
from arena.store import ScheduleEntry, Store, resolve_url


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


TYPICAL_HANDS = 13
WORST_HANDS = 200


def bench_match(seed: int, max_hands: int) -> MatchResult:
    """A random self-play match under a hand limit (``store_footprint.random_match``)."""
    return random_match(seed, RuleSet(max_hands=max_hands))


def measure_write_rates(records: int, db: str, seed: int = 1) -> dict[str, Any]:
    return {
        "typical": measure_write_rate(records, db, seed, TYPICAL_HANDS),
        "worst": measure_write_rate(records, db, seed, WORST_HANDS),
    }


def measure_write_rate(
    records: int, db: str, seed: int = 1, max_hands: int = TYPICAL_HANDS
) -> dict[str, Any]:
    """Record ``records`` matches of a fresh scratch tournament into ``db``."""
    matches = [bench_match(seed + i, max_hands) for i in range(records)]
    tag = uuid.uuid4().hex[:8]
    with Store.open(db) as store:
        a = store.register_bot_version(f"bench-rate-a-{tag}", "1", "a" * 56 + tag, "-")
        b = store.register_bot_version(f"bench-rate-b-{tag}", "1", "b" * 56 + tag, "-")
        entries = [
            ScheduleEntry(
                ordinal=i,
                seed=m.seed,
                seat_versions=(a.id, b.id) if i % 2 == 0 else (b.id, a.id),
                pair_id=i // 2,
            )
            for i, m in enumerate(matches)
        ]
        tid = store.create_tournament({"bench": "store write rate"}, entries)
        games = store.pending_games(tid)
        results = [
            dataclasses.replace(m, match_id=f"bench-{tag}-{i}") for i, m in enumerate(matches)
        ]
        t0, c0 = time.perf_counter(), _cpu()
        for game, result in zip(games, results, strict=True):
            store.record_match(
                result,
                seat_versions=game.seat_versions,
                tournament_game_id=game.id,
                pair_id=game.pair_id,
            )
        seconds, cpu = time.perf_counter() - t0, _cpu() - c0
    decisions = sum(len(m.decisions) for m in matches)
    return {
        "backend": resolve_url(db).get_backend_name(),
        "max_hands": max_hands,
        "records": records,
        "decisions_per_record": round(decisions / records, 1),
        "seconds": round(seconds, 3),
        "records_per_s": round(records / seconds, 1),
        "ms_per_record": round(1000 * seconds / records, 3),
        "writer_cpu_ms_per_record": round(1000 * cpu / records, 3),
    }


def describe_write_rates(result: dict[str, Any]) -> str:
    return "\n".join(describe_write_rate(r) for r in result.values())


def describe_write_rate(r: dict[str, Any]) -> str:
    return (
        f"{r['backend']}: {r['records']} match records ({r['max_hands']}-hand limit, mean "
        f"{r['decisions_per_record']} "
        f"decisions), one writer, one transaction each: {r['records_per_s']:.1f} records/s "
        f"({r['ms_per_record']:.2f} ms a record, of which {r['writer_cpu_ms_per_record']:.2f} ms "
        "the writer's CPU)"
    )
