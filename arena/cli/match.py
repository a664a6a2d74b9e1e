"""``arena match BOT_A BOT_B``: play one match between two bots and print the result.

A bot is a directory with a ``bot.toml`` or the name of a registered bot (``name`` or
``name@version``). Both are started through the runtime, play one match through the referee, and
are stopped; the match is recorded in the database (bot directories are registered first, as
``arena bot submit`` does) unless ``--no-record``.
"""

from __future__ import annotations

import json
import random
import re
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.options import (
    DataDirOption,
    DbOption,
    LogDirOption,
    SandboxOption,
    check_sandbox,
    data_dir_of,
)
from arena.cli.rules_option import RulesOption, rules_from_options
from arena.errors import ArenaError
from arena.referee import (
    ClockConfig,
    FaultPolicy,
    MatchResult,
    Termination,
    play_match,
    result_to_dict,
    unplayed_result,
)
from arena.referee.play import new_match_id
from arena.referee.replay import summary_text
from arena.rules.ruleset import RuleSet
from arena.runtime import connect_remote, load_manifest, start_bot
from arena.runtime.archive import ArchiveLimits, pack_directory
from arena.service.submission import BotSubmissions
from arena.store import NotFoundError, Store
from arena.store.rated import describe_unrated
from arena.tournament import botlogs
from arena.tournament.entrants import sample_bot_dirs, sample_bot_unavailable
from arena.tournament.workers import SeatBot


class BotSpec:
    """One side of the match: where its files are, and its registered version once known."""

    def __init__(
        self, ref: str, directory: Path | None, version: Any = None, *, remote: bool = False
    ) -> None:
        self.ref = ref
        self.directory = directory
        self.version = version
        self.remote = remote
        """A bot already serving at ``HOST:PORT`` (not started, not stopped by the arena)."""

    @property
    def label(self) -> str:
        """``name@version`` as the record shows it (the manifest's, when not registered)."""
        if self.remote:
            return f"remote@{self.ref}"
        if self.version is not None:
            return f"{self.version.name}@{self.version.version_label}"

        assert self.directory is not None
        manifest = load_manifest(self.directory)
        return f"{manifest.name}@{manifest.version}" if manifest.version else manifest.name


def _is_bot_dir(ref: str) -> bool:
    return (Path(ref) / "bot.toml").is_file()


_HOST_PORT = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):[0-9]{1,5}")


def is_endpoint(ref: str) -> bool:
    """``HOST:PORT`` or ``unix:/PATH`` of a bot already running (and no directory of that
    name)."""
    if ref.startswith("unix:/") and not ref.startswith("unix://"):
        return not Path(ref).exists()
    return bool(_HOST_PORT.fullmatch(ref)) and not Path(ref).exists()


def _resolve(ref: str, store: Any, data_dir: Path | None) -> BotSpec:
    """A bot directory (registered into ``store`` when there is one), a registered name, or a
    remote endpoint ``HOST:PORT``."""
    if is_endpoint(ref):
        return BotSpec(ref, None, remote=True)
    if _is_bot_dir(ref):
        directory = Path(ref).resolve()
        if store is None:
            return BotSpec(ref, directory)

        assert data_dir is not None
        submitted = BotSubmissions(store, data_dir, ArchiveLimits()).submit(
            pack_directory(directory), owner_only=False
        )
        # Run the directory that was named: the stored copy has the same content.
        return BotSpec(ref, directory, submitted.version)
    if Path(ref).exists():
        raise ArenaError(f"{ref}: not a bot directory (it has no bot.toml)")
    if "/" in ref or ref.startswith((".", "~")):
        raise ArenaError(f"{ref}: no such directory")

    if store is None:
        if (sample := _sample_bot(ref)) is not None:
            return BotSpec(ref, sample)
        raise ArenaError(
            f"{ref!r} is not a bot directory or a sample bot, and a registered name needs the "
            "database (drop --no-record)"
        )
    try:
        version = store.get_bot_version(ref)
    except NotFoundError:
        if (sample := _sample_bot(ref)) is None:
            raise
        return _resolve(str(sample), store, data_dir)  # registered as its directory would be
    return BotSpec(ref, Path(version.source), version)


