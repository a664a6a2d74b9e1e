"""``arena bench web``: the web arena's speed on a large generated database, and what live
viewers cost a running tournament.

1. **Pages.** A scratch SQLite database with N bots and M recorded matches is generated: a few
   hundred real matches are played through the engine by random players, and the M match rows
   reuse their records (seed, rules and decisions agree, so every match page replays), between
   random pairs of bots, with real TrueSkill updates in recorded order. ``arena web`` serves it
   from a child process; requests are made one at a time and the server's own time (the
   ``Server-Timing`` header: the handler, database included) and the client's are reported as
   p50 / p95 / max.
2. **Live.** Tournaments of two sample bots are played by this process into another scratch
   database while ``arena web`` serves it, alternately with no viewer and with V viewers
   connected to the tournament's event stream (from another child process, at the lowest CPU
   priority: they stand for browsers on other machines). A round plays the same tournament (the
   same deal and bot seeds) once each way, in alternating order, each timed from its bots
   being up to its last record; the figure is the geometric mean of the rounds' paired ratios of
   matches/s, with its 95 % interval.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.ratings import Rater
from arena.referee import ClockConfig, FaultPolicy
from arena.referee.record import DecisionRecord, Termination, encode_decisions
from arena.rules import ENGINE_VERSION, Match, RuleSet
from arena.store import Store
from arena.store.models import Bot, BotVersion, Rating
from arena.store.models import Match as MatchRow
from arena.store.models import Tournament as TournamentRow
from arena.store.models import TournamentGame as TournamentGameRow
from arena.tournament import (
    DEFAULT_DEALS,
    TournamentConfig,
    build_schedule,
    tournament_standings,
)
from arena.tournament.entrants import TournamentEntrant
from arena.tournament.progress import QuietReporter

RECORDS = 300
RECORD_MAX_HANDS = 6
TOURNAMENT_BOTS = 4
TOURNAMENT_DEALS = 8
"""Generated tournaments: round robins of 4 bots over 8 duplicate deals (96 matches each)."""


def _play_records(n: int, seed: int, max_hands: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rules = RuleSet(max_hands=max_hands)
    out = []
    for i in range(n):
        m = Match(seed * 100_003 + i, rules)
        decisions = []
        while not m.is_over:
            action = m.random_action(rng)
            seat, decision = m.to_act, m.decision
            assert seat is not None and decision is not None  # the match is not over
            decisions.append(DecisionRecord(seat, decision, action, rng.randrange(50, 5000)))
            m.apply(action)
        assert m.outcome is not None
        times = [[d.elapsed_us for d in decisions if d.seat == s] for s in (0, 1)]
        out.append(
            {
                "seed": m.seed,
                "rules": rules.to_dict(),
                "winner": m.outcome.winner,
                "scores": m.scores,
                "hands": m.outcome.hands_played,
                "termination": (
                    Termination.TARGET_REACHED.value
                    if m.outcome.termination.value == "target_reached"
                    else Termination.HAND_LIMIT.value
                ),
                "blob": encode_decisions(decisions),
                "count": len(decisions),
                "mean": [round(sum(t) / len(t)) for t in times],
                "max": [max(t) for t in times],
            }
        )
    return out


def generate(
    path: str, bots: int, matches: int, seed: int = 1, distinct: int = RECORDS
) -> dict[str, Any]:
    """Fill a new SQLite file with ``bots`` bots and ``matches`` rated matches (reusing
    ``distinct`` records played here), each a game of a generated tournament."""
    if Path(path).exists():
        raise ArenaError(f"{path} exists: the benchmark generates a new database")
    t0 = time.perf_counter()
    records = _play_records(distinct, seed, RECORD_MAX_HANDS)
    store = Store.open(path)
    rater = Rater(store.rating_config)
    rng = random.Random(seed)
    now = datetime.now(UTC).replace(tzinfo=None)
    ids = range(1, bots + 1)
    store.load_rows(
        [
            (Bot, [{"id": i, "name": f"bot{i:04d}", "created_at": now} for i in ids]),
            (
                BotVersion,
                [
                    {
                        "id": i, "bot_id": i, "version_label": "1.0",
                        "content_hash": f"{i:064x}", "source": "generated", "created_at": now,
                    }
                    for i in ids
                ],
            ),
        ]
    )  # fmt: skip
    ratings = {i: rater.initial() for i in range(1, bots + 1)}
    tallies = {i: [0, 0, 0, 0] for i in range(1, bots + 1)}  # matches, wins, losses, draws
    batch: list[dict[str, Any]] = []
    tournaments: list[dict[str, Any]] = []
    games: list[dict[str, Any]] = []
    start = now - timedelta(seconds=matches)
    schedule: list[Any] = []
    made = 0
    for n in range(1, matches + 1):
        if not schedule:
            # Every match is a game of a tournament: round robins of TOURNAMENT_BOTS bots over
            # TOURNAMENT_DEALS duplicate deals, one after another, as an arena's history is.
            made += 1
            tid = made
            entrants = rng.sample(range(1, bots + 1), min(TOURNAMENT_BOTS, bots))
            config = TournamentConfig(
                entrants=[TournamentEntrant(f"bot{v:04d}", "1.0", v, f"{v:064x}", "generated")
                          for v in entrants],
                games=TOURNAMENT_DEALS, seed=tid, concurrency=2, clock=ClockConfig(1000, 0),
                policy=FaultPolicy(), rules=RuleSet(max_hands=RECORD_MAX_HANDS),
                deals=DEFAULT_DEALS, bot_seed=tid,
            )  # fmt: skip
            tournaments.append({
                "id": tid, "status": "finished", "config": config.to_dict(),
                "created_at": start + timedelta(seconds=n),
                "finished_at": start + timedelta(seconds=n + 1000),
            })  # fmt: skip
            schedule = [
                (tid, g, entrants)
                for g in reversed(
                    build_schedule(len(entrants), TOURNAMENT_DEALS, tid, DEFAULT_DEALS)
                )
            ]
        tid, g, entrants = schedule.pop()
        a, b = entrants[g.seats[0]], entrants[g.seats[1]]
        r = records[n % distinct]
        games.append({
            "id": n, "tournament_id": tid, "ordinal": g.index, "pair_id": g.pair_id,
            "seed": g.seed, "seat0_version_id": a, "seat1_version_id": b, "status": "done",
            "match_id": f"gen-{n:06d}",
        })  # fmt: skip
        winner = r["winner"]
        ratings[a], ratings[b] = rater.rate(ratings[a], ratings[b], winner)
        for seat, v in enumerate((a, b)):
            t = tallies[v]
            t[0] += 1
            t[1 if winner == seat else 3 if winner is None else 2] += 1
        when = start + timedelta(seconds=n)
        batch.append(
            {
                "id": n,
                "match_id": f"gen-{n:06d}",
                "seed": r["seed"],
                "rules": r["rules"],
                "engine_version": ENGINE_VERSION,
                "seat0_version_id": a,
                "seat1_version_id": b,
                "winner": winner,
                "score0": r["scores"][0],
                "score1": r["scores"][1],
                "hands_played": r["hands"],
                "termination": r["termination"],
                "detail": "",
                "faults0": 0,
                "faults1": 0,
                "rated": True,
                "decisions": r["blob"],
                "decision_count": r["count"],
                "mean_decision_us0": r["mean"][0],
                "mean_decision_us1": r["mean"][1],
                "max_decision_us0": r["max"][0],
                "max_decision_us1": r["max"][1],
                "started_at": when,
                "finished_at": when,
                "recorded_at": when,
                "tournament_id": tid,
                "tournament_game_id": n,
                "pair_id": g.pair_id,
            }
        )
        if hasattr(MatchRow, "rating_order"):
            # Applied in recorded order, as an arena that rates matches one by one orders them.
            batch[-1].update(rating_order=n, rating_applied=True)
        if len(batch) == 20_000 or n == matches:
            store.load_rows(
                [(TournamentRow, tournaments), (TournamentGameRow, games), (MatchRow, batch)]
            )
            batch, games, tournaments = [], [], []
    store.load_rows(
        [
            (
                Rating,
                [
                    {
                        "bot_version_id": v,
                        "mu": mu,
                        "sigma": sigma,
                        "matches": tallies[v][0],
                        "wins": tallies[v][1],
                        "losses": tallies[v][2],
                        "draws": tallies[v][3],
                        "faults": 0,
                    }
                    for v, (mu, sigma) in ratings.items()
                ],
            )
        ],
        replace=True,
    )
    store.analyze()
    # Each finished tournament's standings kept, as the run that finishes one keeps them.
    for tid in range(1, made + 1):
        tournament_standings(store, tid)
    store.close()
    return {
        "bots": bots,
        "matches": matches,
        "distinct_records": distinct,
        "tournaments": made,
        "generate_s": round(time.perf_counter() - t0, 1),
        "db_mb": round(Path(path).stat().st_size / 2**20, 1),
    }


# -- the web server in a child process ---------------------------------------------------------


class _Server:
    def __init__(self, db: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "web", "--listen", "127.0.0.1:0", "--db", db],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stderr is not None
        line = self.proc.stderr.readline()
        found = re.search(r"(http://\S+)/", line)
        if not found:
            self.stop()
            raise ArenaError(f"arena web did not start: {line.strip()}")
        self.url = found.group(1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _summary(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "p50_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(p95, 2),
        "max_ms": round(ordered[-1], 2),
    }


def _time_requests(client: Any, paths: Sequence[str]) -> dict[str, Any]:
    server, cpu, wall = [], [], []
    for path in paths:
        t0 = time.perf_counter()
        r = client.get(path)
        wall.append((time.perf_counter() - t0) * 1000)
        if r.status_code != 200:
            raise ArenaError(f"GET {path}: HTTP {r.status_code}: {r.text[:200]}")
        timing = r.headers.get("server-timing", "")
        app = re.search(r"app;dur=([0-9.]+)", timing)
        used = re.search(r"cpu;dur=([0-9.]+)", timing)
        server.append(float(app.group(1)) if app else float("nan"))
        cpu.append(float(used.group(1)) if used else float("nan"))
    return {
        "requests": len(paths),
        "server": _summary(server),
        "server_cpu": _summary(cpu),
        "client": _summary(wall),
    }


def measure_pages(
    bots: int = 1000,
    matches: int = 100_000,
    requests: int = 100,
    seed: int = 1,
    db: str | None = None,
) -> dict[str, Any]:
    import httpx

    with tempfile.TemporaryDirectory(prefix="arena-bench-web-") as tmp:
        path = db or str(Path(tmp) / "web.db")
        if db is not None and Path(db).exists():
            # A database generated by an earlier run (--keep-db): reused as it is.
            with Store.open(db) as store:
                n = len(store.ratings())
                top = store.list_matches(limit=1, newest_first=True)
            count = top[0].sequence if top else 0
            if (n, count) != (bots, matches):
                raise ArenaError(f"{db} has {n} bots and {count} matches, not {bots} and {matches}")
            size = round(Path(db).stat().st_size / 2**20, 1)
            generated = {
                "bots": n,
                "matches": count,
                "distinct_records": RECORDS,
                "generate_s": 0.0,
                "db_mb": size,
                "reused": db,
            }
        else:
            generated = generate(path, bots, matches, seed)
        server = _Server(path)
        rng = random.Random(seed)
        try:
            with httpx.Client(base_url=server.url, timeout=120) as client:
                results: dict[str, Any] = {}
                # The API's default page (100 rows) and its largest (1,000: the whole board).
                for path_ in ("/", "/api/leaderboard", "/api/leaderboard?per_page=1000"):
                    _time_requests(client, [path_] * 3)  # warm-up
                    results[path_] = _time_requests(client, [path_] * requests)
                match_ids = [f"gen-{rng.randrange(1, matches + 1):06d}" for _ in range(requests)]
                _time_requests(client, [f"/matches/{m}" for m in match_ids[:3]])
                results["/matches/{id}"] = _time_requests(
                    client, [f"/matches/{m}" for m in match_ids]
                )
                results["/api/matches/{id}/frames"] = _time_requests(
                    client, [f"/api/matches/{m}/frames?view=seat0" for m in match_ids[:30]]
                )
                tids = [rng.randrange(1, max(2, matches // 96)) for _ in range(requests)]
                _time_requests(client, [f"/tournaments/{t}" for t in tids[:3]])
                results["/tournaments/{id}"] = _time_requests(
                    client, [f"/tournaments/{t}" for t in tids]
                )
                results["/api/tournaments/{id}"] = _time_requests(
                    client, [f"/api/tournaments/{t}" for t in tids]
                )
                results["/api/matches/{id}"] = _time_requests(
                    client, [f"/api/matches/{m}" for m in match_ids]
                )
                # The bot page waits for the rating history, built once in the background.
                t0 = time.perf_counter()
                while "history-building" in client.get("/bots/bot0001").text:
                    time.sleep(0.5)
                history_s = time.perf_counter() - t0
                names = [f"bot{rng.randrange(1, bots + 1):04d}" for _ in range(requests)]
                results["/bots/{name}"] = _time_requests(client, [f"/bots/{n}" for n in names])
                results["/api/bots/{name}"] = _time_requests(
                    client, [f"/api/bots/{n}" for n in names[:30]]
                )
        finally:
            server.stop()
    return {"generated": generated, "history_build_s": round(history_s, 1), "pages": results}


# -- live viewers ------------------------------------------------------------------------------


async def _viewers(url: str, n: int, ready: Path) -> None:
    """n event-stream connections; prints how many updates each received when stopped."""
    host, port = url.removeprefix("http://").split("/")[0].rsplit(":", 1)
    counts = [0] * n
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    path = "/" + url.removeprefix("http://").split("/", 1)[1]

    async def one(i: int) -> None:
        # Each from an address of its own on the loopback network (127.0.0.0/8), as browsers
        # on other machines: the server caps streams per address (arena.web.stream_limits).
        local = f"127.0.{1 + i // 250}.{1 + i % 250}" if host == "127.0.0.1" else None
        reader, writer = await asyncio.open_connection(
            host, int(port), local_addr=None if local is None else (local, 0)
        )
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        await writer.drain()
        if b" 200 " not in await reader.readline():
            counts[i] = -1  # refused: the report's minimum says so
            return
        while True:
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b"event: update"):
                counts[i] += 1

    tasks = [asyncio.create_task(one(i)) for i in range(n)]
    await asyncio.sleep(1.0)
    ready.write_text("ready")
    await stop.wait()
    for t in tasks:
        t.cancel()
    print(json.dumps({"updates": counts}), flush=True)


class _PlayWindow(QuietReporter):
    """The timed window of a tournament: from its bots being up to its last match recorded (bot
    start-up, which varies by a few tenths of a second, is left out), with the web server's and
    the viewers' CPU time over the same span."""

    def __init__(self, server_pid: int, client_pid: int | None) -> None:
        self._pids = (server_pid, client_pid)
        self.t0 = self.t1 = 0.0
        self.server0 = self.server1 = self.client0 = self.client1 = 0.0

    def _cpu(self) -> tuple[float, float]:
        server, client = self._pids
        return _cpu_s(server), 0.0 if client is None else _cpu_s(client)

    def start(self, tournament_id: int, bots: Sequence[str], done: int, total: int) -> None:
        self.server0, self.client0 = self._cpu()
        self.t0 = time.perf_counter()

    def match_done(self, game: Any) -> None:
        self.t1 = time.perf_counter()
        self.server1, self.client1 = self._cpu()


