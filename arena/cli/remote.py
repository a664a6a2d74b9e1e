"""The ``--server`` side of the CLI: the remote versions of the commands (over
``arena.service.client``). They print with the same formatters as the local commands
(``arena.cli.ratings_format``, ``arena.cli.tournament_format``) and import no command module."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Any

import typer

from arena.bot_protocol.messages import termination_from_pb
from arena.errors import ArenaError
from arena.referee.record import MatchResult
from arena.rules.ruleset import RuleSet
from arena.service.client import CA_FILE_ENV, TOKEN_ENV, ArenaClient

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


def tournament_cancel(
    server: str, token: str | None, tournament_id: int, ca_file: Path | None, insecure: bool
) -> None:
    """``arena tournament cancel ID --server``."""
    with connect(server, token, ca_file, insecure=insecure) as client:
        t = client.cancel_tournament(tournament_id)
    typer.echo(
        f"tournament {t.id} cancelled: {t.matches_done} of {t.matches_total} matches played "
        "and recorded"
    )


def ratings(
    server: str, token: str | None, as_json: bool, ca_file: Path | None = None, wide: bool = False
) -> None:
    """``arena ratings --server``: the server's leaderboard, printed as the local one is."""
    from arena.cli.ratings_format import print_leaderboard
    from arena.service.convert import leaderboard_row_from_pb

    with connect(server, token, ca_file) as client:
        board = [leaderboard_row_from_pb(e) for e in client.leaderboard()]
    print_leaderboard(board, as_json, wide)


def ladder_status(server: str, token: str | None, ca_file: Path | None = None) -> dict[str, Any]:
    """``arena ladder status --server``: the server's ladder, as the local status reads."""
    from arena.service.convert import ladder_status_from_pb

    with connect(server, token, ca_file) as client:
        return ladder_status_from_pb(client.ladder_status())


def fetch_match(
    server: str, token: str | None, match_id: str, ca_file: Path | None = None
) -> MatchResult:
    """``arena replay --server``: the match's full record, to replay and check locally."""
    from arena.service.convert import match_result_from_pb

    with connect(server, token, ca_file) as client:
        return match_result_from_pb(client.get_match(match_id))


def tournament_run(
    server: str,
    token: str | None,
    *,
    bots: list[str],
    games: int,
    concurrency: int | None,
    seed: int | None,
    move_timeout_ms: int,
    time_bank_ms: int,
    policy: str,
    max_faults: int,
    rules: RuleSet,
    deals: str,
    as_json: bool,
    ca_file: Path | None = None,
    insecure: bool = False,
    reveal_opponents: bool = False,
) -> None:
    """``arena tournament run --server``: start it on the server, follow its stream, report.

    The report is the server's own standings of the tournament, printed as a local run prints
    them. Ctrl-C stops watching; the tournament goes on on the server.
    """
    import sys

    from arena._gen.arena.v1 import arena_pb2 as pb
    from arena.bot_protocol.messages import ruleset_to_pb
    from arena.service.convert import DEALS

    if not bots:
        raise ArenaError("name the bots to play with --server (submitted bot names)")
    with connect(server, token, ca_file, insecure=insecure) as client:
        started = client.start_tournament(
            bots,
            games=games,
            concurrency=concurrency or 0,
            seed=seed,
            move_timeout_ms=move_timeout_ms,
            time_bank_ms=time_bank_ms,
            policy=policy,
            max_faults=max_faults,
            rules=ruleset_to_pb(rules),
            deals=DEALS.get(deals, pb.DEAL_MODE_UNSPECIFIED),
            reveal_opponents=reveal_opponents,
        )
        if not as_json:
            print(f"tournament {started.id} on {client.address}", file=sys.stderr)
        follow(client, started, as_json)


def tournament_resume(
    server: str,
    token: str | None,
    tournament_id: int,
    *,
    as_json: bool,
    ca_file: Path | None = None,
    insecure: bool = False,
) -> None:
    """``arena tournament resume ID --server``: the server plays the rest with its own runner;
    this follows its stream and prints the report, as ``tournament run --server`` does."""
    import sys

    with connect(server, token, ca_file, insecure=insecure) as client:
        resumed = client.resume_tournament(tournament_id)
        if not as_json:
            left = resumed.matches_total - resumed.matches_done
            print(
                f"tournament {resumed.id} resumed on {client.address}: {left} of "
                f"{resumed.matches_total} matches to play",
                file=sys.stderr,
            )
        follow(client, resumed, as_json)


def follow(client: ArenaClient, started: Any, as_json: bool) -> None:
    """Watch a tournament the server plays until it ends, with progress on a terminal, then
    print its report; exit 1 when it ended otherwise than finished. Ctrl-C stops watching
    only."""
    import sys

    from rich.console import Console

    from arena._gen.arena.v1 import arena_pb2 as pb
    from arena.cli.tournament_format import report
    from arena.tournament import TerminalReporter
    from arena.tournament.progress import QuietReporter

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
    if final.state != pb.TOURNAMENT_STATE_FINISHED:
        state = pb.TournamentState.Name(final.state).removeprefix("TOURNAMENT_STATE_").lower()
        print(
            f"arena: tournament {final.id} is {state} with {final.matches_done} of "
            f"{final.matches_total} matches recorded",
            file=sys.stderr,
        )
    report(*report_parts(final), as_json)
    if final.state != pb.TOURNAMENT_STATE_FINISHED:
        raise typer.Exit(1)


def stream_progress(
    client: ArenaClient, tournament_id: int, names: list[str], total: int, reporter: Any
) -> Any:
    """Feed the server's stream of a tournament (every match recorded so far, then each new
    one, until it ends) to a progress reporter; the tournament as the stream last told it
    (None when it told nothing). Ctrl-C propagates, the reporter stopped."""
    from arena.tournament import GameRecord

    final = None
    # The stream sends every match recorded so far first: the count starts from nothing.
    reporter.start(tournament_id, names, 0, total)
    try:
        for event in client.watch_tournament(tournament_id):
            if event.HasField("match"):
                reporter.match_done(game_record(event.match, names, GameRecord))
            final = event.tournament
    finally:
        reporter.stop()
    return final


def game_record(match: Any, names: list[str], record: Any) -> Any:
    """The progress reporter's view of a streamed match."""
    index = {name: i for i, name in enumerate(names)}
    return record(
        index=0,
        pair_id=int(match.pair_id) if match.pair_id.isdigit() else 0,
        seats=(index.get(match.seats[0].bot, 0), index.get(match.seats[1].bot, 0)),
        winner=match.winner if match.HasField("winner") else None,
        scores=(match.seats[0].score, match.seats[1].score),
        termination=termination_from_pb(match.termination),
        faults=(match.seats[0].faults, match.seats[1].faults),
    )


def report_parts(t: Any) -> tuple[Any, Any, Any]:
    """(info, config, standings) for ``arena.cli.tournament_format.report`` from a streamed
    tournament."""
    from types import SimpleNamespace

    from arena._gen.arena.v1 import arena_pb2 as pb
    from arena.bot_protocol.messages import ruleset_from_pb
    from arena.referee import ClockConfig, FaultPolicy
    from arena.service.convert import deals_from_pb, policy_from_pb, standings_from_pb
    from arena.store import TournamentStatus
    from arena.tournament import DEFAULT_DEALS, DealMode

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
    return info, config, standings_from_pb(t.standings, t.matches_done, t.matches_total)
