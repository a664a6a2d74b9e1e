"""The arena of a running arena service: ``arena.cli.interface.Arena`` over its gRPC client
(``arena.service.client``), what every command does with ``--server``. Its answers are turned
into what the local arena gives (``arena.service.convert``'s readers), so that both print with the
same formatters."""

from __future__ import annotations

import ipaddress
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import typer
from rich.console import Console

from arena._gen.arena.v1 import arena_pb2 as pb
from arena.bot_protocol.messages import ruleset_from_pb, ruleset_to_pb, termination_from_pb
from arena.cli.interface import LocalPlay, TournamentReport, TournamentRequest
from arena.errors import ArenaError
from arena.referee import ClockConfig, FaultPolicy, MatchResult
from arena.service.client import CA_FILE_ENV, TOKEN_ENV, ArenaClient
from arena.service.convert import (
    DEALS,
    deals_from_pb,
    from_timestamp,
    ladder_status_from_pb,
    leaderboard_row_from_pb,
    match_result_from_pb,
    policy_from_pb,
    standings_from_pb,
)
from arena.store import TournamentStatus
from arena.tournament import DEFAULT_DEALS, DealMode, GameRecord, QuietReporter, TerminalReporter

INSECURE_ENV = "ARENA_INSECURE"


def connect(
    server: str,
    token: str | None = None,
    ca_file: Path | None = None,
    *,
    insecure: bool = False,
) -> ArenaClient:
    """A client for ``--server``: ``https://`` (or a CA file) means TLS, a bare HOST:PORT not.

    A token sent in plaintext to another machine can be read by anyone on the way: refused
    unless ``insecure`` (``--insecure`` or ``ARENA_INSECURE=1``); loopback is fine."""
    tls = server.startswith("https://")
    address = server.removeprefix("https://").removeprefix("http://").rstrip("/")
    ca = ca_file or (Path(os.environ[CA_FILE_ENV]) if os.environ.get(CA_FILE_ENV) else None)
    token = token or os.environ.get(TOKEN_ENV) or None
    insecure = insecure or os.environ.get(INSECURE_ENV, "") not in ("", "0")
    if token and not (tls or ca) and not insecure and not is_loopback(address):
        raise ArenaError(
            f"refusing to send the token in plaintext to {address}: anyone on the way could "
            "read it. Use TLS (--server https://HOST:PORT, --ca-file), or pass --insecure "
            f"(or set {INSECURE_ENV}=1) if the network is yours"
        )
    return ArenaClient(address, token=token, tls=tls, ca_file=ca)


