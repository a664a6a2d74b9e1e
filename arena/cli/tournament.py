"""``arena tournament …``: run a round robin, resume it after any stop, show and list them."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

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
    check_sandbox,
)
from arena.cli.rules_option import RulesOption, rules_from_options
from arena.cli.tournament_format import report, to_json
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
        typer.Option(
            "--policy", help="On a fault: forfeit, or substitute a random legal action."
        ),
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
    if reveal_opponents and not server:
        raise ArenaError(
            "--reveal-opponents is for --server: a local tournament tells bots their "
            "opponents' names already"
        )
    if server and ray:
        raise ArenaError("--ray and --server do not go together: the server runs its own matches")
    check_ray_worker_cpus(ray_worker_cpus)
    rule_set = rules_from_options(rules, {"max_hands": max_hands})
    if server:
        _refuse_beside_server(
            {"--log-dir": log_dir, "--db": db, "--sandbox": sandbox},
            "the server plays the tournament in its own database, logs and sandbox (arena serve)",
        )
        from arena.cli import remote

        remote.tournament_run(
            server, token, bots=list(bots or []), games=games, concurrency=concurrency,
            seed=seed, move_timeout_ms=move_timeout, time_bank_ms=time_bank, policy=policy,
            max_faults=max_faults, rules=rule_set, deals=deals, as_json=as_json,
            ca_file=ca_file, insecure=insecure, reveal_opponents=reveal_opponents,
        )  # fmt: skip
        return
    from arena.referee import FaultPolicy
    from arena.store import Store
    from arena.tournament import TournamentSettings, create_tournament, parse_deal_mode
    from arena.tournament.entrants import default_sample_bots

    deal_mode = parse_deal_mode(deals)
    mode = check_sandbox(sandbox)
    specs = list(bots or [])
    if not specs:
        dirs, skipped = default_sample_bots()
        for note in skipped:
            print(note, file=sys.stderr)
        specs = [str(d) for d in dirs]
    settings = TournamentSettings(
        bots=specs,
        games=games,
        concurrency=concurrency if concurrency is not None else 2,
        seed=seed,
        move_timeout_ms=move_timeout,
        time_bank_ms=time_bank,
        policy=FaultPolicy(policy, max_faults),  # type: ignore[arg-type]
        rules=rule_set,
        deals=deal_mode,
    )
    if ray is not None:
        from arena.distributed.cluster import connect

        connect(ray)  # before anything is stored: a cluster that is not there is one line
    with Store.open(db) as store:
        tid = create_tournament(store, settings)
        play(store, tid, None, as_json, mode, ray, ray_worker_cpus,
             log_dir=_log_dir(db, tid, log_dir, data_dir), wide=wide)  # fmt: skip


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
    if server:
        _refuse_beside_server(
            {
                "--concurrency": concurrency,
                "--log-dir": log_dir,
                "--db": db,
                "--sandbox": sandbox,
                "--ray": ray,
            },
            "the server plays the tournament as it was started, with its own settings "
            "(arena serve)",
        )
        from arena.cli import remote

        remote.tournament_resume(
            server, token, tournament_id, as_json=as_json, ca_file=ca_file, insecure=insecure
        )
        return
    from arena.store import Store
    from arena.tournament import load_config

    mode = check_sandbox(sandbox)
    check_ray_worker_cpus(ray_worker_cpus)
    with Store.open(db) as store:
        if load_config(store, tournament_id)[1].compare is not None:
            if ray is not None:
                raise ArenaError("a comparison is resumed here, without --ray")
            from arena.cli import compare

            compare.play(store, tournament_id, concurrency, as_json, mode,
                         log_dir=_log_dir(db, tournament_id, log_dir, data_dir),
                         wide=wide)  # fmt: skip
            return  # (compare.play exits with its verdict)
        play(store, tournament_id, concurrency, as_json, mode, ray, ray_worker_cpus,
             log_dir=_log_dir(db, tournament_id, log_dir, data_dir), wide=wide)  # fmt: skip


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
    if server:
        from arena.cli import remote

        remote.tournament_cancel(server, token, tournament_id, ca_file, insecure)
        return
    from arena.store import Store, TournamentStatus

    with Store.open(db) as store:
        info = store.get_tournament(tournament_id)
        if info.status is not TournamentStatus.RUNNING:
            raise ArenaError(f"tournament {tournament_id} is {info.status.value}, not running")
        with store.tournament_player_lock(tournament_id):
            store.set_tournament_status(tournament_id, TournamentStatus.CANCELLED)
    typer.echo(
        f"tournament {tournament_id} cancelled: {info.games_done} of {info.games_total} "
        "matches played and recorded"
    )


def _refuse_beside_server(given: dict[str, Any], why: str) -> None:
    """One line naming the local options given beside --server, which the server decides.
    (--data-dir is never among them: $ARENA_DATA_DIR may set it, and it is unused there.)"""
    chosen = [name for name, value in given.items() if value is not None]
    if chosen:
        raise ArenaError(f"{', '.join(chosen)} and --server do not go together: {why}")


def _log_dir(db: str | None, tournament_id: int, given: Any, data_dir: Any = None) -> Any:
    """``--log-dir``, else the tournament's folder in the data dir's logs (``tournament_logs``)."""
    from arena.cli.options import tournament_logs

    return tournament_logs(db, tournament_id, given, data_dir)


@app.command()
def show(
    tournament_id: Annotated[int, typer.Argument(help="The tournament to show.")],
    as_json: JsonOption = False,
    matches: Annotated[
        bool,
        typer.Option(
            "--matches",
            help="Also list its matches: id (t<ID>-g<ordinal>, ordinals from 0), seats, result "
            "and the reason of a forfeit (--json: a \"matches\" list).",
        ),
    ] = False,
    db: DbOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    ca_file: CaFileOption = None,
    wide: WideOption = False,
) -> None:
    """The tournament's leaderboard, head-to-head table and faults (as at the end of a run)."""
    if matches and not server:
        _show_with_matches(db, tournament_id, as_json)
        return
    if server:
        from arena.cli.tournament_watch import remote_show

        remote_show(server, token, tournament_id, as_json, ca_file, matches=matches)
        return
    from arena.store import Store
    from arena.tournament import tournament_standings

    with Store.open(db) as store:
        info, config, standings = tournament_standings(store, tournament_id)
        info = store.live_status(info)
        state = None
        if config.compare is not None:
            from arena.tournament.runner import comparison_state

            state = comparison_state(store, tournament_id)
    if state is None:
        report(info, config, standings, as_json, wide=wide)
        return
    # A comparison: the usual report, and the test's figures (as `arena compare` ends with).
    from arena.cli.compare import state_line, verdict

    names = (config.entrants[0].name, config.entrants[1].name)
    message, code = verdict(state, names)
    if as_json:
        out = to_json(info, config, standings)
        out["compare"] = {**state.to_dict(), "verdict": message, "exit_code": code}
        typer.echo(json.dumps(out, indent=2))
        return
    report(info, config, standings, as_json, wide=wide)
    from arena.cli.fitted_table import table_width

    typer.echo(f"\nComparison: {state_line(state, table_width(wide))}\n{message}")


