"""A bot's log of one match (its stderr, size-capped), for the owner-only logs page.

The one place the web reads bot logs from the store. The store keeps them once it offers
``Store.bot_log(match_id, seat) -> bytes | str | None``; until then (and for a match whose log
was not kept) there is none, and the page says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.store import Store

MAX_SHOWN_BYTES = 1 << 20
"""The most of a log the page shows (the start is kept; the rest is cut, and says so)."""


@dataclass(frozen=True, slots=True)
class BotLog:
    text: str
    truncated: bool
    size: int
    """Bytes of the log as stored."""


def bot_log(store: Store, match_id: str, seat: int) -> BotLog | None:
    """The log of the bot in ``seat`` for ``match_id``, or None when none was kept."""
    reader = getattr(store, "bot_log", None)
    if reader is None:
        return None
    data = reader(match_id, seat)
    if data is None:
        return None
    raw = data.encode() if isinstance(data, str) else bytes(data)
    shown = raw[:MAX_SHOWN_BYTES]
    return BotLog(
        text=shown.decode("utf-8", errors="replace"),
        truncated=len(raw) > MAX_SHOWN_BYTES,
        size=len(raw),
    )
