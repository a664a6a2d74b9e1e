"""``arena h2h A B``: two bots' record against each other across every tournament and match
in the database (any versions, or ``name@version`` for one), from A's side."""

from __future__ import annotations

import json
import textwrap
from typing import Annotated, Any

import typer

from arena.cli.counts import count
from arena.cli.fitted_table import table_width
from arena.cli.options import DbOption
from arena.store import Store
from arena.store.rated import describe_unrated


def head_to_head(matches: list[Any], a: str, b: str) -> dict[str, Any]:
    """A's wins, losses and draws against B over ``matches`` (``MatchSummary``s), in total and
    per tournament (``null``: matches played on their own); the unrated ones apart, counted by
    why (``unrated``: aborted, one owner's bots, never started…)."""

    def side(player: str, ref: str) -> bool:
        return player == ref if "@" in ref else player.split("@", 1)[0] == ref

    total = {"matches": 0, "wins": 0, "losses": 0, "draws": 0, "forfeits_won": 0,
             "forfeits_lost": 0, "margin": 0}  # fmt: skip
    by_tournament: dict[str, dict[str, int]] = {}
    unrated: dict[str, int] = {}
    for m in matches:
        if side(m.players[0], a) and side(m.players[1], b):
            seat = 0
        elif side(m.players[1], a) and side(m.players[0], b):
            seat = 1
        else:
            continue
        if not m.rated:
            reason = m.unrated_reason or "unknown"
            unrated[reason] = unrated.get(reason, 0) + 1
            continue
        key = "null" if m.tournament_id is None else str(m.tournament_id)
        row = by_tournament.setdefault(key, {"matches": 0, "wins": 0, "losses": 0, "draws": 0})
        for t in (total, row):
            t["matches"] += 1
            if m.winner is None:
                t["draws"] += 1
            elif m.winner == seat:
                t["wins"] += 1
            else:
                t["losses"] += 1
        if m.termination.is_forfeit:
            total["forfeits_won" if m.winner == seat else "forfeits_lost"] += 1
        total["margin"] += m.scores[seat] - m.scores[1 - seat]
    return {
        "bot_a": a, "bot_b": b, **total, "by_tournament": by_tournament,
        "unrated": dict(sorted(unrated.items())),
    }  # fmt: skip


def h2h(
    bot_a: Annotated[str, typer.Argument(help="A bot name (any version) or name@version.")],
    bot_b: Annotated[str, typer.Argument(help="The other bot.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    db: DbOption = None,
) -> None:
    """A's record against B over every rated match in the database, across tournaments."""
    with Store.open(db) as store:
        store.get_bot_version(bot_b)  # an unknown name is an error, not an empty record
        if "@" in bot_a:
            matches = store.list_matches(bot_version_id=store.get_bot_version(bot_a).id)
        else:
            matches = store.list_matches(bot=bot_a)
    data = head_to_head(matches, bot_a, bot_b)
    if as_json:
        typer.echo(json.dumps(data, indent=2))
        return
    summary = (
        f"{bot_a} against {bot_b}: {count(data['matches'], 'rated match')}, {data['wins']} won, "
        f"{data['losses']} lost, {data['draws']} drawn (forfeits: {data['forfeits_won']} won, "
        f"{data['forfeits_lost']} lost); score margin {data['margin']:+d}"
    )
    width = table_width()
    # Broken between words where the terminal is narrow, never within a name or a number.
    typer.echo(summary if width is None else "\n".join(textwrap.wrap(
        summary, width, subsequent_indent="    ", break_long_words=False, break_on_hyphens=False
    )))  # fmt: skip
    if data["unrated"]:
        told = ", ".join(f"{n} {describe_unrated(r)}" for r, n in data["unrated"].items())
        typer.echo(f"  besides, recorded and not counted: {told}")
    for key, row in data["by_tournament"].items():
        where = "on their own" if key == "null" else f"tournament {key}"
        typer.echo(
            f"  {where}: {count(row['matches'], 'match')}, "
            f"{row['wins']}-{row['losses']}-{row['draws']}"
        )
