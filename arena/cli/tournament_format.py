"""How ``arena tournament run/resume/show`` print a tournament's report, local or from
``--server``: both print with this (``arena.cli.remote`` builds the same three parts from the
server's messages)."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from typing import Any

import typer
from rich.console import Console
from rich.table import Table


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
                {"name": e.name, "version": e.version, "source": e.source}
                for e in config.entrants
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
    info: Any, config: Any, standings: Any, as_json: bool,
    nodes: list[dict[str, Any]] | None = None,
) -> None:
    if as_json:
        typer.echo(json.dumps(to_json(info, config, standings, nodes), indent=2))
        return
    # Off a terminal (a pipe, a log), wide enough that no column is cut.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    print_report(console, info, config, standings)


def print_report(console: Console, info: Any, config: Any, standings: Any) -> None:
    rules = getattr(config, "rules", None)  # a remote tournament's summary may not carry them
    state = info.status.value
    if info.games_done < info.games_total:
        state += f", {info.games_total - info.games_done} games pending"
    from arena.visibility import SEED_SECRET

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
    board = Table(box=None, padding=(0, 1), pad_edge=False, header_style="bold underline")
    for column in ("rank", "bot", "version", "mu", "sigma", "95% interval", "score", "matches",
                   "W", "L", "D", "faults"):
        board.add_column(
            column, justify="left" if column in ("bot", "version") else "right", no_wrap=True
        )
    for r in standings.leaderboard:
        board.add_row(
            str(r.rank), r.bot, r.version, f"{r.mu:.2f}", f"{r.sigma:.2f}",
            f"[{r.mu_low:.2f}, {r.mu_high:.2f}]", f"{r.score:.2f}",
            str(r.matches), str(r.wins), str(r.losses), str(r.draws), str(r.faults),
        )
    console.print(board)

    console.print(
        "\n[bold]Head to head[/]: match wins; duplicate pairs (both seatings of one deal) won "
        "by more match points in the two, or split; margin: A's points minus B's, all matches"
    )
    console.print(
        "A score: A's match points per match over the complete pairs, with its 95% interval "
        "(pentanomial, docs/statistics.md)"
    )
    h2h = Table(box=None, padding=(0, 1), pad_edge=False, header_style="bold underline")
    for column in ("A", "B", "matches", "A W", "B W", "D", "pairs", "pairs A", "pairs B", "split",
                   "margin", "A score"):
        h2h.add_column(column, justify="left" if column in ("A", "B") else "right", no_wrap=True)
    for h in standings.head_to_head:
        h2h.add_row(
            h.bot_a, h.bot_b, str(h.matches), str(h.wins_a), str(h.wins_b), str(h.draws),
            str(h.pairs), str(h.pairs_won_a), str(h.pairs_won_b), str(h.pairs_split),
            f"{h.margin_a:+d}", _score_cell(h),
        )
    console.print(h2h)

    kinds = sorted({k for f in standings.faults for k in f.forfeits})
    console.print("\n[bold]Faults[/], and matches forfeited by reason")
    faults = Table(box=None, padding=(0, 1), pad_edge=False, header_style="bold underline")
    faults.add_column("bot", no_wrap=True)
    faults.add_column("faults", justify="right")
    for k in kinds:
        faults.add_column(k.removeprefix("forfeit_").replace("_", " "), justify="right")
    for f in standings.faults:
        faults.add_row(f.bot, str(f.faults), *(str(f.forfeits.get(k, 0)) for k in kinds))
    console.print(faults)


def _score_cell(h: Any) -> str:
    if h.score_a is None:
        return "-"
    return f"{100 * h.score_a:.1f}% [{100 * h.score_a_low:.1f}, {100 * h.score_a_high:.1f}]"
