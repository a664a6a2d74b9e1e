"""A bot's output, drained into a log file of bounded size.

The reader never stops draining the pipe: past the cap it counts and discards, so a bot that
floods its output never blocks on a full pipe and never fills the disk.

A log is appended to, never truncated: a bot restarted into the same file (a tournament's bot
after a crash, or on resume) keeps what its earlier runs wrote, each run capped on its own. The
arena writes marker lines of its own into the stream (``mark``: ``[arena] StartMatch …``), so a
reader can cut one match's lines out of a log that many matches shared; each run begins with
``[arena] BotStart <name>``, so what a bot prints while starting (before its first match) can be
read as a log of its own (``arena.tournament.botlogs``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import threading
import weakref
from pathlib import Path

DEFAULT_LOG_LIMIT = 1 << 20
_F_SETPIPE_SZ = 1031  # Linux: a 1 MiB pipe means fewer, larger reads under a flood.
_TAIL_BYTES = 8192
MARK_PREFIX = "[arena] "
"""How the arena's own lines in a bot's log begin."""
BOT_START = "BotStart"
"""The marker that opens each run of a bot in its log: ``[arena] BotStart <name>``."""

_open_logs: weakref.WeakValueDictionary[Path, CappedLog] = weakref.WeakValueDictionary()
_open_logs_lock = threading.Lock()


def mark_log(path: Path, text: str) -> bool:
    """Write the arena's line ``[arena] text`` into the log at ``path``: between two chunks of
    output while the bot runs, at the end once its output has ended (a crashed bot's log gets
    its ``EndMatch`` too). False when there is no log there any more."""
    with _open_logs_lock:
        log = _open_logs.get(Path(path))
    if log is not None and log.mark(text):
        return True
    try:
        with Path(path).open("rb+") as f:
            f.seek(0, os.SEEK_END)
            at_line_start = f.tell() == 0 or (f.seek(-1, os.SEEK_END) or f.read(1) == b"\n")
            f.seek(0, os.SEEK_END)
            f.write((b"" if at_line_start else b"\n") + _mark_line(text))
    except OSError:
        return False
    return True


def _mark_line(text: str) -> bytes:
    return f"{MARK_PREFIX}{' '.join(text.split())}\n".encode()


def _ends_a_line(path: Path) -> bool:
    """The file is empty or its last byte ends a line."""
    with path.open("rb") as f:
        f.seek(0, os.SEEK_END)
        if f.tell() == 0:
            return True
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"


class CappedLog:
    """Copies everything read from ``fd`` to ``path`` up to ``limit`` bytes, counts the rest, and
    keeps the last few KiB in memory (the real end of the output, even past the cap)."""

    def __init__(self, fd: int, path: Path, *, limit: int = DEFAULT_LOG_LIMIT, name: str) -> None:
        self.path = path
        self.limit = limit
        self.total_bytes = 0
        self.written_bytes = 0
        self._fd = fd
        self._tail = bytearray()
        self._line_start = True
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._file = path.open("ab", buffering=0)
        # A run's first line: where its start-up output begins (after an earlier run's last,
        # possibly unfinished, line).
        self._file.write((b"" if _ends_a_line(path) else b"\n") + _mark_line(f"{BOT_START} {name}"))
        with _open_logs_lock:
            _open_logs[path] = self
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, _F_SETPIPE_SZ, 1 << 20)
        self._thread = threading.Thread(target=self._run, name=f"arena-bot-log-{name}", daemon=True)
        self._thread.start()

    @property
    def dropped_bytes(self) -> int:
        return self.total_bytes - self.written_bytes

    def tail(self, lines: int = 10, *, wait_s: float = 0.0) -> str:
        """The last ``lines`` non-empty lines of the output; with ``wait_s``, after waiting up
        to that long for the end of the output (the bot has exited: what it wrote last may
        still be in the pipe, not yet read)."""
        if wait_s > 0:
            self._thread.join(wait_s)
        with self._lock:
            text = self._tail.decode("utf-8", errors="replace")
        kept = [line.rstrip() for line in text.splitlines() if line.strip()]
        return "\n".join(kept[-lines:])

    def mark(self, text: str) -> bool:
        """Write the arena's own line into the log, between two chunks of the bot's output.

        Markers are written even past the cap (they are small and few: two a match), and are
        not counted as the bot's output."""
        line = _mark_line(text)
        with self._lock:
            if self._file.closed:
                return False
            self._file.write(line if self._line_start else b"\n" + line)
            self._line_start = True
        return True

    def close(self, timeout: float = 2.0) -> None:
        """Wait up to ``timeout`` for the end of the output, then stop reading and close."""
        self._thread.join(timeout)
        self._closing.set()
        self._thread.join()

    def _run(self) -> None:
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        reads_after_close = 0
        try:
            while True:
                if self._closing.is_set():
                    # Someone outside the bot's tree still holds the pipe: take what is there.
                    reads_after_close += 1
                    if reads_after_close > 16 or not poller.poll(0):
                        break
                elif not poller.poll(200):
                    continue
                chunk = os.read(self._fd, 1 << 20)
                if not chunk:
                    break
                self._take(chunk)
        except OSError:
            pass
        finally:
            if self.dropped_bytes:
                self._file.write(
                    f"\n[arena] {self.dropped_bytes} more bytes of output were dropped\n".encode()
                )
            with self._lock:
                self._file.close()
            with _open_logs_lock:
                if _open_logs.get(self.path) is self:
                    del _open_logs[self.path]
            os.close(self._fd)

    def _take(self, chunk: bytes) -> None:
        with self._lock:
            self.total_bytes += len(chunk)
            self._tail += chunk[-_TAIL_BYTES:]
            del self._tail[:-_TAIL_BYTES]
            room = self.limit - self.written_bytes
            if room <= 0:
                return
            kept = chunk[:room]
            self._file.write(kept)
            self._line_start = kept.endswith(b"\n")
            self.written_bytes += len(kept)
            if len(chunk) > room:
                self._file.write(
                    f"\n[arena] log limit of {self.limit} bytes reached: later output is "
                    "counted, not kept\n".encode()
                )
