"""``arena match list``: find recorded matches by bot, by tournament, or those with faults.

Newest first, a page of 50 at a time (``--page``, ``--all``). Each line gives what a later
command needs: the match id (``arena replay ID``, ``arena match logs ID --seat N``), when it
finished, the two seats (seat 0 first), the result and, for a forfeit or a fault, the recorded
reason.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from arena.cli.open_arena import open_arena
from arena.cli.options import CaFileOption, DbOption, ServerOption, TokenOption
from arena.cli.tournament_format import report, to_json
from arena.store.rated import describe_unrated

PAGE_SIZE = 50


def _result_text(row: dict[str, Any]) -> str:
    if row["winner"] is None:
        if row["termination"] == "aborted":
            return "aborted"
        return "no winner" if row["termination"].startswith("forfeit_") else "draw"
    return f"seat {row['winner']} won"


def has_fault(row: dict[str, Any]) -> bool:
    return str(row["termination"]).startswith("forfeit_") or any(row["faults"])


def _finished(row: dict[str, Any]) -> str:
    """``YYYY-MM-DD HH:MM`` of the recorded ISO time, in the time zone it was recorded in."""
    return str(row["finished_at"])[:16].replace("T", " ")


def print_matches(rows: list[dict[str, Any]], *, faults: bool, as_json: bool) -> None:
    """The rows (``match_row``'s), as ``arena match list`` prints them locally or remotely: a
    header, then one aligned line a match."""
    if faults:
        rows = [r for r in rows if has_fault(r)]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        typer.echo("no matches recorded" + (" with faults" if faults else ""))
        return
    cells = [
        (
            r["match_id"],
            _finished(r),
            f"{r['seats'][0]} vs {r['seats'][1]}",
            f"{r['scores'][0]} to {r['scores'][1]}",
            f"{_result_text(r)}  {r['termination']}"
            + ("" if r["rated"] is not False else f"  ({describe_unrated(r['unrated_reason'])})")
            + ("  (sealed until its twin is played)" if r.get("sealed") else ""),
        )
        for r in rows
    ]
    header = ("MATCH", "FINISHED", "SEAT 0 vs SEAT 1", "SCORE", "RESULT")
    widths = [max(len(c[i]) for c in [header, *cells]) for i in range(len(header) - 1)]

    def line(c: tuple[str, ...]) -> str:
        return "  ".join([*(v.ljust(w) for v, w in zip(c, widths, strict=False)), c[-1]])

    typer.echo(line(header))
    for r, c in zip(rows, cells, strict=True):
        typer.echo(line(c))
        if has_fault(r) and r["reason"]:
            typer.echo(f"    reason: {r['reason']}")


def list_matches(
    bot: Annotated[
        str | None, typer.Option("--bot", help="Only matches this bot (any version) played.")
    ] = None,
    tournament: Annotated[
        int | None, typer.Option("--tournament", help="Only the matches of this tournament.")
    ] = None,
    faults: Annotated[
        bool, typer.Option("--faults", help="Only forfeits and matches with a fault.")
    ] = False,
    limit: Annotated[
        int,
        typer.Option("--limit", min=1, help="Matches a page: the newest N, then the next N."),
    ] = PAGE_SIZE,
    page: Annotated[
        int, typer.Option("--page", min=1, help="Page N of the list, newest first (1: the newest).")
    ] = 1,
    show_all: Annotated[bool, typer.Option("--all", help="Every match, newest first.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False,
    db: DbOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    ca_file: CaFileOption = None,
) -> None:
    """Recorded matches, newest first, 50 a page: id, date, seats, result, forfeit reason."""
    first = (page - 1) * limit
    # One more than the page, to know whether there is a next one.
    wanted = None if show_all or faults else first + limit + 1
    arena = open_arena(db=db, server=server, token=token, ca_file=ca_file)
    rows = arena.match_rows(tournament_id=tournament, bot=bot, limit=wanted)
    if faults:
        rows = [r for r in rows if has_fault(r)]
    more = 0
    if not show_all:
        more = max(0, len(rows) - first - limit)
        rows = rows[first : first + limit]
    print_matches(rows, faults=faults, as_json=as_json)
    if more and not as_json:
        older = f"{more}" if wanted is None else "more"
        typer.echo(f"({older} older: --page {page + 1} for the next {limit}, --all for every one)")


def report_with_matches(
    tournament_id: int, parts: tuple[Any, Any, Any], rows: list[dict[str, Any]], as_json: bool
) -> None:
    """``tournament show --matches``: the report (``parts``: info, config, standings), then its
    matches (``arena.cli.match_list`` rows), or one JSON object with a "matches" list."""
    if as_json:
        typer.echo(json.dumps({**to_json(*parts), "matches": rows}, indent=2))
        return
    report(*parts, False)
    typer.echo(f"\nMatches (t{tournament_id}-g<ordinal>, ordinals from 0):")
    print_matches(rows, faults=False, as_json=False)
