"""``arena tournament watch ID`` and ``arena tournament show ID --server``: re-attach to a
tournament's progress, locally (a process playing it on the same database: its matches are
followed in the store) or on a server (its ``WatchTournament`` stream), then print its report."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import typer

POLL_S = 1.0


class _Lines:
    """Off a terminal: one line on stderr per match recorded (fits 80 columns)."""

    def __init__(self) -> None:
        self._names: list[str] = []
        self._done = 0
        self._total = 0
        self._id = 0

    def start(self, tournament_id: int, bots: Any, done: int, total: int) -> None:
        self._id, self._names, self._done, self._total = tournament_id, list(bots), done, total

    def bot_failed(self, bot: str, reason: str) -> None:
        print(f"{bot} could not play: {reason}", file=sys.stderr)

    def match_done(self, game: Any) -> None:
        self._done += 1
        a, b = (self._names[i] if i < len(self._names) else "?" for i in game.seats)
        line = (
            f"[{self._done}/{self._total}] g{game.index} {a} vs {b} "
            f"{game.scores[0]} to {game.scores[1]} {game.termination}"
        )
        print(line[:80], file=sys.stderr)

    def stop(self) -> None:
        pass


def _reporter(as_json: bool) -> Any:
    from rich.console import Console

    from arena.tournament import QuietReporter, TerminalReporter

    if as_json:
        return QuietReporter()
    return TerminalReporter(Console()) if sys.stdout.isatty() else _Lines()


def remote_rows(server: str, token: str | None, ca_file: Path | None) -> list[dict[str, Any]]:
    """``arena tournament list --server``: the rows the local list prints."""
    from arena._gen.arena.v1 import arena_pb2 as pb
    from arena.cli.remote import connect
    from arena.service.convert import from_timestamp

    with connect(server, token, ca_file) as client:
        ts = client.list_tournaments()
    return [
        {
            "id": t.id,
            "status": pb.TournamentState.Name(t.state).removeprefix("TOURNAMENT_STATE_").lower(),
            "done": t.matches_done,
            "total": t.matches_total,
            "bots": list(t.bots),
            "created_at": from_timestamp(t.created_at).isoformat(timespec="seconds"),
        }
        for t in ts
    ]


def remote_show(
    server: str,
    token: str | None,
    tournament_id: int,
    as_json: bool,
    ca_file: Path | None,
    *,
    matches: bool = False,
) -> None:
    """``arena tournament show ID --server [--matches]``: as the local show prints it."""
    from arena.cli.remote import connect, report_parts
    from arena.cli.tournament_format import report

    with connect(server, token, ca_file) as client:
        t = client.get_tournament(tournament_id)
    if not matches:
        report(*report_parts(t), as_json)
        return
    from arena.cli.match_list import report_with_matches
    from arena.cli.remote_logs import list_matches

    rows = list_matches(server, token, tournament_id=tournament_id, bot=None, ca_file=ca_file)
    report_with_matches(tournament_id, report_parts(t), rows, as_json)


def remote_watch(
    server: str, token: str | None, tournament_id: int, as_json: bool, ca_file: Path | None
) -> None:
    """The server's stream of the tournament: every match recorded so far, then each new one."""
    from arena.cli.remote import connect, report_parts, stream_progress
    from arena.cli.tournament_format import report

    reporter = _reporter(as_json)
    with connect(server, token, ca_file) as client:
        t = client.get_tournament(tournament_id)
        try:
            final = stream_progress(client, t.id, list(t.bots), t.matches_total, reporter)
        except KeyboardInterrupt:
            raise typer.Exit(130) from None
    if final is not None:
        report(*report_parts(final), as_json)


def local_watch(store: Any, tournament_id: int, as_json: bool) -> None:
    """Follow a tournament another process plays on this database until nobody plays it."""
    from arena.cli.tournament_format import report
    from arena.tournament import tournament_records, tournament_standings

    reporter = _reporter(as_json)
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
    report(store.live_status(info), config, standings, as_json)
