"""``arena tournament …``: run a round robin, resume it after any stop, show and list them."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from arena.cli.compare import state_line, verdict
from arena.cli.fitted_table import table_width
from arena.cli.interface import LocalPlay, TournamentReport, TournamentRequest
from arena.cli.match_list import report_with_matches
from arena.cli.open_arena import open_arena
from arena.cli.options import (
    CaFileOption,
    DataDirOption,
    DbOption,
    InsecureOption,
    LogDirOption,
    SandboxOption,
    ServerOption,
    TokenOption,
    WideOption,
)
from arena.cli.rules_option import RulesOption, rules_from_options
from arena.cli.tournament_format import report, to_json
from arena.cli.tournament_watch import progress_reporter
from arena.errors import ArenaError

app = typer.Typer(
    help="Round-robin tournaments: run, resume, show, list, cancel.", no_args_is_help=True
)

JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON object at the end, and no progress.")
]
ConcurrencyOption = Annotated[
    int | None,
    typer.Option(
        "--concurrency",
        "-k",
        help="Matches played at once (run: 2; resume: as the tournament was started).",
        show_default=False,
    ),
]
RayOption = Annotated[
    str | None,
    typer.Option(
        "--ray",
        help="Play the matches on the Ray cluster at this address (HOST:PORT of its head, or "
        "auto); -k is then matches at once per worker. This process still records every result.",
        show_default=False,
    ),
]
RayWorkerCpusOption = Annotated[
    float,
    typer.Option(
        "--ray-worker-cpus",
        help="With --ray: CPUs of a node per worker (one worker, with its own bot processes, "
        "per slot of this many CPUs).",
    ),
]


def check_ray_worker_cpus(cpus: float) -> None:
    if cpus <= 0:
        raise ArenaError(f"--ray-worker-cpus must be positive, got {cpus:g}")


@app.command()
def run(
    bots: Annotated[
        list[str] | None,
        typer.Argument(
            help="Bot directories or registered bot names (default: every sample bot that can "
            "run here).",
            show_default=False,
        ),
    ] = None,
    games: Annotated[
        int, typer.Option("--games", "-n", help="Deal seeds per pair; each is played twice.")
    ] = 10,
    concurrency: ConcurrencyOption = None,
    seed: Annotated[
        int | None,
        typer.Option("--seed", help="Tournament seed (default: drawn at random, then shown)."),
    ] = None,
    move_timeout: Annotated[
        int, typer.Option("--move-timeout", help="Time limit of one decision, in ms.")
    ] = 1000,
    time_bank: Annotated[
        int, typer.Option("--time-bank", help="Per-match time bank beyond the limit, in ms.")
    ] = 0,
    policy: Annotated[
        str,
        typer.Option("--policy", help="On a fault: forfeit, or substitute a random legal action."),
    ] = "forfeit",
    max_faults: Annotated[
        int, typer.Option("--max-faults", help="Under substitute: faults that forfeit a match.")
    ] = 3,
    max_hands: Annotated[
        int | None,
        typer.Option(
            "--max-hands",
            help="Hand limit of a match (R-6.3; default 200); the same as --rules max_hands=N.",
            show_default=False,
        ),
    ] = None,
    rules: RulesOption = None,
    deals: Annotated[
        str,
        typer.Option(
            "--deals",
            help="pairs: each duplicate pair its own seed, both seatings (no bot process sees a "
            "deal twice, two per bot); duplicate: every pair plays the same seeds as well "
            "(2 (B - 1) processes per bot); independent: every match its own seed.",
        ),
    ] = "pairs",
    as_json: JsonOption = False,
    log_dir: LogDirOption = None,
    db: DbOption = None,
    data_dir: DataDirOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    ca_file: CaFileOption = None,
    insecure: InsecureOption = False,
    sandbox: SandboxOption = None,
    ray: RayOption = None,
    ray_worker_cpus: RayWorkerCpusOption = 2.0,
    reveal_opponents: Annotated[
        bool,
        typer.Option(
            "--reveal-opponents",
            help="With --server (an admin token): tell bots their opponent's name; the "
            "server's tournaments are anonymous otherwise. A local run always tells them.",
        ),
    ] = False,
    wide: WideOption = False,
) -> None:
    """Play every pair of BOTS on N deal seeds, each seed twice with the seats swapped."""
    check_ray_worker_cpus(ray_worker_cpus)
    rule_set = rules_from_options(rules, {"max_hands": max_hands})
    request = TournamentRequest(
        bots=list(bots or []), games=games, concurrency=concurrency, seed=seed,
        move_timeout_ms=move_timeout, time_bank_ms=time_bank, policy=policy,
        max_faults=max_faults, rules=rule_set, deals=deals, reveal_opponents=reveal_opponents,
    )  # fmt: skip
    local = LocalPlay(log_dir=log_dir, sandbox=sandbox, ray=ray, ray_worker_cpus=ray_worker_cpus)
    arena = open_arena(
        db=db, server=server, token=token, ca_file=ca_file, insecure=insecure, data_dir=data_dir
    )
    _print_played(arena.run_tournament(request, local, as_json=as_json), as_json, wide)


@app.command()
def resume(
    tournament_id: Annotated[int, typer.Argument(help="The tournament to finish.")],
    concurrency: ConcurrencyOption = None,
    as_json: JsonOption = False,
    log_dir: LogDirOption = None,
    db: DbOption = None,
    data_dir: DataDirOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    ca_file: CaFileOption = None,
    insecure: InsecureOption = False,
    sandbox: SandboxOption = None,
    ray: RayOption = None,
    ray_worker_cpus: RayWorkerCpusOption = 2.0,
    wide: WideOption = False,
) -> None:
    """Finish a tournament that was stopped (Ctrl-C, a crash, a kill): play its pending games.

    With --server, the server plays them with its own runner (the tournament's creator's token
    or an admin's), and this follows its progress to the report."""
    check_ray_worker_cpus(ray_worker_cpus)
    local = LocalPlay(concurrency, log_dir, sandbox, ray, ray_worker_cpus)
    arena = open_arena(
        db=db, server=server, token=token, ca_file=ca_file, insecure=insecure, data_dir=data_dir
    )
    played = arena.resume_tournament(tournament_id, local, as_json=as_json, wide=wide)
    _print_played(played, as_json, wide)


@app.command()
def cancel(
    tournament_id: Annotated[int, typer.Argument(help="The tournament to cancel.")],
    db: DbOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    ca_file: CaFileOption = None,
    insecure: InsecureOption = False,
) -> None:
    """Cancel a tournament: what was played stays recorded, nothing more is played.

    With --server, a running tournament stops at once (its owner's token or an admin's); its
    matches in play are recorded as aborted, unrated. Locally, a tournament not being played is
    marked cancelled, so it is never resumed."""
    arena = open_arena(db=db, server=server, token=token, ca_file=ca_file, insecure=insecure)
    done, total = arena.cancel_tournament(tournament_id)
    typer.echo(
        f"tournament {tournament_id} cancelled: {done} of {total} matches played and recorded"
    )


def _print_played(played: TournamentReport, as_json: bool, wide: bool) -> None:
    """The report of a tournament played to its end; exit 1 when it ended otherwise than
    finished (cancelled or interrupted on the server)."""
    if played.unfinished is not None:
        print(f"arena: {played.unfinished}", file=sys.stderr)
    report(*played.parts, as_json, played.nodes, wide=wide)
    if played.unfinished is not None:
        raise typer.Exit(1)


@app.command()
def show(
    tournament_id: Annotated[int, typer.Argument(help="The tournament to show.")],
    as_json: JsonOption = False,
    matches: Annotated[
        bool,
        typer.Option(
            "--matches",
            help="Also list its matches: id (t<ID>-g<ordinal>, ordinals from 0), seats, result "
            'and the reason of a forfeit (--json: a "matches" list).',
        ),
    ] = False,
    db: DbOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    ca_file: CaFileOption = None,
    wide: WideOption = False,
) -> None:
    """The tournament's leaderboard, head-to-head table and faults (as at the end of a run)."""
    arena = open_arena(db=db, server=server, token=token, ca_file=ca_file)
    shown = arena.tournament_report(tournament_id, matches=matches)
    if shown.matches is not None:
        report_with_matches(tournament_id, shown.parts, shown.matches, as_json)
        return
    state = shown.comparison
    if state is None:
        report(*shown.parts, as_json, wide=wide)
        return
    # A comparison: the usual report, and the test's figures (as `arena compare` ends with).
    config = shown.config
    names = (config.entrants[0].name, config.entrants[1].name)
    message, code = verdict(state, names)
    if as_json:
        out = to_json(*shown.parts)
        out["compare"] = {**state.to_dict(), "verdict": message, "exit_code": code}
        typer.echo(json.dumps(out, indent=2))
        return
    report(*shown.parts, as_json, wide=wide)
    typer.echo(f"\nComparison: {state_line(state, table_width(wide))}\n{message}")


@app.command()
def watch(
    tournament_id: Annotated[int, typer.Argument(help="The tournament to follow.")],
    as_json: JsonOption = False,
    db: DbOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    ca_file: CaFileOption = None,
) -> None:
    """Re-attach to a tournament's progress (played by another process, or on --server) until
    it ends or stops, then print its report."""
    arena = open_arena(db=db, server=server, token=token, ca_file=ca_file)
    final = arena.watch_tournament(tournament_id, progress_reporter(as_json))
    if final is not None:
        report(*final.parts, as_json)


@app.command("list")
def list_(
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False,
    db: DbOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    ca_file: CaFileOption = None,
) -> None:
    """Every tournament in the database (or on --server), oldest first."""
    _print_list(open_arena(db=db, server=server, token=token, ca_file=ca_file).tournament_rows(),
                as_json)  # fmt: skip


def _print_list(rows: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        typer.echo("no tournaments yet")
        return
    table = Table(box=None, pad_edge=False)
    for column in ("id", "status", "matches", "created", "bots"):
        table.add_column(column, justify="right" if column == "id" else "left")
    for r in rows:
        table.add_row(
            str(r["id"]),
            r["status"],
            f"{r['done']}/{r['total']}",
            r["created_at"],
            ", ".join(r["bots"]),
        )
    Console(highlight=False).print(table)
