"""``arena compare A B``: is A stronger than B, and how sure are we (docs/statistics.md).

Plays duplicate pairs of A against B as a tournament of kind ``compare`` (recorded, rated and
resumable like any other: ``arena tournament resume ID``), prints the figures after every pair,
and with ``--sprt`` stops as soon as the test decides. Exit status: 0 H1 accepted (A is at least
elo1 stronger), 1 H0 accepted (at most elo0), 3 undecided at the pair cap; 0 without ``--sprt``;
2 for bad input; 130 when interrupted.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from arena.cli.estimate_format import elo_text, score_text
from arena.cli.fitted_table import table_width
from arena.cli.options import (
    DataDirOption,
    DbOption,
    LogDirOption,
    SandboxOption,
    WideOption,
    check_sandbox,
    tournament_logs,
)
from arena.cli.rules_option import RulesOption, parse_rules
from arena.errors import ArenaError
from arena.referee import FaultPolicy
from arena.rules.ruleset import RuleSet
from arena.stats import Sprt
from arena.store import Store
from arena.tournament import (
    TournamentSettings,
    create_tournament,
    load_config,
    parse_deal_mode,
    run_tournament,
)
from arena.tournament.compare import (
    DEFAULT_MAX_PAIRS_SPRT,
    DEFAULT_PAIRS_FIXED,
    CompareSpec,
)
from arena.tournament.progress import QuietReporter
from arena.tournament.runner import comparison_state

EXIT_H1 = 0
EXIT_H0 = 1
EXIT_UNDECIDED = 3


def compare(
    bot_a: Annotated[
        str, typer.Argument(help="Bot A: a directory, registered name or sample bot.")
    ],
    bot_b: Annotated[str, typer.Argument(help="Bot B, the reference A is measured against.")],
    sprt: Annotated[
        str | None,
        typer.Option(
            "--sprt",
            help="Stop when the test decides: elo0=0,elo1=5,alpha=0.05,beta=0.05 (H0: A is at "
            "most elo0 stronger; H1: at least elo1). Any key left out takes that default.",
            show_default=False,
        ),
    ] = None,
    max_pairs: Annotated[
        int | None,
        typer.Option(
            "--max-pairs",
            help="Duplicate pairs at most (with --sprt: 2000), or exactly (without: 100).",
            show_default=False,
        ),
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", "-k", help="Matches played at once.")
    ] = 2,
    seed: Annotated[
        int | None,
        typer.Option("--seed", help="Deal seeds derive from it (default: drawn, then shown)."),
    ] = None,
    deals: Annotated[
        str,
        typer.Option(
            "--deals",
            help="pairs or duplicate (the same for two bots): each seed twice, seats swapped "
            "(pentanomial model); independent: every match its own seed (trinomial model).",
        ),
    ] = "pairs",
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
        int, typer.Option("--max-hands", help="Hand limit of a match (R-6.3).")
    ] = 200,
    as_json: Annotated[
        bool, typer.Option("--json", help="No per-pair lines; one JSON object with every figure.")
    ] = False,
    rules: RulesOption = None,
    sandbox: SandboxOption = None,
    log_dir: LogDirOption = None,
    db: DbOption = None,
    data_dir: DataDirOption = None,
    wide: WideOption = False,
) -> None:
    """Play duplicate pairs of A against B; Elo with a 95% interval, and an SPRT if asked."""
    test = Sprt.parse(sprt) if sprt is not None else None
    deal_mode = parse_deal_mode(deals)
    if max_pairs is None:
        max_pairs = DEFAULT_MAX_PAIRS_SPRT if test is not None else DEFAULT_PAIRS_FIXED
    spec = CompareSpec(max_pairs=max_pairs, sprt=test)
    settings = TournamentSettings(
        bots=[bot_a, bot_b],
        games=max_pairs,
        concurrency=concurrency,
        seed=seed,
        move_timeout_ms=move_timeout,
        time_bank_ms=time_bank,
        policy=FaultPolicy(policy, max_faults),  # type: ignore[arg-type]
        rules=parse_rules(rules, RuleSet(max_hands=max_hands)),
        deals=deal_mode,
        compare=spec,
    )
    mode = check_sandbox(sandbox)
    with Store.open(db) as store:
        tid = create_tournament(store, settings)
        logs = tournament_logs(db, tid, log_dir, data_dir)
        play(store, tid, None, as_json, mode, log_dir=logs, wide=wide)


class PairLines:
    """Prints one line per counted pair (the tournament reporter's ``pair_done``)."""

    def __init__(self, names: tuple[str, str], width: int | None = None) -> None:
        self.names = names
        self.width = width

    def start(self, tournament_id: int, bots: Any, done: int, total: int) -> None:
        pass

    def bot_failed(self, bot: str, reason: str) -> None:
        print(f"arena: bot {bot} cannot play: {reason} (its matches are forfeits)",
              file=sys.stderr, flush=True)  # fmt: skip

    def match_done(self, game: Any) -> None:
        pass

    def pair_done(self, state: Any) -> None:
        print(state_line(state, self.width), flush=True)

    def stop(self) -> None:
        pass


def state_line(state: Any, width: int | None = None) -> str:
    """The figures after a pair: counts, the raw score and the Elo with their intervals (one
    formatter, ``arena.cli.estimate_format``), and the LLR; where ``width`` is too narrow for
    one line, on more, never a figure cut."""
    e = state.estimate
    penta = " ".join(str(c) for c in state.pentanomial)
    parts = [
        f"pairs {state.pairs:>4}  penta [{penta}]",
        f"W-D-L {state.wins}-{state.draws}-{state.losses}",
        f"score {score_text(e.raw_score, e.score_low, e.score_high)}",
        f"elo {elo_text(e)}",
    ]
    if state.status is not None:
        s = state.status
        parts.append(f"LLR {s.llr:+.2f} [{s.lower:+.2f}, {s.upper:+.2f}]")
    lines = [parts[0]]
    for part in parts[1:]:
        if width is None or len(lines[-1]) + 2 + len(part) <= width:
            lines[-1] += f"  {part}"
        else:
            lines.append(f"    {part}")
    return "\n".join(lines)


def verdict(state: Any, names: tuple[str, str]) -> tuple[str, int]:
    a, b = names
    if state.sprt is None:
        return f"{state.pairs} pairs played (no SPRT: a fixed number of pairs)", 0
    sp = state.sprt
    if state.decision == "H1":
        return (
            f"H1 accepted after {state.pairs} pairs: {a} is at least {sp.elo1:g} Elo stronger "
            f"than {b} (alpha {sp.alpha:g}, beta {sp.beta:g})",
            EXIT_H1,
        )
    if state.decision == "H0":
        return (
            f"H0 accepted after {state.pairs} pairs: {a} is at most {sp.elo0:g} Elo stronger "
            f"than {b} (alpha {sp.alpha:g}, beta {sp.beta:g})",
            EXIT_H0,
        )
    return (
        f"undecided after {state.pairs} pairs (the cap): LLR {state.status.llr:+.2f} is between "
        f"{state.status.lower:+.2f} and {state.status.upper:+.2f}",
        EXIT_UNDECIDED,
    )


def play(
    store: Any,
    tournament_id: int,
    concurrency: int | None,
    as_json: bool,
    sandbox: str | None = None,
    log_dir: Any = None,
    wide: bool = False,
) -> None:
    """Play (or resume) the comparison, print its figures, and exit with its verdict; the bots'
    logs are kept in ``log_dir``, one folder per bot, as a tournament's."""
    width = table_width(wide)

    info, config = load_config(store, tournament_id)
    names = (config.entrants[0].name, config.entrants[1].name)
    if names[0] == names[1]:
        v = (config.entrants[0].version, config.entrants[1].version)
        names = (
            (f"{names[0]}@{v[0]}", f"{names[1]}@{v[1]}")
            if v[0] != v[1]
            else (f"{names[0]} (A)", f"{names[1]} (B)")
        )
    before = comparison_state(store, tournament_id)
    spec = config.compare
    if spec is None:
        raise ArenaError(f"tournament {tournament_id} is not a comparison")
    if not as_json:
        test = (
            f"SPRT elo0={spec.sprt.elo0:g} elo1={spec.sprt.elo1:g} alpha={spec.sprt.alpha:g} "
            f"beta={spec.sprt.beta:g}, at most {spec.max_pairs} pairs"
            if spec.sprt is not None
            else f"{spec.max_pairs} pairs"
        )
        print(
            f"compare {tournament_id}: A = {config.entrants[0].name} {config.entrants[0].version}"
            f", B = {config.entrants[1].name} {config.entrants[1].version}; {test}, "
            f"{config.deals.value} deals ({before.model}), seed {config.seed}, rules "
            f"{config.rules.describe()}; if it is "
            f"interrupted, `arena tournament resume {tournament_id}` finishes it",
            file=sys.stderr,
        )
        if before.pairs:
            print(state_line(before, width))
    reporter = QuietReporter() if as_json else PairLines(names, width)
    try:
        run_tournament(
            store, tournament_id, concurrency=concurrency, reporter=reporter, sandbox=sandbox,
            log_dir=log_dir,
        )  # fmt: skip
    except KeyboardInterrupt:
        state = comparison_state(store, tournament_id)
        print(
            f"arena: interrupted after {state.pairs} pairs of comparison {tournament_id}; "
            f"finish it with `arena tournament resume {tournament_id}`",
            file=sys.stderr,
        )
        raise typer.Exit(130) from None
    state = comparison_state(store, tournament_id)
    message, code = verdict(state, names)
    if as_json:
        info = store.get_tournament(tournament_id)
        typer.echo(json.dumps(to_json(info, config, state, message, code), indent=2))
    else:
        if state.beyond:
            more = "1 more match was" if state.beyond == 1 else f"{state.beyond} more matches were"
            message += f"; {more} in play when it decided: recorded and rated, not counted"
        print(message)
    raise typer.Exit(code)


def to_json(info: Any, config: Any, state: Any, message: str, code: int) -> dict[str, Any]:
    return {
        "tournament": info.id,
        "status": info.status.value,
        "a": {"name": config.entrants[0].name, "version": config.entrants[0].version},
        "b": {"name": config.entrants[1].name, "version": config.entrants[1].version},
        "deals": config.deals.value,
        "seed": config.seed,
        **state.to_dict(),
        "verdict": message,
        "exit_code": code,
    }
