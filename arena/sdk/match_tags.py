"""Each line a bot writes while serving a match, tagged with that match's id.

One bot process serves many matches at once, and the arena keeps one log for all of them; it
cuts each match's log out of it by the bot's own word: a line that begins ``[match <id>] ``
belongs to match ``<id>`` (``arena.tournament.botlogs``; the convention for other languages is
in docs/bots-and-manifests.md). The SDK knows which match each call serves (its request's
``match_id``), so it tags for the bot: ``serve`` wraps ``sys.stdout`` and ``sys.stderr`` so that
a line begun while a call of match ``t3-g5`` runs, from ``print`` or ``logging`` alike, starts
with ``[match t3-g5] ``. Lines written outside any call (start-up, shutdown) stay untagged.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TextIO

CURRENT_MATCH: ContextVar[str | None] = ContextVar("arena_sdk_current_match", default=None)
"""The match the running call serves (None outside a call)."""


def tag(match_id: str) -> str:
    """The prefix of a line about ``match_id``: ``[match t3-g5] ``."""
    return f"[match {match_id}] "


@contextlib.contextmanager
def serving(match_id: str) -> Iterator[None]:
    """While the body runs (in this thread or task), what is written is about ``match_id``."""
    token = CURRENT_MATCH.set(match_id or None)
    try:
        yield
    finally:
        CURRENT_MATCH.reset(token)


class _Pending:
    """A thread's partial line, the match it began in, and whether its start went out already
    (a flush)."""

    __slots__ = ("flushed", "match", "text")

    def __init__(self) -> None:
        self.text = ""
        self.match: str | None = None
        self.flushed = False


class TaggedStream:
    """A text stream that writes whole lines, each begun while a match is served with its tag.

    ``print`` writes a line in two calls (the text, then the newline), and a bot serving
    several matches prints from several threads at once: each thread's partial line waits in
    its own buffer until it is whole (or flushed), then goes out in one write, so lines of
    different matches never run into each other."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._local = threading.local()

    def _pending(self) -> _Pending:
        pending: _Pending | None = getattr(self._local, "pending", None)
        if pending is None:
            pending = self._local.pending = _Pending()
        return pending

    def write(self, text: str) -> int:
        if not text:
            return 0
        pending = self._pending()
        if not pending.text:
            pending.match = CURRENT_MATCH.get()  # the match of the call that begins the line
        whole, _, rest = (pending.text + text).rpartition("\n")
        if "\n" in text:
            lines = (whole + "\n").splitlines(keepends=True)
            current = CURRENT_MATCH.get()
            out = "".join(
                (tag(m) if (m := pending.match if i == 0 else current) and line.strip() else "")
                + line
                if i > 0 or not pending.flushed
                else line
                for i, line in enumerate(lines)
            )
            with self._lock:
                self._stream.write(out)
            pending.text, pending.match, pending.flushed = rest, current if rest else None, False
        else:
            pending.text += text
        return len(text)

    def flush(self) -> None:
        pending = self._pending()
        if pending.text:
            m = pending.match
            with self._lock:
                self._stream.write((tag(m) if m and not pending.flushed else "") + pending.text)
            pending.text, pending.flushed = "", True
        self._stream.flush()

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def tag_output() -> None:
    """Wrap ``sys.stdout`` and ``sys.stderr`` (once) so that lines written during a call are
    tagged with its match; ``serve`` calls it before it sets up logging."""
    if not isinstance(sys.stdout, TaggedStream):
        sys.stdout = TaggedStream(sys.stdout)
    if not isinstance(sys.stderr, TaggedStream):
        sys.stderr = TaggedStream(sys.stderr)
