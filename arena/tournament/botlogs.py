"""The bots' logs of matches and tournaments: where they are kept, the arena's marker lines in
them, and reading one match's lines back.

A bot's output (stdout and stderr) goes to a size-capped log (``arena.runtime.botlog``). The
arena keeps it under a logs folder, by default ``<data dir>/logs`` (the data dir is the store's:
``--data-dir`` or ``$ARENA_DATA_DIR`` on every command, else ``<db stem>-data`` beside a SQLite
file, else ``./arena-data``):

- ``tournament-<id>/<bot name>/<bot name>.log``: one log per bot for the whole tournament, every
  match it played, its restarts after a crash and every resume appended to it;
- ``match-<match id>/seat<N>/<bot name>.log``: one per seat of an ``arena match``.

``--log-dir DIR`` replaces the ``tournament-<id>`` or ``match-<id>`` folder with ``DIR``.

A bot process plays many matches of a tournament, some at the same time, so the arena writes a
line of its own into the log when each match starts and ends (``[arena] StartMatch t3-g5 …``,
``[arena] EndMatch t3-g5 …``), and the bot says which match a line is about: a line that begins
``[match t3-g5] `` is that match's (the Python SDK tags every line it writes while serving a
match so; docs/bots-and-manifests.md gives the convention for other languages).
:func:`read_match_log` cuts one match's lines out: its markers, the lines tagged with its id
wherever they fall, and the untagged lines written between its markers (a bot that does not tag
its lines and plays two matches at once has its untagged lines in both); never a line tagged
with another match. Each run of a bot begins with ``[arena] BotStart``; what it prints from
there to its first match is its start-up output, in no match's log:
:func:`read_startup_log` reads it as a log of its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.runtime.botlog import BOT_START, MARK_PREFIX, mark_log

LOGS_FOLDER = "logs"
_UNSAFE = re.compile(r"[^A-Za-z0-9._@+-]")
MATCH_TAG = re.compile(r"\[match ([^\]\s]+)\] ")
"""A bot's line about one match begins ``[match <match id>] `` (the match id of its requests)."""


def match_tag(match_id: str) -> str:
    """The prefix of a bot's line about match ``match_id``: ``[match t3-g5] ``."""
    return f"[match {match_id}] "


def tagged_match(line: str) -> str | None:
    """The match id a bot's line is tagged with, or None for an untagged line."""
    found = MATCH_TAG.match(line)
    return found.group(1) if found else None


def logs_root(data_dir: Path) -> Path:
    """Where the arena keeps bot logs for the store whose data dir is ``data_dir``."""
    return Path(data_dir) / LOGS_FOLDER


def _safe(name: str) -> str:
    cleaned = _UNSAFE.sub("_", name).lstrip(".")
    return cleaned or "_"


def tournament_log_dir(root: Path, tournament_id: int) -> Path:
    return Path(root) / f"tournament-{tournament_id}"


def entrant_log_dir(tournament_dir: Path, bot_name: str) -> Path:
    """One folder per bot of a tournament (a bot plays a tournament once)."""
    return Path(tournament_dir) / _safe(bot_name.split("@", 1)[0])


def match_log_dir(root: Path, match_id: str) -> Path:
    return Path(root) / f"match-{_safe(match_id)}"


def seat_log_dir(match_dir: Path, seat: int) -> Path:
    return Path(match_dir) / f"seat{seat}"


def start_marker(match_id: str) -> str:
    return f"{MARK_PREFIX}StartMatch {match_id} "


def end_marker(match_id: str) -> str:
    return f"{MARK_PREFIX}EndMatch {match_id} "


def mark_start(bots: Sequence[Any], match_id: str, *, reveal_opponents: bool = True) -> None:
    """Write ``StartMatch`` into each seat's log (bots without a log are skipped); the
    opponent's name only where bots are told it (a log is read while the match is on)."""
    for seat, bot in enumerate(bots):
        path = getattr(bot, "log_path", None)
        if path is not None:
            against = f" against {getattr(bots[1 - seat], 'name', '?')}" if reveal_opponents else ""
            mark_log(path, f"StartMatch {match_id} seat {seat}{against}")


def mark_end(bots: Sequence[Any], match_id: str, result: Any | None) -> None:
    """Write ``EndMatch`` with how the match ended into each seat's log."""
    if result is None:
        how = "not played to its end"
    else:
        winner = "none" if result.winner is None else f"seat {result.winner}"
        how = (
            f"{result.termination.value}, winner {winner}, "
            f"scores {result.scores[0]} to {result.scores[1]}"
        )
    for bot in bots:
        path = getattr(bot, "log_path", None)
        if path is not None:
            mark_log(path, f"EndMatch {match_id} {how}")