def _play(
    store: Store,
    bots: list[str],
    games: int,
    seed: int,
    viewers: int,
    server: _Server,
    max_hands: int,
) -> dict[str, Any]:
    from arena.tournament import TournamentSettings, create_tournament, run_tournament

    tid = create_tournament(
        store,
        TournamentSettings(
            bots=bots,
            games=games,
            concurrency=2,
            seed=seed,
            move_timeout_ms=5000,
            rules=RuleSet(max_hands=max_hands),
        ),
    )
    client = None
    if viewers:
        with tempfile.TemporaryDirectory() as tmp:
            ready = Path(tmp) / "ready"
            client = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "arena.bench.web",
                    "viewers",
                    f"{server.url}/tournaments/{tid}/events",
                    str(viewers),
                    str(ready),
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            deadline = time.monotonic() + 60
            while not ready.exists():
                if time.monotonic() > deadline or client.poll() is not None:
                    raise ArenaError("the viewers did not connect")
                time.sleep(0.1)
    window = _PlayWindow(server.proc.pid, client.pid if client is not None else None)
    standings = run_tournament(store, tid, reporter=window)
    seconds = window.t1 - window.t0
    server_cpu = window.server1 - window.server0
    updates: list[int] = []
    viewers_cpu = None
    if client is not None:
        viewers_cpu = window.client1 - window.client0
        time.sleep(1.5)  # the last update reaches the viewers
        client.send_signal(signal.SIGTERM)
        out, _ = client.communicate(timeout=30)
        updates = json.loads(out.strip().splitlines()[-1])["updates"]
    decisions = sum(m.decision_count for m in store.list_matches(tournament_id=tid))
    return {
        "viewers": viewers,
        "matches": standings.played,
        "decisions": decisions,
        "seconds": round(seconds, 2),
        "matches_per_s": round(standings.played / seconds, 3),
        "decisions_per_s": round(decisions / seconds, 1),
        "web_server_cpu_s": round(server_cpu, 3),
        "web_server_cpu_share": round(server_cpu / seconds, 4),
        "viewers_cpu_s": None if viewers_cpu is None else round(viewers_cpu, 3),
        "updates_min": min(updates) if updates else None,
        "updates_max": max(updates) if updates else None,
    }


