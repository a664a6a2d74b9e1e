"""How ``arena tournament run/resume/show`` print a tournament's report, local or from
``--server``: both print with this (``arena.cli.remote`` builds the same three parts from the
server's messages)."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict
from typing import Any

import typer
from rich.console import Console

from arena.cli.estimate_format import score_text
from arena.cli.fitted_table import Column, Fitted, fit, table_width
from arena.cli.ratings_format import leaderboard
from arena.visibility import SEED_SECRET


def to_json(
    info: Any, config: Any, standings: Any, nodes: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    out = {
        "tournament": {
            "id": info.id,
            "status": info.status.value,
            "done": info.games_done,
            "total": info.games_total,
            "seed": config.seed,
            "seed_secret": config.seed is None,
            "games": config.games,
            "deals": config.deals.value,
            "kind": getattr(config, "kind", "round_robin"),
            "concurrency": config.concurrency,
            "move_timeout_ms": config.clock.move_time_ms,
            "time_bank_ms": config.clock.time_bank_ms,
            "policy": config.policy.kind,
            "rules": rules.to_dict() if (rules := getattr(config, "rules", None)) else None,
            "bots": [
                {"name": e.name, "version": e.version, "source": e.source} for e in config.entrants
            ],
        },
        "leaderboard": [r.to_json() for r in standings.leaderboard],
        "head_to_head": [asdict(h) for h in standings.head_to_head],
        "faults": [
            {"bot": f.bot, "faults": f.faults, "forfeits": f.forfeits} for f in standings.faults
        ],
    }
    if nodes is not None:
        # This run's work per Ray node (a resumed run counts only what it played).
        out["nodes"] = nodes
    return out


def report(
    info: Any,
    config: Any,
    standings: Any,
    as_json: bool,
    nodes: list[dict[str, Any]] | None = None,
    wide: bool = False,
) -> None:
    if as_json:
        typer.echo(json.dumps(to_json(info, config, standings, nodes), indent=2))
        return
    # Off a terminal (a pipe, a log), prose is wrapped at 160 unless COLUMNS says otherwise.
    on_terminal = sys.stdout.isatty() or os.environ.get("COLUMNS", "").isdigit()
    console = Console(highlight=False, width=None if on_terminal else 160)
    print_report(console, info, config, standings, table_width(wide))


H2H_COLUMNS = (
    Column("A", left=True),
    Column("B", left=True),
    Column("matches", "n", drop=4),
    Column("A W"),
    Column("B W"),
    Column("D", drop=3),
    Column("pairs", drop=5),
    Column("pairs A", "pA", drop=7),
    Column("pairs B", "pB", drop=7),
    Column("split", drop=6),
    Column("margin", drop=2),
    Column("A score", left=True, drop=1),
)
"""At a narrow width the pair counts go first, then the draws, matches, margin, and A score."""


def _table(console: Console, fitted: Fitted) -> None:
    """Printed whole: no cell cut, no line wrapped (a line wider than the terminal runs on)."""
    for line in fitted.lines[:1]:
        console.print(line, style="bold", markup=False, soft_wrap=True)
    for line in fitted.lines[1:]:
        console.print(line, markup=False, soft_wrap=True)
    if (note := fitted.note()) is not None:
        console.print(note, markup=False, style="dim")


def print_report(
    console: Console, info: Any, config: Any, standings: Any, width: int | None = None
) -> None:
    """The report; ``width`` fits its tables (``arena.cli.fitted_table``; None: whole)."""
    rules = getattr(config, "rules", None)  # a remote tournament's summary may not carry them
    state = info.status.value
    if info.games_done < info.games_total:
        state += f", {info.games_total - info.games_done} games pending"

    seed = SEED_SECRET if config.seed is None else config.seed  # None: the server keeps it
    console.print(
        f"[bold]Tournament {info.id}[/] ({state}): {info.games_done}/{info.games_total} "
        f"matches, {config.games} deal seeds per pair, {config.deals.value} deals, seed "
        f"{seed}, {config.clock.describe()} per move, policy {config.policy.describe()}"
        + (f", rules {rules.describe()}" if rules is not None else "")
    )

    console.print(
        "\n[bold]Leaderboard[/]: TrueSkill over the matches in schedule order, ranked by "
        "score = mu - 3 sigma; 95% interval of the skill: mu ± 1.96 sigma"
    )
    _table(console, leaderboard(standings.leaderboard, width))

    console.print(
        "\n[bold]Head to head[/]: match wins; duplicate pairs (both seatings of one deal) won "
        "by more match points in the two, or split; margin: A's points minus B's, all matches"
    )
    console.print(
        "A score: A's match points per match over the complete pairs, with its 95% interval "
        "(pentanomial, docs/statistics.md)"
    )
    rows = [
        (
            h.bot_a, h.bot_b, str(h.matches), str(h.wins_a), str(h.wins_b), str(h.draws),
            str(h.pairs), str(h.pairs_won_a), str(h.pairs_won_b), str(h.pairs_split),
            f"{h.margin_a:+d}", _score_cell(h),
        )
        for h in standings.head_to_head
    ]  # fmt: skip
    _table(console, fit(H2H_COLUMNS, rows, width))

    kinds = sorted({k for f in standings.faults for k in f.forfeits})
    console.print("\n[bold]Faults[/], and matches forfeited by reason")
    columns = [Column("bot", left=True), Column("faults")]
    columns += [Column(k.removeprefix("forfeit_").replace("_", " "), drop=1) for k in kinds]
    rows = [
        (f.bot, str(f.faults), *(str(f.forfeits.get(k, 0)) for k in kinds))
        for f in standings.faults
    ]
    _table(console, fit(columns, rows, width))


def _score_cell(h: Any) -> str:
    if h.score_a is None:
        return "-"
    return score_text(h.score_a, h.score_a_low, h.score_a_high)
