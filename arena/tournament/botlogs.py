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
``[arena] EndMatch t3-g5 …``); :func:`read_match_log` cuts one match's lines out with them.
Lines a bot wrote for another match it was playing at the same moment may interleave.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.runtime.botlog import MARK_PREFIX, mark_log

LOGS_FOLDER = "logs"
_UNSAFE = re.compile(r"[^A-Za-z0-9._@+-]")


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
            against = (
                f" against {getattr(bots[1 - seat], 'name', '?')}" if reveal_opponents else ""
            )
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


def cut_match(text: str, match_id: str) -> str | None:
    """The lines of ``text`` from each ``StartMatch <id>`` to its ``EndMatch <id>`` (or to the
    end, when the arena stopped before it); None when the match is not in it."""
    start, end = start_marker(match_id), end_marker(match_id)
    out: list[str] = []
    inside = False
    found = False
    for line in text.splitlines():
        if line.startswith(start):
            inside = found = True
        elif _is_marker(line) and not line.startswith(end):
            continue  # another match's marker, between this one's lines
        if inside:
            out.append(line)
        if inside and line.startswith(end):
            inside = False
    return "\n".join(out) + "\n" if found else None


def read_match_log(
    store: Any,
    match_id: str,
    seat: int,
    *,
    data_dir: Path | None = None,
    log_dir: Path | None = None,
) -> str | None:
    """Seat ``seat``'s log of a recorded match: the lines between its markers when the log is
    shared by a tournament, the whole log of an ``arena match``; None when no log was kept.

    ``data_dir`` is the store's data folder (``arena.service.submission.default_data_dir``);
    ``log_dir`` the folder given as ``--log-dir`` when the match was played. Raises the store's
    ``NotFoundError`` for an unknown match, ``ValueError`` for a seat other than 0 or 1.
    """
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat}")
    summary = store.get_match(match_id).summary
    folder = seat_log_folder(summary, seat, data_dir=data_dir, log_dir=log_dir)
    if folder is None or not folder.is_dir():
        return None
    files = sorted(folder.glob("*.log"))
    if not files:
        return None
    text = "".join(f.read_text("utf-8", errors="replace") for f in files)
    if summary.tournament_id is None:
        return text
    return cut_match(text, match_id)
