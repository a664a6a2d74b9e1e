"""A bot's log of one match, as the owner-only logs page shows it (size-capped).

The text is what ``arena.tournament.botlogs.read_match_log`` reads, the files the service's
GetMatchLog reads; who may see it is ``arena.visibility``'s to say.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_SHOWN_BYTES = 1 << 20
"""The most of a log the page shows (the start is kept; the rest is cut, and says so)."""


@dataclass(frozen=True, slots=True)
class BotLog:
    text: str
    truncated: bool
    size: int
    """Bytes of the log as kept."""


def bot_log(text: str | None) -> BotLog | None:
    """The page's view of a log (None when none was kept)."""
    if text is None:
        return None
    raw = text.encode()
    shown = raw[:MAX_SHOWN_BYTES]
    return BotLog(
        text=shown.decode("utf-8", errors="replace"),
        truncated=len(raw) > MAX_SHOWN_BYTES,
        size=len(raw),
    )