def is_loopback(address: str) -> bool:
    """Whether HOST:PORT names this machine (localhost, 127.0.0.0/8, ::1)."""
    host = address.rsplit(":", 1)[0] if address.count(":") == 1 or "]" in address else address
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True, slots=True)
class RemoteArena:
    """The arena service at ``server`` (HOST:PORT, https://HOST:PORT for TLS), called with
    ``token``; each method opens a connection (``connect``) and closes it again.

    ``db`` is a ``--db`` given beside ``--server``: a tournament run or resumed there refuses
    it, as it refuses every option the server decides for itself."""

    server: str
    token: str | None = None
    ca_file: Path | None = None
    insecure: bool = False
    db: str | None = None

    def _connect(self) -> ArenaClient:
        return connect(self.server, self.token, self.ca_file, insecure=self.insecure)

    def submit_bot(self, directory: Path, name: str | None) -> pb.SubmitBotResponse:
        with self._connect() as client:
            return client.submit_bot(directory, name)

    def bots(self, name: str | None = None) -> list[pb.Bot]:
        with self._connect() as client:
            return [client.get_bot(name)] if name else client.list_bots()

    def leaderboard(self, *, players: str = "all", recompute: bool = False) -> list[Any]:
        if recompute:
            raise typer.BadParameter("--recompute works on a local database, not with --server")
        if players != "all":
            raise typer.BadParameter("--players works on a local database, not with --server")
        with self._connect() as client:
            return [leaderboard_row_from_pb(e) for e in client.leaderboard()]

    def ladder_status(self) -> dict[str, Any]:
        with self._connect() as client:
            return ladder_status_from_pb(client.ladder_status())

    def match_record(self, ref: str) -> MatchResult:
        with self._connect() as client:
            return match_result_from_pb(client.get_match(ref))

    def match_rows(
        self, *, tournament_id: int | None = None, bot: str | None = None, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """Every match the server lists (all its pages; ``limit`` is not sent), newest first."""
        with self._connect() as client:
            return match_rows(client, tournament_id, bot)[::-1]

    def match_log(
        self, match_id: str, seat: int, *, log_dir: Path | None = None, startup: bool = False
    ) -> str:
        """The seat's log as the server keeps it; only the bot's owner may read it."""
        if startup:
            raise ArenaError("--startup reads a local database's logs, not --server's")
        with self._connect() as client:
            got = client.match_log(match_id, seat)
        if not got.kept:
            raise ArenaError(f"the server kept no log of seat {seat} of match {match_id}")
        return str(got.text)

    def tournament_rows(self) -> list[dict[str, Any]]:
        with self._connect() as client:
            ts = client.list_tournaments()
        return [
            {
                "id": t.id,
                "status": _state_name(t.state),
                "done": t.matches_done,
                "total": t.matches_total,
                "bots": list(t.bots),
                "created_at": from_timestamp(t.created_at).isoformat(timespec="seconds"),
            }
            for t in ts
        ]

    def tournament_report(self, tournament_id: int, *, matches: bool = False) -> TournamentReport:
        with self._connect() as client:
            out = report_of(client.get_tournament(tournament_id))
            if matches:
                out.matches = match_rows(client, tournament_id, None)
        return out

    def watch_tournament(self, tournament_id: int, reporter: Any) -> TournamentReport | None:
        """The server's stream of the tournament: every match recorded so far, then each new
        one."""
        with self._connect() as client:
            t = client.get_tournament(tournament_id)
            try:
                final = stream_progress(client, t.id, list(t.bots), t.matches_total, reporter)
            except KeyboardInterrupt:
                raise typer.Exit(130) from None
        return None if final is None else report_of(final)

    def cancel_tournament(self, tournament_id: int) -> tuple[int, int]:
        """A running tournament stops at once; its matches in play are recorded as aborted."""
        with self._connect() as client:
            t = client.cancel_tournament(tournament_id)
        return t.matches_done, t.matches_total

    def run_tournament(
        self, request: TournamentRequest, local: LocalPlay, *, as_json: bool
    ) -> TournamentReport:
        """Start it on the server and follow its stream; the report is the server's own
        standings. Ctrl-C stops watching; the tournament goes on on the server."""
        if local.ray is not None:
            raise ArenaError(
                "--ray and --server do not go together: the server runs its own matches"
            )
        self._refuse(
            {"--log-dir": local.log_dir, "--db": self.db, "--sandbox": local.sandbox},
            "the server plays the tournament in its own database, logs and sandbox (arena serve)",
        )
        if not request.bots:
            raise ArenaError("name the bots to play with --server (submitted bot names)")
        with self._connect() as client:
            started = client.start_tournament(
                request.bots,
                games=request.games,
                concurrency=request.concurrency or 0,
                seed=request.seed,
                move_timeout_ms=request.move_timeout_ms,
                time_bank_ms=request.time_bank_ms,
                policy=request.policy,
                max_faults=request.max_faults,
                rules=ruleset_to_pb(request.rules),
                deals=DEALS.get(request.deals, pb.DEAL_MODE_UNSPECIFIED),
                reveal_opponents=request.reveal_opponents,
            )
            if not as_json:
                print(f"tournament {started.id} on {client.address}", file=sys.stderr)
            return follow(client, started, as_json)

    def resume_tournament(
        self, tournament_id: int, local: LocalPlay, *, as_json: bool, wide: bool = False
    ) -> TournamentReport:
        """The server plays the rest with its own runner (the creator's token or an admin's);
        this follows its stream, as ``run_tournament`` does."""
        self._refuse(
            {
                "--concurrency": local.concurrency,
                "--log-dir": local.log_dir,
                "--db": self.db,
                "--sandbox": local.sandbox,
                "--ray": local.ray,
            },
            "the server plays the tournament as it was started, with its own settings "
            "(arena serve)",
        )
        with self._connect() as client:
            resumed = client.resume_tournament(tournament_id)
            if not as_json:
                left = resumed.matches_total - resumed.matches_done
                print(
                    f"tournament {resumed.id} resumed on {client.address}: {left} of "
                    f"{resumed.matches_total} matches to play",
                    file=sys.stderr,
                )
            return follow(client, resumed, as_json)

    @staticmethod
    def _refuse(given: dict[str, Any], why: str) -> None:
        """One line naming the local options given beside --server, which the server decides.
        (--data-dir is never among them: $ARENA_DATA_DIR may set it, and it is unused there.)"""
        chosen = [name for name, value in given.items() if value is not None]
        if chosen:
            raise ArenaError(f"{', '.join(chosen)} and --server do not go together: {why}")


def _state_name(state: int) -> str:
    return pb.TournamentState.Name(state).removeprefix("TOURNAMENT_STATE_").lower()


def follow(client: ArenaClient, started: Any, as_json: bool) -> TournamentReport:
    """Watch a tournament the server plays until it ends, with progress on a terminal; its
    report then (``unfinished`` says how it ended otherwise than finished). Ctrl-C stops
    watching only."""
    interactive = sys.stdout.isatty() and not as_json
    reporter = TerminalReporter(Console()) if interactive else QuietReporter()
    try:
        final = stream_progress(
            client, started.id, list(started.bots), started.matches_total, reporter
        )
    except KeyboardInterrupt:
        print(
            f"arena: stopped watching; tournament {started.id} goes on on the server "
            f"{client.address}",
            file=sys.stderr,
        )
        raise typer.Exit(130) from None
    assert final is not None
    out = report_of(final)
    if final.state != pb.TOURNAMENT_STATE_FINISHED:
        out.unfinished = (
            f"tournament {final.id} is {_state_name(final.state)} with {final.matches_done} of "
            f"{final.matches_total} matches recorded"
        )
    return out


def stream_progress(
    client: ArenaClient, tournament_id: int, names: list[str], total: int, reporter: Any
) -> Any:
    """Feed the server's stream of a tournament (every match recorded so far, then each new
    one, until it ends) to a progress reporter; the tournament as the stream last told it
    (None when it told nothing). Ctrl-C propagates, the reporter stopped."""
    final = None
    # The stream sends every match recorded so far first: the count starts from nothing.
    reporter.start(tournament_id, names, 0, total)
    try:
        for event in client.watch_tournament(tournament_id):
            if event.HasField("match"):
                reporter.match_done(game_record(event.match, names))
            final = event.tournament
    finally:
        reporter.stop()
    return final


def game_record(match: Any, names: list[str]) -> GameRecord:
    """The progress reporter's view of a streamed match."""
    index = {name: i for i, name in enumerate(names)}
    return GameRecord(
        index=0,
        pair_id=int(match.pair_id) if match.pair_id.isdigit() else 0,
        seats=(index.get(match.seats[0].bot, 0), index.get(match.seats[1].bot, 0)),
        winner=match.winner if match.HasField("winner") else None,
        scores=(match.seats[0].score, match.seats[1].score),
        termination=termination_from_pb(match.termination),
        faults=(match.seats[0].faults, match.seats[1].faults),
    )


def report_of(t: pb.Tournament) -> TournamentReport:
    """The report's three parts (info, config, standings) from a server's tournament."""
    status = {
        pb.TOURNAMENT_STATE_FINISHED: TournamentStatus.FINISHED,
        pb.TOURNAMENT_STATE_CANCELLED: TournamentStatus.CANCELLED,
        pb.TOURNAMENT_STATE_INTERRUPTED: TournamentStatus.INTERRUPTED,
    }.get(t.state, TournamentStatus.RUNNING)
    info = SimpleNamespace(
        id=t.id, status=status, games_done=t.matches_done, games_total=t.matches_total
    )
    config = SimpleNamespace(
        # None while secret: printed "secret until finished", never as 0 (arena.visibility).
        seed=None if t.seed_secret else t.seed,
        games=t.games,
        deals=DealMode(deals_from_pb(t.deals) or DEFAULT_DEALS.value),
        concurrency=t.concurrency,
        clock=ClockConfig(t.move_timeout_ms or 1000, t.time_bank_ms),
        policy=FaultPolicy(policy_from_pb(t.policy) or "forfeit", t.max_faults or 3),  # type: ignore[arg-type]
        entrants=[SimpleNamespace(name=e.bot, version=e.version, source="") for e in t.entrants],
        rules=ruleset_from_pb(t.rules) if t.HasField("rules") else None,
    )
    standings = standings_from_pb(t.standings, t.matches_done, t.matches_total)
    return TournamentReport(info, config, standings)


def match_rows(
    client: ArenaClient, tournament_id: int | None, bot: str | None
) -> list[dict[str, Any]]:
    """Every match the server lists (all its pages), oldest first, as
    ``arena.cli.local.match_row`` gives them locally."""
    out: list[dict[str, Any]] = []
    page = ""
    while True:
        got = client.list_matches(
            tournament_id=tournament_id or 0,
            bot=(bot or "").split("@", 1)[0],
            page_size=1000,
            page_token=page,
        )
        for m in got.matches:
            seats = [f"{s.bot}@{s.version}" if s.version else s.bot for s in m.seats]
            if bot and "@" in bot and bot not in seats:
                continue
            out.append(
                {
                    "match_id": m.id,
                    "sequence": None,
                    "tournament_id": m.tournament_id or None,
                    "seats": seats,
                    "winner": m.winner if m.HasField("winner") else None,
                    "scores": [s.score for s in m.seats],
                    "hands_played": m.hands_played,
                    "termination": termination_from_pb(m.termination),
                    "faults": [s.faults for s in m.seats],
                    "rated": m.rated,
                    "unrated_reason": m.unrated_reason or None,
                    "reason": m.detail,
                    # A sealed match's seed is the server's secret (arena.visibility).
                    "seed": None if m.sealed else m.seed,
                    "sealed": m.sealed,
                    "finished_at": from_timestamp(m.finished_at).isoformat(timespec="seconds"),
                }
            )
        page = got.next_page_token
        if not page:
            break
    return list(reversed(out))
