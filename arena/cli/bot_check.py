"""``arena bot check DIR|HOST:PORT``: a bot author's pre-flight before a tournament.

The bot is started as a tournament starts it (its manifest, the runtime, the sandbox, the
start-up timeout) or, given ``HOST:PORT`` or ``unix:PATH``, connected to as ``arena match``
connects to a remote seat; then ``arena.tournament.preflight`` plays it through every RPC kind
against a scripted opponent, judged by the referee with a tournament's clock. Prints a table and
a verdict line; exits 1 when the bot fails.
"""

from __future__ import annotations

import json
import random
import tempfile
import textwrap
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.counts import count
from arena.cli.fitted_table import table_width
from arena.cli.match import BotSpec, _start, is_endpoint
from arena.cli.options import SandboxOption, WideOption, check_sandbox
from arena.cli.rules_option import RulesOption, rules_from_options
from arena.errors import ArenaError
from arena.referee import ClockConfig
from arena.runtime.archive import ArchiveError, ArchiveLimits, pack_directory, unpack_archive

_SHOWN = {
    "DecideDoubleNil": ("declared", "declined"),
    "Draw": ("kept", "rejected"),
    "Bid": ("Nil", "non-Nil", "first to bid", "after the opponent's bid", "opponent in Double Nil"),
    "Play": ("led", "followed", "void in the suit led"),
}
"""Situations always shown for a row that was asked (a 0 says what never happened)."""


def check(
    bot: Annotated[
        str,
        typer.Argument(
            help="The bot: a directory with a bot.toml, or HOST:PORT / unix:PATH of a bot "
            "already running.",
            show_default=False,
        ),
    ],
    seed: Annotated[
        int | None,
        typer.Option("--seed", help="The check's seed (default: a random one, then shown)."),
    ] = None,
    move_timeout: Annotated[
        int,
        typer.Option("--move-timeout", help="Time limit of one decision, in ms (as a tournament)."),
    ] = 1000,
    time_bank: Annotated[
        int,
        typer.Option(
            "--time-bank", help="Per-match time bank beyond the limit, in ms (as a tournament)."
        ),
    ] = 0,
    rules: RulesOption = None,
    matches: Annotated[
        int,
        typer.Option(
            "--matches", help="Matches to play, the bot's seat alternating (at least 2).", min=2
        ),
    ] = 4,
    hands: Annotated[
        int,
        typer.Option("--hands", help="Hands per match at most (max_hands).", min=2),
    ] = 3,
    startup_timeout: Annotated[
        float | None,
        typer.Option(
            "--startup-timeout",
            help="Seconds the bot may take to start (default: its manifest's, as a tournament).",
            show_default=False,
        ),
    ] = None,
    sandbox: SandboxOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    wide: WideOption = False,
) -> None:
    """Play BOT through every RPC against a scripted opponent, judged as a tournament judges.

    Prints each RPC kind: asked, answered, legal, time, what the bot did; then a verdict.

    PASS exits 0; FAIL: <reason> exits 1 (refused by `bot submit`'s archive checks, cannot
    start, crash, illegal, timeout, error); a manifest that does not load exits 2."""
    # Here, not at the top: the SDK it brings is not needed by `arena --help`.
    from arena.tournament.preflight import check_bot, start_for_check

    mode = check_sandbox(sandbox)
    rule_set = rules_from_options(rules, {})
    clock = ClockConfig(move_time_ms=move_timeout, time_bank_ms=time_bank)
    seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    if is_endpoint(bot):
        spec = BotSpec(bot, None, remote=True)
        label = bot
    else:
        path = Path(bot)
        if not path.exists():
            raise ArenaError(f"{bot}: no such directory")
        if not (path / "bot.toml").is_file():
            raise ArenaError(f"{bot}: not a bot directory (it has no bot.toml)")
        spec = BotSpec(bot, path.resolve())
        # A manifest that does not load is a usage error with the manifest's own message.
        label = spec.label
        refused = _archive_problem(path)
        if refused is not None:
            why = f"would be refused by `arena bot submit`: {refused}"
            _fail(label, why, seed, as_json)
            raise typer.Exit(1)
    with ExitStack() as stack:
        try:
            if spec.remote:
                running = _start(spec, stack, startup_timeout, mode)
            else:
                assert spec.directory is not None
                running = stack.enter_context(
                    start_for_check(
                        spec.directory, seed=seed, sandbox=mode, startup_timeout=startup_timeout
                    )
                )
        except ArenaError as exc:
            _not_started(label, str(exc), seed, as_json)
            raise typer.Exit(1) from None
        report = check_bot(
            running, seed=seed, clock=clock, rules=rule_set, hands=hands, matches=matches
        )
    report.bot = label
    if as_json:
        typer.echo(json.dumps(report.to_dict()))
    else:
        typer.echo(format_report(report, table_width(wide)))
    if not report.passed:
        raise typer.Exit(1)


