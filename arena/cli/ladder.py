"""``arena ladder …``: the ladder, the arena's own scheduler of rated duplicate pairs."""

from __future__ import annotations

import json
import logging
import signal
import threading
from typing import Annotated

import typer

from arena.cli.open_arena import open_arena
from arena.cli.options import (
    HOUSE_HELP,
    CaFileOption,
    DataDirOption,
    DbOption,
    SandboxOption,
    ServerOption,
    TokenOption,
    check_sandbox,
    data_dir_of,
)
from arena.cli.rules_option import RulesOption, parse_rules
from arena.ladder.house import parse_house
from arena.ladder.runner import Ladder, LadderSettings, describe_status
from arena.store import Store
from arena.tournament.botlogs import logs_root

HouseOption = Annotated[str, typer.Option("--house", help=HOUSE_HELP[0].upper() + HOUSE_HELP[1:])]

app = typer.Typer(
    help="The ladder: rated duplicate pairs chosen by the arena itself, most informative first.",
    no_args_is_help=True,
)


@app.command()
def run(
    db: DbOption = None,
    data_dir: DataDirOption = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", "-k", help="Pairs played at once.")
    ] = 1,
    budget: Annotated[
        int | None,
        typer.Option("--daily-budget", help="At most this many matches in any 24 hours."),
    ] = None,
    bots: Annotated[
        str | None,
        typer.Option("--bots", help="Comma-separated bot names (default: every registered bot)."),
    ] = None,
    pause_after: Annotated[
        int, typer.Option("--pause-after", help="Forfeits in a row that pause a bot version.")
    ] = 3,
    max_pairs: Annotated[
        int | None, typer.Option("--max-pairs", help="Stop after this many new pairs.")
    ] = None,
    move_timeout_ms: Annotated[
        int | None, typer.Option("--move-timeout-ms", help="Move limit (default 1000 ms).")
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option("--seed", help="Seeds the choice among equal pairs (deals stay secret)."),
    ] = None,
    rules: RulesOption = None,
    sandbox: SandboxOption = None,
    per_owner: Annotated[
        int,
        typer.Option(
            "--per-owner",
            help="At most this many bots of one owner take part at once; the rest wait.",
        ),
    ] = 2,
    reveal_opponents: Annotated[
        bool,
        typer.Option(
            "--reveal-opponents",
            help="Tell bots their opponent's name (off: rated play is anonymous).",
        ),
    ] = False,
    house: HouseOption = "sample",
) -> None:
    """Play the ladder on the local database until Ctrl-C (or --max-pairs new pairs)."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", datefmt="%H:%M:%S"))
    ladder_log = logging.getLogger("arena.ladder")
    ladder_log.addHandler(handler)
    ladder_log.setLevel(logging.INFO)
    settings = LadderSettings(
        concurrency=concurrency,
        daily_budget=budget,
        bots=tuple(b.strip() for b in bots.split(",") if b.strip()) if bots else (),
        pause_after=pause_after,
        max_pairs=max_pairs,
        move_timeout_ms=move_timeout_ms,
        seed=seed,
        rules=parse_rules(rules),
        sandbox=check_sandbox(sandbox),
        per_owner=per_owner,
        reveal_opponents=reveal_opponents,
        house=parse_house(house),
    )
    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    with Store.open(db) as store:
        ladder = Ladder(store, settings, logs=logs_root(data_dir_of(db, data_dir)))
        try:
            ladder.run(stop)
        except KeyboardInterrupt:
            stop.set()
        typer.echo("\n".join(describe_status(store.ladder_status())))


@app.command()
def status(
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    server: ServerOption = None,
    token: TokenOption = None,
    ca_file: CaFileOption = None,
) -> None:
    """What the ladder is playing and why, who takes part, who is paused."""
    state = open_arena(db=db, server=server, token=token, ca_file=ca_file).ladder_status()
    if as_json:
        typer.echo(json.dumps(state, indent=2))
    else:
        typer.echo("\n".join(describe_status(state)))