def _sample_bot(name: str) -> Path | None:
    """The sample bot called ``name`` (as ``tournament run`` and ``compare`` take it), or None;
    one that cannot run here is an error saying why."""
    path = sample_bot_dirs().get(name)
    if path is None:
        return None
    why = sample_bot_unavailable(path)
    if why is not None:
        raise ArenaError(f"sample bot {name} cannot run here: {why}")
    return path


def _start(
    spec: BotSpec,
    stack: ExitStack,
    startup_timeout: float | None,
    sandbox: str | None,
    log_dir: Path | None = None,
) -> Any:
    if spec.remote:
        timeout = 5.0 if startup_timeout is None else startup_timeout
        return stack.enter_context(connect_remote("remote", spec.ref, timeout=timeout))
    assert spec.directory is not None
    manifest = load_manifest(spec.directory)
    kwargs: dict[str, Any] = {"sandbox": sandbox}
    if startup_timeout is not None:
        kwargs["startup_timeout"] = startup_timeout
    if log_dir is not None:
        kwargs["log_dir"] = log_dir
    return stack.enter_context(start_bot(manifest, **kwargs))


def play(
    refs: tuple[str, str],
    *,
    seed: int,
    rules: RuleSet,
    clock: ClockConfig,
    policy: FaultPolicy,
    db: str | None,
    record: bool,
    startup_timeout: float | None = None,
    sandbox: str | None = None,
    log_dir: Path | None = None,
    data_dir: Path | None = None,
) -> tuple[MatchResult, Any]:
    """Resolve, start, play, stop, record; the result and the store's record (or None).

    Each seat's log is kept in ``log_dir/seat<N>/``, else (when recording) in the data dir's
    ``logs/match-<id>/seat<N>/`` (``data_dir``, else the database's own), where
    ``arena match logs`` finds it."""
    mid = new_match_id()
    if record and any(is_endpoint(r) for r in refs):
        # A remote bot has no files, so no version to record the match under.
        print(
            "arena: a remote seat (HOST:PORT) is not recorded: the match is played with "
            "--no-record",
            file=sys.stderr,
        )
        record = False
    with ExitStack() as stack:
        store = None
        if record:
            store = stack.enter_context(Store.open(db))
            store.check_rating_settings()  # refused before play, not after the match
        data_dir = data_dir_of(db, data_dir) if record else None
        specs = (_resolve(refs[0], store, data_dir), _resolve(refs[1], store, data_dir))
        names = (specs[0].label, specs[1].label)
        folder = log_dir
        if folder is None and data_dir is not None:
            folder = botlogs.match_log_dir(botlogs.logs_root(data_dir), mid)
        running: list[Any] = []
        failures: list[str] = []
        with ExitStack() as bots:
            for seat, spec in enumerate(specs):
                try:
                    # Under the name the record shows (``name@version``).
                    seat_dir = None if folder is None else botlogs.seat_log_dir(folder, seat)
                    bot = _start(spec, bots, startup_timeout, sandbox, seat_dir)
                    running.append(SeatBot(names[seat], bot))
                except ArenaError as exc:
                    running.append(None)
                    failures.append(f"seat {seat} ({names[seat]}): did not start: {exc}")
            if failures:
                forfeit = None if len(failures) == 2 else (0 if running[0] is None else 1)
                result = unplayed_result(
                    names,
                    seed=seed,
                    forfeit_seat=forfeit,
                    detail="; ".join(failures),
                    rules=rules,
                    match_id=mid,
                )
            else:
                seats = (running[0], running[1])
                botlogs.mark_start(seats, mid)
                result = None
                try:
                    result = play_match(
                        seats, seed=seed, rules=rules, clock=clock, policy=policy, match_id=mid
                    )
                finally:
                    botlogs.mark_end(seats, mid, result)
        assert result is not None  # play_match returned (or raised)
        recorded = None
        if store is not None:
            recorded = store.record_match(
                result, seat_versions=(specs[0].version.id, specs[1].version.id)
            )
        return result, recorded


