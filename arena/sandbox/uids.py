"""One unprivileged uid per running bot, from a configurable range, leased across processes.

When the arena runs as root, each bot runs as a uid of its own (60000-60999 by default, set by
``ARENA_SANDBOX_UIDS=FIRST-LAST``), so that ``RLIMIT_NPROC``, signals and file permissions never
cross bots. The uids need no ``/etc/passwd`` entry. A lease is an exclusive ``flock`` on a file
per uid: several arena processes on one host never hand out the same uid, and a lease held by a
process that died is free again at once (the kernel drops its locks).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import threading
from pathlib import Path

from arena.errors import ArenaError

UIDS_ENV = "ARENA_SANDBOX_UIDS"
DEFAULT_UIDS = (60000, 60999)
_LEASE_DIRS = (Path("/run/arena-sandbox/uids"), Path("/tmp/arena-sandbox-uids"))
_lock = threading.Lock()


def uid_range() -> tuple[int, int]:
    """The configured range, checked: never root, never a uid that has a passwd entry's home."""
    text = os.environ.get(UIDS_ENV)
    if not text:
        return DEFAULT_UIDS
    try:
        first_s, last_s = text.split("-")
        first, last = int(first_s), int(last_s)
    except ValueError:
        raise ArenaError(
            f"{UIDS_ENV} must be FIRST-LAST (e.g. 60000-60999), not {text!r}"
        ) from None
    if not 1000 <= first <= last < 2**31 - 1:
        raise ArenaError(f"{UIDS_ENV}: the range must lie within 1000..2147483646, not {text!r}")
    return first, last


class UidLease:
    """A uid held until :meth:`release` (or until this process ends)."""

    def __init__(self, uid: int, fd: int) -> None:
        self.uid = uid
        self._fd: int | None = fd

    def release(self) -> None:
        with _lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __repr__(self) -> str:
        return f"<UidLease {self.uid}>"


def _lease_dir() -> Path:
    for path in _LEASE_DIRS:
        try:
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(path, os.W_OK):
            return path
    raise ArenaError("no directory to keep uid leases in (/run/arena-sandbox, /tmp)")


def _has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def lease_uid() -> UidLease:
    """The lowest free uid of the range; ArenaError when every one is in use."""
    first, last = uid_range()
    directory = _lease_dir()
    with _lock:
        for uid in range(first, last + 1):
            if _has_account(uid):
                continue  # a real account's files must not become a bot's
            fd = os.open(directory / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            except BaseException:
                os.close(fd)
                raise
            return UidLease(uid, fd)
    raise ArenaError(f"every sandbox uid of {first}-{last} is in use ({UIDS_ENV} sets the range)")


def release_quietly(lease: UidLease | None) -> None:
    if lease is not None:
        with contextlib.suppress(OSError):
            lease.release()
