"""What a recorded match costs in the database: its decision record's bytes and its row's.

Two kinds of match are played and recorded through ``Store.record_match``:

- ``heuristic``: the heuristic sample bot against itself, played by the referee over loopback
  gRPC (in-process bot servers), with the referee's own timings: a typical match between bots
  that bid sensibly. Where the sample bots are not at hand (an installed package), the
  benchmarks' first-legal bot stands in and the kind is named ``first_legal``.
- ``random``: uniform random legal self-play through the engine (``Match.random_action``).
  Random bidding rarely reaches the target, so these matches mostly run to the hand limit
  (R-6.3): the worst case. Nothing answers over a network, so each decision's time is drawn
  uniformly from 200-2000 microseconds, what a loopback answer takes (2 bytes as a varint).

Each kind goes into its own scratch SQLite file, whose ``dbstat`` table gives the bytes the
``matches`` table and its indexes take; ``--db`` also records into that database (use a scratch
one: bench bots are registered in it) and, on PostgreSQL, reports the stored (compressed) size.
"""

from __future__ import annotations

import importlib.util
import random
import statistics
import sys
import tempfile
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.ratings import RatingConfig
from arena.referee.record import DecisionRecord, MatchResult, Termination, encode_decisions
from arena.rules import ENGINE_VERSION, Match, RuleSet
from arena.store import Store, resolve_url

HEURISTIC = Path(__file__).resolve().parents[2] / "sample_bots" / "heuristic" / "bot.py"


@dataclass(frozen=True, slots=True)
class _Connection:
    name: str
    channel: Any


def random_match(seed: int, rules: RuleSet | None = None) -> MatchResult:
    """A random self-play match through the engine, with loopback-like decision times."""
    rules = RuleSet() if rules is None else rules
    rng = random.Random(seed)
    match = Match(seed, rules)
    records = []
    started = datetime.now(UTC)
    while not match.is_over:
        seat, decision = match.to_act, match.decision
        assert seat is not None and decision is not None
        action = match.random_action(rng)
        match.apply(action)
        records.append(DecisionRecord(seat, decision, action, rng.randint(200, 2000)))
    outcome = match.outcome
    assert outcome is not None
    return MatchResult(
        match_id=uuid.uuid4().hex,
        seed=seed,
        rules=rules,
        engine_version=ENGINE_VERSION,
        players=("random", "random"),
        winner=outcome.winner,
        scores=outcome.scores,
        hands_played=outcome.hands_played,
        termination=Termination(outcome.termination.value),
        faults=(0, 0),
        detail="",
        decisions=tuple(records),
        started_at=started,
        finished_at=datetime.now(UTC),
    )


def _sample_bot() -> tuple[str, Any]:
    if HEURISTIC.is_file():
        spec = importlib.util.spec_from_file_location("arena_bench_heuristic", HEURISTIC)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        return "heuristic", module.HeuristicBot()
    from arena.bench.first_legal import FirstLegal

    return "first_legal", FirstLegal()


def refereed_matches(count: int, seed: int) -> tuple[str, list[MatchResult]]:
    import grpc

    from arena.referee.play import play_match
    from arena.sdk import start

    kind, bot = _sample_bot()
    servers = [start(bot, "127.0.0.1:0") for _ in range(2)]
    channels = [grpc.insecure_channel(s.address) for s in servers]
    try:
        for channel in channels:
            grpc.channel_ready_future(channel).result(timeout=10)
        conns = (_Connection(f"{kind}-a", channels[0]), _Connection(f"{kind}-b", channels[1]))
        results = [play_match(conns, seed=seed + i) for i in range(count)]
    finally:
        for channel in channels:
            channel.close()
        for server in servers:
            server.stop(grace=0)
    return kind, results


def _record(url: str, kind: str, results: list[MatchResult]) -> int:
    """Record ``results``; returns the seat-0 bot version, which tells these matches apart."""
    with Store.open(url, rating_config=RatingConfig()) as store:
        a = store.register_bot_version(f"bench-{kind}-a", "1", f"{kind}-a", "bench").id
        b = store.register_bot_version(f"bench-{kind}-b", "1", f"{kind}-b", "bench").id
        for r in results:
            store.record_match(r, seat_versions=(a, b))
    return a


def _sqlite_bytes(path: Path) -> dict[str, int]:
    import sqlite3

    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT name, SUM(payload), SUM(pgsize) FROM dbstat GROUP BY name"
        ).fetchall()
    table = [r for r in rows if r[0] == "matches"]
    indexes = [r for r in rows if r[0].startswith(("ix_matches_", "sqlite_autoindex_matches"))]
    return {
        "payload": int(table[0][1]),
        "pages": int(table[0][2]) + sum(int(r[2]) for r in indexes),
    }


def _postgres_bytes(url: str, seat0_version: int) -> dict[str, float]:
    """The stored (TOAST-compressed) blob, and the row itself with a pointer to it."""
    from sqlalchemy import text

    from arena.store.database import create_store_engine, resolve_url

    engine = create_store_engine(resolve_url(url))
    try:
        with engine.connect() as conn:
            blob, row = conn.execute(
                text(
                    "SELECT avg(pg_column_size(decisions)), avg(pg_column_size(m.*))"
                    " FROM matches m WHERE seat0_version_id = :v"
                ),
                {"v": seat0_version},
            ).one()
    finally:
        engine.dispose()
    return {"postgres_blob_bytes": float(blob), "postgres_row_bytes": float(row)}


def measure(matches: int = 10, seed: int = 1, db: str | None = None) -> dict[str, Any]:
    kind, refereed = refereed_matches(matches, seed)
    played = {kind: refereed, "random": [random_match(seed + i) for i in range(matches)]}
    out: dict[str, Any] = {"matches_per_kind": matches}
    for name, results in played.items():
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "footprint.db"
            _record(f"sqlite:///{path}", name, results)
            sizes = _sqlite_bytes(path)
        pg: dict[str, float] = {}
        if db is not None:
            seat0 = _record(db, name, results)
            if resolve_url(db).get_backend_name() == "postgresql":
                pg = _postgres_bytes(db, seat0)
        decisions = [len(r.decisions) for r in results]
        blobs = [len(encode_decisions(r.decisions)) for r in results]
        out[name] = {
            "hands": statistics.mean(r.hands_played for r in results),
            "decisions": statistics.mean(decisions),
            "blob_bytes": statistics.mean(blobs),
            "blob_bytes_max": max(blobs),
            "bytes_per_decision": sum(blobs) / sum(decisions),
            "sqlite_row_bytes": sizes["payload"] / len(results),
            "sqlite_on_disk_bytes": sizes["pages"] / len(results),
            **pg,
        }
    return out


def describe(result: dict[str, Any]) -> str:
    lines = [f"bytes a recorded match takes ({result['matches_per_kind']} matches of each kind)"]
    for name, m in result.items():
        if not isinstance(m, dict):
            continue
        lines.append(
            f"  {name:<11} {m['hands']:6.1f} hands  {m['decisions']:8.0f} decisions  "
            f"blob {m['blob_bytes']:8.0f} B (max {m['blob_bytes_max']}, "
            f"{m['bytes_per_decision']:.2f} B/decision)  SQLite row {m['sqlite_row_bytes']:8.0f} B"
            f"  on disk with indexes {m['sqlite_on_disk_bytes']:8.0f} B"
        )
        if "postgres_blob_bytes" in m:
            lines.append(
                f"  {'':<11} PostgreSQL: blob as stored {m['postgres_blob_bytes']:.0f} B "
                f"(TOAST), row {m['postgres_row_bytes']:.0f} B"
            )
    return "\n".join(lines)
