"""A bot's output, drained into a log file of bounded size.

The reader never stops draining the pipe: past the cap it counts and discards, so a bot that
floods its output never blocks on a full pipe and never fills the disk.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import threading
from pathlib import Path

DEFAULT_LOG_LIMIT = 1 << 20
_F_SETPIPE_SZ = 1031  # Linux: a 1 MiB pipe means fewer, larger reads under a flood.
_TAIL_BYTES = 8192


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
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._file = path.open("wb", buffering=0)
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, _F_SETPIPE_SZ, 1 << 20)
        self._thread = threading.Thread(target=self._run, name=f"arena-bot-log-{name}", daemon=True)
        self._thread.start()

    @property
    def dropped_bytes(self) -> int:
        return self.total_bytes - self.written_bytes

    def tail(self, lines: int = 10) -> str:
        """The last ``lines`` non-empty lines of the output."""
        with self._lock:
            text = self._tail.decode("utf-8", errors="replace")
        kept = [line.rstrip() for line in text.splitlines() if line.strip()]
        return "\n".join(kept[-lines:])

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
            self._file.close()
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
            self.written_bytes += len(kept)
            if len(chunk) > room:
                self._file.write(
                    f"\n[arena] log limit of {self.limit} bytes reached: later output is "
                    "counted, not kept\n".encode()
                )