def _archive_problem(directory: Path) -> str | None:
    """What ``arena bot submit`` would refuse in ``directory`` (an absolute link, a link out of
    the folder, a device, too many files, …): the submission's own checks, packing and
    unpacking, run here before anything starts."""
    limits = ArchiveLimits()
    try:
        archive = pack_directory(directory, limits)
        with tempfile.TemporaryDirectory(prefix="arena-check-") as scratch:
            unpack_archive(archive, Path(scratch) / "bot", limits)
    except ArchiveError as exc:
        return str(exc)
    return None


def _not_started(label: str, why: str, seed: int, as_json: bool) -> None:
    _fail(label, f"did not start: {why}", seed, as_json)


def _fail(label: str, why: str, seed: int, as_json: bool) -> None:
    reason = f"{label} {why}"
    if as_json:
        typer.echo(
            json.dumps({"bot": label, "verdict": f"FAIL: {reason}", "passed": False,
                        "reason": reason, "seed": seed})
        )  # fmt: skip
    else:
        typer.echo(f"FAIL: {reason}")


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _situations(rpc: str, counts: dict[str, int]) -> str:
    shown = list(_SHOWN.get(rpc, ()))
    shown += [k for k in sorted(counts) if k not in shown]
    return ", ".join(f"{k}: {counts.get(k, 0)}" for k in shown)


SEEN_BESIDE = 30
"""Columns the "seen" text needs beside the figures; with fewer it goes on lines of its own."""


def format_report(report: Any, width: int | None = None) -> str:
    """The table and the verdict line; ``width`` fits the table (None: 100 columns), the "seen"
    text beside the figures or, where that is too narrow, on lines of its own below them."""
    clock = report.clock.describe()
    n = len(report.matches)
    lines = [
        f"{report.bot}: {n} match{'es' if n != 1 else ''} of at most {report.rules.max_hands} "
        f"hands against a scripted opponent",
        f"clock {clock}; seed {report.seed}"
        + ("" if report.sandbox is None else f"; sandbox {'on' if report.sandbox else 'off'}"),
    ]
    header = ("RPC", "asked", "answered", "legal", "median ms", "max ms", "seen")
    widths = (15, 5, 8, 5, 9, 7)
    rows: list[tuple[str, ...]] = [header]
    notes = report.not_exercised()
    entries = [(rpc, t) for rpc, t in report.rows.items()]
    if report.session is not None:
        entries.append(("PlaySession", report.session))
    for rpc, t in entries:
        if rpc == "PlaySession":
            stream = sum(1 for m in report.matches if m["transport"] == "PlaySession")
            on_stream = count(stream, "match")
            seen = f"requests on the stream ({on_stream}; {n - stream} over unary RPCs)"
            if not t.asked:
                seen = "listed through reflection but turned down: unary RPCs instead"
        elif rpc in notes:
            seen = f"not exercised: {notes[rpc]}"
        else:
            seen = _situations(rpc, t.situations)
        asked = t.asked
        rows.append(
            (rpc, str(asked), str(t.answered) if asked else "-", str(t.legal) if asked else "-",
             _ms(t.median_ms), _ms(t.max_ms), seen)
        )  # fmt: skip
    indent = sum(widths) + 2 * len(widths)
    target = 100 if width is None else width
    beside = target - indent >= SEEN_BESIDE
    for row in rows:
        numbers = zip(row[1:6], widths[1:], strict=True)
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in numbers]
        first = "  ".join(cells) + "  "
        if beside:
            wrapped = textwrap.wrap(row[6], target - indent) or [""]
            lines.append((first + wrapped[0]).rstrip())
            lines.extend(" " * indent + more for more in wrapped[1:])
        else:
            lines.append(first.rstrip())
            lines.extend("    " + more for more in textwrap.wrap(row[6], max(20, target - 4)))
    if report.session is None:
        lines.append("PlaySession: not served (not listed through server reflection): unary RPCs")
    for note in report.notes:
        lines.append(f"note: {note}")
    lines.append(report.verdict)
    return "\n".join(lines)
