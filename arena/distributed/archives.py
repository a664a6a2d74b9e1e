"""Bot versions on a cluster node: fetched by content hash, checked, unpacked once per node.

The coordinator packs each bot directory it plays (the deterministic tar.gz of
``arena.runtime.archive``) and puts the bytes in Ray's object store under the bot version's
content hash. A node trusts nothing it receives: the archive is unpacked with the same checks as
an upload, into a scratch directory, and its ``bot_content_hash`` must be the hash it was sent
under before the directory is renamed into place. A directory already in place (another worker
of the node unpacked it) is hashed again before use, so nothing runs that is not the version the
tournament names.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path

from arena.errors import ArenaError
from arena.runtime import bot_content_hash
from arena.runtime.archive import ArchiveLimits, pack_directory, unpack_archive

CACHE_ENV = "ARENA_RAY_BOT_DIR"
"""Where a node keeps unpacked bots (default: ``<tmp>/arena-ray-bots``), one folder per node."""
PACK_LIMITS = ArchiveLimits(
    max_archive_bytes=1024 * 1024 * 1024,
    max_entries=200_000,
    max_unpacked_bytes=4 * 1024 * 1024 * 1024,
)
"""The organiser's own bots: far wider caps than an upload's, but still caps."""
INCOMING_PREFIX = ".incoming-"


class ArchiveMismatchError(ArenaError):
    """What a node received is not the bot version it was sent as: nothing of it is run."""


def pack_bot(directory: str | os.PathLike[str]) -> bytes:
    return pack_directory(Path(directory), PACK_LIMITS)


def default_cache_root() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path(tempfile.gettempdir()) / "arena-ray-bots")


def node_bot_dir(cache: Path, name: str, content_hash: str, fetch: Callable[[], bytes]) -> Path:
    """The checked directory of bot version ``content_hash`` on this node, unpacked from
    ``fetch()`` (the archive's bytes) the first time; ArchiveMismatchError if it is not that
    version."""
    if not _is_hash(content_hash):
        raise ArchiveMismatchError(f"bot {name}: {content_hash!r} is not a content hash")
    cache.mkdir(parents=True, exist_ok=True)
    final = cache / content_hash
    if final.is_dir():
        got = bot_content_hash(final)
        if got != content_hash:
            raise ArchiveMismatchError(
                f"bot {name}: the node's copy {final} has content hash {got[:12]}, not "
                f"{content_hash[:12]}; refused (remove it to fetch the bot again)"
            )
        return final
    incoming = cache / f"{INCOMING_PREFIX}{uuid.uuid4().hex}"
    try:
        unpack_archive(fetch(), incoming, PACK_LIMITS)
        got = bot_content_hash(incoming)
        if got != content_hash:
            raise ArchiveMismatchError(
                f"bot {name}: the archive this node received has content hash {got[:12]}, not "
                f"{content_hash[:12]} as sent; refused, nothing of it was run"
            )
        try:
            os.rename(incoming, final)
        except OSError:
            if not final.is_dir():  # not just another worker of this node that got there first
                raise
    finally:
        shutil.rmtree(incoming, ignore_errors=True)
    return final


def _is_hash(text: str) -> bool:
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)
