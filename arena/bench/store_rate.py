"""``arena bench store --write-rate N``: how many match records a second the store takes.

This is the coordinator's side of a tournament: each finished match with its rating update and
the mark that its scheduled game is done, one writer, measured two ways in one run: one
``Store.record_match`` transaction per record, and group commit (``Store.record_matches``, as
``arena tournament run`` writes the results that arrived meanwhile, whether its matches run
here or on a Ray cluster), in groups of ``--group`` records (default 32). The records are
random matches played through the engine beforehand, so only the writing is
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
from arena.store import MatchToRecord, ScheduleEntry, Store, resolve_url


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


TYPICAL_HANDS = 13
WORST_HANDS = 200


def bench_match(seed: int, max_hands: int) -> MatchResult:
    """A random self-play match under a hand limit (``store_footprint.random_match``)."""
    return random_match(seed, RuleSet(max_hands=max_hands))


DEFAULT_GROUP = 32


def measure_write_rates(
    records: int, db: str, seed: int = 1, group: int = DEFAULT_GROUP
) -> dict[str, Any]:
    """Typical and worst-case matches, one transaction each and in groups, alternating."""
    out: dict[str, Any] = {}
    for size, hands in (("typical", TYPICAL_HANDS), ("worst", WORST_HANDS)):
        for g in (1, group):
            key = f"{size}-{'each' if g == 1 else 'group'}"
            out[key] = measure_write_rate(records, db, seed, hands, group=g)
    return out


def measure_write_rate(
    records: int, db: str, seed: int = 1, max_hands: int = TYPICAL_HANDS, group: int = 1
) -> dict[str, Any]:
    """Record ``records`` matches of a fresh scratch tournament into ``db``, ``group`` a
    transaction (1: ``record_match`` each)."""
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
        items = [
            MatchToRecord(result, game.seat_versions, game.id, game.pair_id)
            for game, result in zip(games, results, strict=True)
        ]
        t0, c0 = time.perf_counter(), _cpu()
        if group == 1:
            for it in items:
                store.record_match(
                    it.result,
                    seat_versions=it.seat_versions,
                    tournament_game_id=it.tournament_game_id,
                    pair_id=it.pair_id,
                )
        else:
            for start in range(0, len(items), group):
                for outcome in store.record_matches(items[start : start + group]):
                    if isinstance(outcome, Exception):
                        raise outcome
        seconds, cpu = time.perf_counter() - t0, _cpu() - c0
        if len(store.pending_games(tid)) != 0:
            raise RuntimeError(f"bench tournament {tid}: not every record was written")
    decisions = sum(len(m.decisions) for m in matches)
    return {
        "backend": resolve_url(db).get_backend_name(),
        "max_hands": max_hands,
        "records": records,
        "group": group,
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
        f"decisions), one writer, {_how(r.get('group', 1))}: {r['records_per_s']:.1f} records/s "
        f"({r['ms_per_record']:.2f} ms a record, of which {r['writer_cpu_ms_per_record']:.2f} ms "
        "the writer's CPU)"
    )


def _how(group: int) -> str:
    return "one transaction each" if group == 1 else f"group commit of {group}"