def measure_live(
    viewers: int = 100, rounds: int = 10, games: int = 12, max_hands: int = 10, seed: int = 1
) -> dict[str, Any]:
    from arena.tournament.entrants import sample_bot_dirs

    samples = sample_bot_dirs()
    bots = [str(samples[name]) for name in ("random", "heuristic") if name in samples]
    if len(bots) < 2:
        raise ArenaError("the live benchmark needs the sample bots of a source checkout")
    runs = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-live-") as tmp:
        db = str(Path(tmp) / "live.db")
        with Store.open(db) as store:
            server = _Server(db)
            try:
                for r in range(rounds):
                    # Alternate the order, so drift in the machine's load favours neither side.
                    order = (0, viewers) if r % 2 == 0 else (viewers, 0)
                    for v in order:
                        runs.append(_play(store, bots, games, seed, v, server, max_hands))
            finally:
                server.stop()
    quiet = [r for r in runs if r["viewers"] == 0]
    watched = [r for r in runs if r["viewers"]]
    # Each round played the same tournament (same seeds, so the same work) once each way, in
    # alternating order: its ratio is paired, and the machine's slow drift cancels out of it.
    paired = [w["matches_per_s"] / q["matches_per_s"] for q, w in zip(quiet, watched, strict=True)]
    cpu = [r["web_server_cpu_share"] for r in watched]
    client_cpu = [r["viewers_cpu_s"] / r["seconds"] for r in watched]
    return {
        "viewers": viewers,
        "runs": runs,
        "round_ratios": [round(x, 3) for x in paired],
        **_ratio_interval(paired),
        "pooled_ratio": round(
            (sum(r["matches"] for r in watched) / sum(r["seconds"] for r in watched))
            / (sum(r["matches"] for r in quiet) / sum(r["seconds"] for r in quiet)),
            3,
        ),
        "web_server_cpu_share_with_viewers": round(statistics.mean(cpu), 4),
        "viewers_cpu_share": round(statistics.mean(client_cpu), 4),
    }