def _show_with_matches(db: str | None, tournament_id: int, as_json: bool) -> None:
    from arena.cli.match_list import match_row, report_with_matches
    from arena.store import Store
    from arena.tournament import tournament_standings

    with Store.open(db) as store:
        info, config, standings = tournament_standings(store, tournament_id)
        info = store.live_status(info)
        rows = [match_row(m) for m in store.list_matches(tournament_id=tournament_id)]
    report_with_matches(tournament_id, (info, config, standings), rows, as_json)


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
    from arena.cli import tournament_watch

    if server:
        tournament_watch.remote_watch(server, token, tournament_id, as_json, ca_file)
        return
    from arena.store import Store

    with Store.open(db) as store:
        tournament_watch.local_watch(store, tournament_id, as_json)


@app.command("list")
def list_(
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False,
    db: DbOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    ca_file: CaFileOption = None,
) -> None:
    """Every tournament in the database (or on --server), oldest first."""
    if server:
        from arena.cli.tournament_watch import remote_rows

        _print_list(remote_rows(server, token, ca_file), as_json)
        return
    from arena.store import Store
    from arena.tournament import TournamentConfig

    with Store.open(db) as store:
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
    _print_list(rows, as_json)


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


def play(
    store: Any,
    tournament_id: int,
    concurrency: int | None,
    as_json: bool,
    sandbox: str | None = None,
    ray: str | None = None,
    ray_worker_cpus: float = 2.0,
    log_dir: Any = None,
    wide: bool = False,
) -> None:
    """Run the tournament's pending games with progress on a terminal, then print the report;
    with ``ray``, on that Ray cluster (``ray`` is imported only then)."""
    from arena.tournament import TerminalReporter, run_tournament, tournament_standings
    from arena.tournament.progress import LineReporter

    executor = None
    made: list[Any] = []
    if ray is not None:
        from arena.distributed import ray_executor_factory

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
        )
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
    report(info, config, standings, as_json, nodes, wide=wide)