def seat_log_folder(
    summary: Any, seat: int, *, data_dir: Path | None = None, log_dir: Path | None = None
) -> Path | None:
    """The folder of seat ``seat``'s log for a recorded match (a ``MatchSummary``)."""
    if log_dir is None and data_dir is None:
        return None
    if summary.tournament_id is not None:
        tdir = (
            Path(log_dir)
            if log_dir is not None
            else tournament_log_dir(logs_root(Path(data_dir or ".")), summary.tournament_id)
        )
        return entrant_log_dir(tdir, summary.players[seat])
    mdir = (
        Path(log_dir)
        if log_dir is not None
        else match_log_dir(logs_root(Path(data_dir or ".")), summary.match_id)
    )
    return seat_log_dir(mdir, seat)


def _is_marker(line: str) -> bool:
    return line.startswith((f"{MARK_PREFIX}StartMatch ", f"{MARK_PREFIX}EndMatch "))


def _is_run_start(line: str) -> bool:
    return line.startswith(f"{MARK_PREFIX}{BOT_START} ")


def cut_match(text: str, match_id: str) -> str | None:
    """One match's lines of ``text``: from each ``StartMatch <id>`` to its ``EndMatch <id>``
    (or to the end, when the arena stopped before it), less the lines tagged with another
    match, plus the lines tagged with this one wherever they fall; None when the match is not
    in it."""
    start, end = start_marker(match_id), end_marker(match_id)
    out: list[str] = []
    inside = False
    found = False
    for line in text.splitlines():
        if line.startswith(start):
            inside = found = True
        elif _is_run_start(line):
            inside = False  # the bot was restarted: this match's run has ended
            continue
        elif _is_marker(line) and not line.startswith(end):
            continue  # another match's marker, between this one's lines
        tag = tagged_match(line)
        if tag == match_id or (inside and tag is None):
            out.append(line)
        if inside and line.startswith(end):
            inside = False
    return "\n".join(out) + "\n" if found else None


def cut_startup(text: str) -> str | None:
    """What the bot printed while starting, in each of its runs: from ``[arena] BotStart`` to
    the run's first match marker (the markers included, to say where each run begins); None
    when no run is marked."""
    out: list[str] = []
    starting = False
    for line in text.splitlines():
        if _is_run_start(line):
            starting = True
        elif _is_marker(line) or tagged_match(line) is not None:
            starting = False
        if starting:
            out.append(line)
    return "\n".join(out) + "\n" if out else None


def _seat_log_text(
    store: Any, match_id: str, seat: int, data_dir: Path | None, log_dir: Path | None
) -> tuple[Any, str] | None:
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat}")
    summary = store.get_match(match_id).summary
    folder = seat_log_folder(summary, seat, data_dir=data_dir, log_dir=log_dir)
    if folder is None or not folder.is_dir():
        return None
    files = sorted(folder.glob("*.log"))
    if not files:
        return None
    return summary, "".join(f.read_text("utf-8", errors="replace") for f in files)


def read_match_log(
    store: Any,
    match_id: str,
    seat: int,
    *,
    data_dir: Path | None = None,
    log_dir: Path | None = None,
) -> str | None:
    """Seat ``seat``'s log of a recorded match: its lines (``cut_match``) when the log is
    shared by a tournament, the whole log of an ``arena match``; None when no log was kept.

    ``data_dir`` is the store's data folder (``arena.service.submission.default_data_dir``);
    ``log_dir`` the folder given as ``--log-dir`` when the match was played. Raises the store's
    ``NotFoundError`` for an unknown match, ``ValueError`` for a seat other than 0 or 1.
    """
    found = _seat_log_text(store, match_id, seat, data_dir, log_dir)
    if found is None:
        return None
    summary, text = found
    if summary.tournament_id is None:
        return text
    return cut_match(text, match_id)


def read_startup_log(
    store: Any,
    match_id: str,
    seat: int,
    *,
    data_dir: Path | None = None,
    log_dir: Path | None = None,
) -> str | None:
    """The start-up output (``cut_startup``) of the bot in seat ``seat`` of a recorded match:
    every run of it in that log (a tournament's bot restarted after a crash, or on resume, has
    several); None when no log was kept or no run is marked in it."""
    found = _seat_log_text(store, match_id, seat, data_dir, log_dir)
    return None if found is None else cut_startup(found[1])