_T975 = (12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23)


def _ratio_interval(ratios: Sequence[float]) -> dict[str, Any]:
    """The geometric mean of paired ratios and its 95 % interval (Student's t on their logs)."""
    logs = [math.log(x) for x in ratios]
    mean = statistics.mean(logs)
    if len(logs) < 2:
        return {"ratio": round(math.exp(mean), 3), "ratio_low": None, "ratio_high": None}
    df = len(logs) - 1
    t = _T975[df - 1] if df <= len(_T975) else 1.96 + 2.5 / df
    half = t * statistics.stdev(logs) / math.sqrt(len(logs))
    return {
        "ratio": round(math.exp(mean), 3),
        "ratio_low": round(math.exp(mean - half), 3),
        "ratio_high": round(math.exp(mean + half), 3),
    }


def describe(result: dict[str, Any]) -> str:
    lines = []
    pages = result.get("pages")
    if pages:
        g = pages["generated"]
        lines.append(
            ("Reused" if g.get("reused") else "Generated")
            + f" {g['bots']} bots, {g['matches']} matches ({g['distinct_records']} "
            f"distinct records), {g['db_mb']} MB, in {g['generate_s']} s; rating history "
            f"built in {pages['history_build_s']} s."
        )
        lines.append(
            f"{'page':<32}{'n':>5}{'server p50':>12}{'p95':>9}{'cpu p50':>10}"
            f"{'p95':>9}{'client p50':>12}{'p95':>9}"
        )
        for path, r in pages["pages"].items():
            s, u, c = r["server"], r["server_cpu"], r["client"]
            lines.append(
                f"{path:<32}{r['requests']:>5}{s['p50_ms']:>10.1f}ms{s['p95_ms']:>7.1f}ms"
                f"{u['p50_ms']:>8.1f}ms{u['p95_ms']:>7.1f}ms"
                f"{c['p50_ms']:>10.1f}ms{c['p95_ms']:>7.1f}ms"
            )
    live = result.get("live")
    if live:
        lines.append("")
        lines.append(f"Live tournament, {live['viewers']} viewers on its event stream:")
        for r in live["runs"]:
            extra = (
                f", each viewer got {r['updates_min']}-{r['updates_max']} updates; "
                f"the viewers' client {r['viewers_cpu_s']} s"
                if r["viewers"]
                else ""
            )
            lines.append(
                f"  {r['viewers']:>3} viewers: {r['matches']} matches in {r['seconds']} s = "
                f"{r['matches_per_s']} matches/s; web server CPU {r['web_server_cpu_s']} s "
                f"({100 * r['web_server_cpu_share']:.1f} % of a core){extra}"
            )
        interval = (
            f" (95 % interval {live['ratio_low']}-{live['ratio_high']})"
            if live.get("ratio_low") is not None
            else ""
        )
        lines.append(
            f"  matches/s with viewers / without, geometric mean of the {len(live['round_ratios'])}"
            f" rounds' paired ratios: {live['ratio']}{interval}; pooled: {live['pooled_ratio']}"
        )
        lines.append(
            "  web server CPU while viewers watch: "
            f"{100 * live['web_server_cpu_share_with_viewers']:.1f} % of one core; the viewers' "
            f"client (niced, standing for browsers elsewhere) "
            f"{100 * live['viewers_cpu_share']:.1f} %"
        )
    return "\n".join(lines)


def _main(argv: list[str]) -> None:
    if argv[:1] == ["viewers"]:
        # The viewers stand for browsers on other machines: on this one they yield the CPU to
        # the tournament and the web server, whose cost is what is measured.
        os.nice(19)
        asyncio.run(_viewers(argv[1], int(argv[2]), Path(argv[3])))
        return
    raise SystemExit("usage: python -m arena.bench.web viewers URL N READY_FILE")


if __name__ == "__main__":
    _main(sys.argv[1:])
    os._exit(0)