def match(
    bot_a: Annotated[str, typer.Argument(help="Seat 0: a bot directory or a registered name.")],
    bot_b: Annotated[str, typer.Argument(help="Seat 1: a bot directory or a registered name.")],
    seed: Annotated[
        int | None, typer.Option("--seed", help="The deal seed (default: a random one).")
    ] = None,
    move_timeout: Annotated[
        int, typer.Option("--move-timeout", help="Per-decision limit in milliseconds.")
    ] = 1000,
    time_bank: Annotated[
        int,
        typer.Option(
            "--time-bank", help="Per-match reserve in milliseconds for decisions over the limit."
        ),
    ] = 0,
    policy: Annotated[
        str,
        typer.Option(
            "--policy",
            help="On a fault: 'forfeit' at once, or 'substitute' a random legal action "
            "(forfeit after --max-faults).",
        ),
    ] = "forfeit",
    max_faults: Annotated[
        int, typer.Option("--max-faults", help="Faults that forfeit under 'substitute'.")
    ] = 3,
    target_score: Annotated[
        int | None,
        typer.Option(
            "--target-score",
            help=f"The score that ends the match (R-1.2; default {RuleSet().target_score}); "
            "the same as --rules target_score=N.",
            show_default=False,
        ),
    ] = None,
    max_hands: Annotated[
        int | None,
        typer.Option(
            "--max-hands",
            help=f"The hand limit (R-6.3; default {RuleSet().max_hands}); the same as --rules "
            "max_hands=N.",
            show_default=False,
        ),
    ] = None,
    rules: RulesOption = None,
    startup_timeout: Annotated[
        float | None,
        typer.Option(
            "--startup-timeout",
            help="Seconds a bot may take to start (default: the runtime's).",
            show_default=False,
        ),
    ] = None,
    record: Annotated[
        bool,
        typer.Option("--record/--no-record", help="Record the match in the database."),
    ] = True,
    log_dir: LogDirOption = None,
    db: DbOption = None,
    data_dir: DataDirOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    sandbox: SandboxOption = None,
) -> None:
    """Play one match between BOT_A (seat 0) and BOT_B (seat 1) and print the result.

    Exits 1 when a bot could not start (the forfeit is recorded all the same)."""
    if policy not in ("forfeit", "substitute"):
        raise typer.BadParameter("use 'forfeit' or 'substitute'", param_hint="--policy")
    mode = check_sandbox(sandbox)
    rule_set = rules_from_options(rules, {"target_score": target_score, "max_hands": max_hands})
    result, recorded = play(
        (bot_a, bot_b),
        seed=seed if seed is not None else random.SystemRandom().randrange(2**31),
        rules=rule_set,
        clock=ClockConfig(move_time_ms=move_timeout, time_bank_ms=time_bank),
        policy=FaultPolicy(policy, max_faults=max_faults),  # type: ignore[arg-type]
        db=db,
        record=record,
        startup_timeout=startup_timeout,
        sandbox=mode,
        log_dir=log_dir,
        data_dir=data_dir,
    )
    not_started = result.termination is Termination.FORFEIT_NO_START
    if as_json:
        data = result_to_dict(result)
        data["recorded"] = (
            None
            if recorded is None
            else {
                "sequence": recorded.sequence,
                "rated": recorded.rated,
                "unrated_reason": recorded.unrated_reason,
            }
        )
        typer.echo(json.dumps(data))
        if not_started:
            raise typer.Exit(1)
        return
    typer.echo(summary_text(result))
    if recorded is not None:
        rated = "rated" if recorded.rated else describe_unrated(recorded.unrated_reason)
        typer.echo(
            f"Recorded as match {result.match_id} ({rated}): arena replay {result.match_id}; "
            f"bot logs: arena match logs {result.match_id} --seat 0|1"
        )
    if not_started:
        raise typer.Exit(1)
