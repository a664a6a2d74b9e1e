"""Bot submissions: a checked archive becomes a content-addressed directory and a bot version.

Layout of the data directory (``--data-dir``; by default beside a SQLite database, as
``<database stem>-data/``)::

    bots/<content hash>/        one directory per distinct bot content, never changed once there
    bots/.incoming-<random>/    an upload being checked; removed whatever happens

An upload is unpacked into ``.incoming-…``, checked (archive rules, then the manifest through
the bot runtime's ``load_manifest``), hashed with the runtime's ``bot_content_hash`` and only then
renamed into place, atomically, so that a bad archive leaves nothing behind and a directory under
``bots/`` is always complete. The same content submitted twice is stored once.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy.engine import make_url

from arena.errors import ArenaError
from arena.runtime.archive import ArchiveError, ArchiveLimits, unpack_archive
from arena.runtime.manifest import bot_content_hash, load_manifest
from arena.service.permissions import PolicyError, QuotaError, Quotas
from arena.store import BotVersionInfo, NotFoundError, NotOwnerError, Store
from arena.store.errors import not_owner_message

DATA_DIR_ENV = "ARENA_DATA_DIR"
INCOMING_PREFIX = ".incoming-"
MAX_MANIFEST_BYTES = 64 * 1024
"""bot.toml is refused above this before it is parsed (a huge one costs seconds of CPU)."""


class VersionTakenError(ArenaError):
    """A version label the bot already has, with other content: a version names one build."""


class StartCheckError(ArchiveError):
    """The submitted bot did not start and answer its health check (the message says why,
    with its output: it goes to the submitter alone)."""


StartCheck = Callable[[Path], None]
"""Starts the bot in a folder once and raises ``ArenaError`` if it cannot start
(``arena.runtime.start_check.check_starts`` with the server's sandbox)."""


@dataclass(frozen=True, slots=True)
class Submitted:
    version: BotVersionInfo
    created: bool
    """False when this content was already a version of the bot."""
    path: Path


def default_data_dir(db_url: str | None) -> Path:
    """``$ARENA_DATA_DIR``, else ``<db stem>-data`` beside a SQLite file, else ``./arena-data``."""
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        return Path(env).expanduser()
    from arena.store import resolve_url

    url = (
        resolve_url(db_url)
        if db_url or os.environ.get("ARENA_DB")
        else make_url("sqlite:///arena.db")
    )
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        db = Path(url.database).expanduser()
        return db.with_name(db.stem + "-data")
    return Path("arena-data")


class BotSubmissions:
    """Checks uploads and stores them; one per server (thread-safe)."""

    def __init__(
        self,
        store: Store,
        data_dir: Path,
        limits: ArchiveLimits,
        quotas: Quotas | None = None,
        *,
        start_check: StartCheck | None = None,
    ) -> None:
        self._store = store
        self._start_check = start_check
        self.limits = limits
        self.bots_dir = Path(data_dir) / "bots"
        self.bots_dir.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.quotas = quotas or Quotas()
        for stale in self.bots_dir.glob(INCOMING_PREFIX + "*"):
            # What a crashed or killed server left: however deep, it never stops a start.
            remove_tree(stale)

    def submit(
        self,
        archive: bytes,
        *,
        name: str | None = None,
        owner_token_id: int | None = None,
        owner_only: bool = True,
        admin: bool = False,
        quotas: bool | None = None,
        reserved: Iterable[str] = (),
    ) -> Submitted:
        """Check and store ``archive`` as a version of bot ``name`` (default: the manifest's).

        With ``owner_only``, a bot first submitted by another token (or registered locally, with
        no token) raises NotOwnerError, before anything is written. Through the service (a
        token), the quotas apply (QuotaError): submissions per hour, bytes stored per token and
        in total; an admin token is held to the total only. A name in ``reserved`` (the sample
        bots') is refused unless ``admin`` (PolicyError), whether given or the manifest's. A
        version label the bot already has with other content is refused (VersionTakenError).
        New content is started once (``start_check``) before it is kept: a bot that cannot
        start is refused (StartCheckError) and nothing is written.
        """
        counted = owner_token_id is not None if quotas is None else quotas
        if counted and not admin:
            self._check_rate(owner_token_id)
        incoming = self.bots_dir / f"{INCOMING_PREFIX}{uuid.uuid4().hex}"
        incoming.mkdir()
        try:
            unpacked = incoming / "bot"
            contents = unpack_archive(archive, unpacked, self.limits)
            manifest_file = unpacked / "bot.toml"
            if manifest_file.is_file() and manifest_file.stat().st_size > MAX_MANIFEST_BYTES:
                raise ArchiveError(
                    f"the archive's bot.toml is {manifest_file.stat().st_size} bytes; at most "
                    f"{MAX_MANIFEST_BYTES} are read"
                )
            try:
                manifest = load_manifest(unpacked)
            except ArenaError as exc:
                # Name files as the author knows them, not by the server's temporary path.
                message = str(exc)
                for prefix in {str(unpacked.resolve()), str(unpacked)}:
                    message = message.replace(prefix + "/", "").replace(prefix, "the archive")
                raise ArchiveError(f"the archive's bot.toml is not valid: {message}") from None
            bot_name = name or manifest.name
            if not admin and bot_name in set(reserved):
                raise PolicyError(
                    f"bot name {bot_name!r} is reserved for the arena's sample bot: give yours "
                    "another name (bot.toml's name, or --name)"
                )
            if owner_only:
                for bot in self._store.list_bots():
                    if bot.name == bot_name and bot.owner_token_id != owner_token_id:
                        raise NotOwnerError(not_owner_message(bot_name, bot.owner_token_id))
            content_hash = bot_content_hash(unpacked)
            try:
                versions = self._store.list_versions(bot_name)
            except NotFoundError:
                versions = []
            known = {v.content_hash for v in versions}
            if manifest.version and content_hash not in known:
                _check_label_free(bot_name, manifest.version, versions)
            if self._start_check is not None and content_hash not in known:
                self._check_starts(unpacked)
            final = self.bots_dir / content_hash
            with self._lock:
                new_bytes = 0 if final.exists() else contents.unpacked_bytes
                if counted and new_bytes:
                    self._check_room(owner_token_id, new_bytes, admin=admin)
                if not final.exists():
                    os.rename(unpacked, final)
            version = self._store.register_bot_version(
                bot_name,
                manifest.version or content_hash[:12],
                content_hash,
                str(final),
                owner_token_id=owner_token_id,
                owner_only=owner_only,
            )
            if counted:
                self._store.record_submission(owner_token_id, content_hash, new_bytes)
            return Submitted(version, content_hash not in known, final)
        finally:
            remove_tree(incoming)

    def _check_starts(self, folder: Path) -> None:
        assert self._start_check is not None
        try:
            self._start_check(folder)
        except ArenaError as exc:
            message = str(exc)
            # Name files as the author knows them; the server's interpreter as bot.toml does.
            for prefix in {str(folder.resolve()), str(folder)}:
                message = message.replace(prefix + "/", "").replace(prefix, "the bot's folder")
            message = message.replace(sys.executable, "{python}")
            raise StartCheckError(
                f"the bot did not start, so it was not accepted (try it locally with `arena "
                f"bot check DIR`): {message}"
            ) from None

    def _check_rate(self, token_id: int | None) -> None:
        hour_ago = datetime.now(UTC) - timedelta(hours=1)
        made = self._store.submissions_since(token_id, hour_ago)
        if made >= self.quotas.submissions_per_hour:
            raise QuotaError(
                f"your token made {made} submissions in the last hour, its quota: submit again "
                "later (test locally with `arena bot submit DIR` without --server)"
            )

    def _check_room(self, token_id: int | None, new_bytes: int, *, admin: bool) -> None:
        total = self._store.stored_bytes(everyone=True)
        if total + new_bytes > self.quotas.stored_bytes_total:
            raise QuotaError(
                f"the arena's storage for bots is full ({total} bytes stored); ask its admin"
            )
        mine = self._store.stored_bytes(token_id)
        if not admin and mine + new_bytes > self.quotas.stored_bytes_per_token:
            raise QuotaError(
                f"your bots take {mine} bytes on the server and this one {new_bytes}; the quota "
                f"per token is {self.quotas.stored_bytes_per_token}: make the bot smaller "
                "(leave out build outputs and data it does not need)"
            )


def _check_label_free(name: str, label: str, versions: Iterable[BotVersionInfo]) -> None:
    """A version label names one build: the same label with other content is refused."""
    for v in versions:
        if v.version_label == label:
            raise VersionTakenError(
                f"bot {name} already has version {label} with other content (content hash "
                f"{v.content_hash[:12]}); raise `version` in bot.toml (e.g. to {_next(label)}) "
                "and submit again"
            )


def _next(label: str) -> str:
    """A label after ``label``: its last number plus one (``1.1`` -> ``1.2``), else ``.1``."""
    head, _, last = label.rpartition(".")
    if last.isdigit():
        return f"{head}.{int(last) + 1}" if head else str(int(last) + 1)
    return label + ".1"


def remove_tree(path: Path) -> None:
    """Remove ``path`` and everything under it, without recursion (any depth), ignoring errors."""
    stack = [str(path)]
    dirs: list[str] = []
    while stack:
        current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except NotADirectoryError:
            with contextlib.suppress(OSError):
                os.unlink(current)
            continue
        except OSError:
            continue
        dirs.append(current)
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
    for directory in reversed(dirs):
        with contextlib.suppress(OSError):
            os.rmdir(directory)
