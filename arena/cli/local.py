"""The arena of a database on this machine: ``arena.cli.interface.Arena`` over the store and the
tournament runner (what every command does without ``--server``)."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from arena._gen.arena.v1 import arena_pb2 as pb
from arena.cli import compare
from arena.cli.interface import LocalPlay, TournamentReport, TournamentRequest
from arena.cli.options import check_sandbox, data_dir_of, tournament_logs
from arena.errors import ArenaError
from arena.referee import FaultPolicy, MatchResult
from arena.referee.record import result_from_dict
from arena.runtime.archive import ArchiveLimits, pack_directory
from arena.runtime.start_check import check_starts
from arena.service.convert import bot_to_pb, bot_version_to_pb
from arena.service.submission import BotSubmissions
from arena.store import NotFoundError, Store, TournamentStatus
from arena.tournament import (
    TerminalReporter,
    TournamentConfig,
    TournamentSettings,
    create_tournament,
    load_config,
    parse_deal_mode,
    run_tournament,
    tournament_records,
    tournament_standings,
)
from arena.tournament.botlogs import read_match_log, read_startup_log
from arena.tournament.entrants import default_sample_bots
from arena.tournament.progress import LineReporter
from arena.tournament.runner import comparison_state

POLL_S = 1.0
"""How often ``watch_tournament`` reads the store for matches another process recorded."""


@dataclass(frozen=True, slots=True)
class LocalArena:
    """The database ``db`` (a URL or SQLite file; None: $ARENA_DB, else ./arena.db) and its data
    folder (``data_dir``; None: the database's own, ``arena.cli.options.data_dir_of``)."""

    db: str | None = None
    data_dir: Path | None = None

    def submit_bot(self, directory: Path, name: str | None) -> pb.SubmitBotResponse:
        archive = pack_directory(directory)
        with Store.open(self.db) as store:
            submissions = BotSubmissions(
                store, data_dir_of(self.db, self.data_dir), ArchiveLimits(),
                start_check=check_starts,
            )  # fmt: skip
            done = submissions.submit(archive, name=name, owner_only=False)
            bot = next(b for b in store.list_bots() if b.name == done.version.name)
        return pb.SubmitBotResponse(
            bot=bot_to_pb(bot, bot.owner, with_versions=False),
            version=bot_version_to_pb(done.version),
            created=done.created,
        )

    def bots(self, name: str | None = None) -> list[pb.Bot]:
        with Store.open(self.db) as store:
            bots = store.list_bots()
        if name is None:
            return [bot_to_pb(b, b.owner, with_versions=False) for b in bots]
        for b in bots:
            if b.name == name:
                return [bot_to_pb(b, b.owner, with_versions=True)]
        known = ", ".join(b.name for b in bots) or "none registered yet"
        raise NotFoundError(f"unknown bot {name!r}; known bots: {known}")

    def leaderboard(self, *, players: str = "all", recompute: bool = False) -> list[Any]:
        with Store.open(self.db) as store:
            if recompute:
                applied = store.recompute_ratings()
                print(f"recomputed ratings from {applied} rated matches", file=sys.stderr)
            return list(store.leaderboard(players=players))

    def ladder_status(self) -> dict[str, Any] | None:
        with Store.open(self.db) as store:
            return store.ladder_status()

    def match_record(self, ref: str) -> MatchResult:
        """The match ``ref`` names: a JSON file of ``arena match --json``, or a recorded match
        id."""
        path = Path(ref)
        if path.is_file():
            try:
                return result_from_dict(json.loads(path.read_text()))
            except (ValueError, KeyError, TypeError) as exc:
                raise ArenaError(
                    f"{ref}: not a match written by `arena match --json` ({exc})"
                ) from None
        with Store.open(self.db) as store:
            return store.get_match(ref).result

    def match_rows(
        self, *, tournament_id: int | None = None, bot: str | None = None, limit: int | None = None
    ) -> list[dict[str, Any]]:
        with Store.open(self.db) as store:
            if tournament_id is not None:
                store.get_tournament(tournament_id)  # an unknown id is an error, not an empty list
            if bot is not None and "@" in bot:
                version = store.get_bot_version(bot).id
                found = store.list_matches(
                    tournament_id=tournament_id, bot_version_id=version, limit=limit,
                    newest_first=True,
                )  # fmt: skip
            else:
                found = store.list_matches(
                    tournament_id=tournament_id, bot=bot, limit=limit, newest_first=True
                )
        return [match_row(m) for m in found]

    def match_log(
        self, match_id: str, seat: int, *, log_dir: Path | None = None, startup: bool = False
    ) -> str:
        folder = data_dir_of(self.db, self.data_dir)
        read = read_startup_log if startup else read_match_log
        with Store.open(self.db) as store:
            text = read(store, match_id, seat, data_dir=folder, log_dir=log_dir)
        if text is None and startup:
            raise ArenaError(f"no start-up output marked in seat {seat}'s log of match {match_id}")
        if text is None:
            raise ArenaError(
                f"no log kept of seat {seat} of match {match_id} (it was played with --no-record "
                "or another --log-dir, or its logs were removed)"
            )
        return str(text)

    def tournament_rows(self) -> list[dict[str, Any]]:
        with Store.open(self.db) as store:
            infos = [store.live_status(i) for i in store.list_tournaments()]
        rows = []
        for info in infos:
            try:
                bots = TournamentConfig.from_dict(info.config).names
            except (ArenaError, KeyError, TypeError, ValueError):
                bots = []
            rows.append(
                {
                    "id": info.id,
                    "status": info.status.value,
                    "done": info.games_done,
                    "total": info.games_total,
                    "bots": bots,
                    "created_at": info.created_at.isoformat(timespec="seconds"),
                }
            )
        return rows

    def tournament_report(self, tournament_id: int, *, matches: bool = False) -> TournamentReport:
        with Store.open(self.db) as store:
            info, config, standings = tournament_standings(store, tournament_id)
            out = TournamentReport(store.live_status(info), config, standings)
            if matches:
                out.matches = [
                    match_row(m) for m in store.list_matches(tournament_id=tournament_id)
                ]
            elif config.compare is not None:
                out.comparison = comparison_state(store, tournament_id)
        return out

    def watch_tournament(self, tournament_id: int, reporter: Any) -> TournamentReport | None:
        """Follow a tournament another process plays on this database until nobody plays it."""
        with Store.open(self.db) as store:
            info, config, records, total = tournament_records(store, tournament_id)
            seen: set[int] = set()
            reporter.start(tournament_id, config.names, 0, total)
            try:
                while True:
                    live = store.tournament_player_active(tournament_id)
                    _, _, records, _ = tournament_records(store, tournament_id)
                    for r in records:
                        if r.index not in seen:
                            seen.add(r.index)
                            reporter.match_done(r)
                    if not live:
                        break
                    time.sleep(POLL_S)
            except KeyboardInterrupt:
                raise typer.Exit(130) from None
            finally:
                reporter.stop()
            info, config, standings = tournament_standings(store, tournament_id)
            return TournamentReport(store.live_status(info), config, standings)

    def cancel_tournament(self, tournament_id: int) -> tuple[int, int]:
        """A tournament not being played is marked cancelled, so it is never resumed."""
        with Store.open(self.db) as store:
            info = store.get_tournament(tournament_id)
            if info.status is not TournamentStatus.RUNNING:
                raise ArenaError(f"tournament {tournament_id} is {info.status.value}, not running")
            with store.tournament_player_lock(tournament_id):
                store.set_tournament_status(tournament_id, TournamentStatus.CANCELLED)
        return info.games_done, info.games_total

    def run_tournament(
        self, request: TournamentRequest, local: LocalPlay, *, as_json: bool
    ) -> TournamentReport:
        if request.reveal_opponents:
            raise ArenaError(
                "--reveal-opponents is for --server: a local tournament tells bots their "
                "opponents' names already"
            )
        deal_mode = parse_deal_mode(request.deals)
        mode = check_sandbox(local.sandbox)
        specs = list(request.bots)
        if not specs:
            dirs, skipped = default_sample_bots()
            for note in skipped:
                print(note, file=sys.stderr)
            specs = [str(d) for d in dirs]
        settings = TournamentSettings(
            bots=specs,
            games=request.games,
            concurrency=request.concurrency if request.concurrency is not None else 2,
            seed=request.seed,
            move_timeout_ms=request.move_timeout_ms,
            time_bank_ms=request.time_bank_ms,
            policy=FaultPolicy(request.policy, request.max_faults),  # type: ignore[arg-type]
            rules=request.rules,
            deals=deal_mode,
        )
        if local.ray is not None:
            from arena.distributed.cluster import connect  # Ray is imported only with --ray

            connect(local.ray)  # before anything is stored: a cluster that is not there is one line
        with Store.open(self.db) as store:
            tid = create_tournament(store, settings)
            return play_tournament(
                store, tid, None, as_json, mode, local.ray, local.ray_worker_cpus,
                log_dir=tournament_logs(self.db, tid, local.log_dir, self.data_dir),
            )  # fmt: skip

    def resume_tournament(
        self, tournament_id: int, local: LocalPlay, *, as_json: bool, wide: bool = False
    ) -> TournamentReport:
        mode = check_sandbox(local.sandbox)
        with Store.open(self.db) as store:
            log_dir = tournament_logs(self.db, tournament_id, local.log_dir, self.data_dir)
            if load_config(store, tournament_id)[1].compare is not None:
                if local.ray is not None:
                    raise ArenaError("a comparison is resumed here, without --ray")
                # Prints its own figures and exits with its verdict, as `arena compare` does.
                compare.play(store, tournament_id, local.concurrency, as_json, mode,
                             log_dir=log_dir, wide=wide)  # fmt: skip
            return play_tournament(
                store, tournament_id, local.concurrency, as_json, mode, local.ray,
                local.ray_worker_cpus, log_dir=log_dir,
            )  # fmt: skip


def play_tournament(
    store: Any,
    tournament_id: int,
    concurrency: int | None,
    as_json: bool,
    sandbox: str | None = None,
    ray: str | None = None,
    ray_worker_cpus: float = 2.0,
    log_dir: Any = None,
) -> TournamentReport:
    """Run the tournament's pending games with progress on a terminal; its report then. With
    ``ray``, on that Ray cluster (``ray`` is imported only then)."""
    executor = None
    made: list[Any] = []
    if ray is not None:
        from arena.distributed import ray_executor_factory  # Ray is imported only with --ray

        executor, made = ray_executor_factory(ray, worker_cpus=ray_worker_cpus)

    interactive = sys.stdout.isatty() and not as_json
    reporter = TerminalReporter(Console()) if interactive else LineReporter()
    info = store.get_tournament(tournament_id)
    if not as_json:
        left = info.games_total - info.games_done
        print(
            f"tournament {tournament_id}: {left} of {info.games_total} matches to play; "
            f"if it is interrupted, `arena tournament resume {tournament_id}` finishes it",
            file=sys.stderr,
        )
    try:
        run_tournament(
            store, tournament_id, concurrency=concurrency, reporter=reporter, sandbox=sandbox,
            executor=executor, log_dir=log_dir,
        )  # fmt: skip
    except KeyboardInterrupt:
        info = store.get_tournament(tournament_id)
        print(
            f"arena: interrupted: {info.games_done} of {info.games_total} matches of tournament "
            f"{tournament_id} are recorded; finish it with `arena tournament resume "
            f"{tournament_id}`",
            file=sys.stderr,
        )
        raise typer.Exit(130) from None
    info, config, standings = tournament_standings(store, tournament_id)
    nodes = [n for ex in made for n in ex.node_counts()] if ray is not None else None
    if nodes is not None and not as_json:
        for n in nodes:
            print(
                f"ray node {n['address']} ({n['node_id'][:12]}): {n['workers']} workers, "
                f"{n['matches']} matches, {n['lost']} lost and played again elsewhere",
                file=sys.stderr,
            )
    return TournamentReport(info, config, standings, nodes=nodes)


def match_row(m: Any) -> dict[str, Any]:
    """One recorded match (a ``MatchSummary``) as ``--json`` gives it."""
    return {
        "match_id": m.match_id,
        "sequence": m.sequence,
        "tournament_id": m.tournament_id,
        "seats": list(m.players),
        "winner": m.winner,
        "scores": list(m.scores),
        "hands_played": m.hands_played,
        "termination": m.termination.value,
        "faults": list(m.faults),
        "rated": m.rated,
        "unrated_reason": m.unrated_reason,
        "reason": m.detail,
        "seed": m.seed,
        "sealed": False,  # the database's own reader sees every deal; a server may seal one
        "finished_at": m.finished_at.isoformat(timespec="seconds"),
    }
