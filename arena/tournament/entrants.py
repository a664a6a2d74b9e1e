"""The bots of a tournament: named on the command line as directories or registered names.

A directory is registered in the store (its content hash makes it a bot version); a name is a
registered bot (its latest version) or, failing that, one of the sample bots shipped with the
arena. Every entrant is known by the directory its process is started from.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.runtime import bot_content_hash, load_manifest
from arena.store import NotFoundError, Store

SAMPLE_BOTS_DIR = Path(__file__).resolve().parents[2] / "sample_bots"
"""The sample bots of a source checkout (``make setup`` installs their dependencies)."""


@dataclass(frozen=True, slots=True)
class TournamentEntrant:
    name: str
    version: str
    """The manifest's version label."""
    version_id: int
    """The store's bot version id."""
    content_hash: str
    source: str
    """The directory the bot's process is started from."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TournamentEntrant:
        return cls(**data)


def sample_bot_dirs() -> dict[str, Path]:
    """The sample bots by manifest name (empty outside a source checkout)."""
    out: dict[str, Path] = {}
    if not SAMPLE_BOTS_DIR.is_dir():
        return out
    for path in sorted(SAMPLE_BOTS_DIR.iterdir()):
        if (path / "bot.toml").is_file():
            try:
                out[load_manifest(path).name] = path
            except ArenaError:
                continue
    return out


SAMPLE_MODULES = {"openspiel_ismcts": ("pyspiel", "pip install -e '.[research]'")}
"""Sample bots that import a Python package the arena's own install does not bring: the module,
and how to install it."""


def sample_bot_unavailable(path: Path) -> str | None:
    """Why a sample bot cannot run on this machine (no ``node``, no ``npm ci``, a compiled bot
    not built, a Python package not installed), or None."""
    needs = SAMPLE_MODULES.get(path.name)
    if needs is not None:
        try:
            found = importlib.util.find_spec(needs[0]) is not None
        except ImportError:
            found = False
        if not found:
            return f"it needs the Python package {needs[0]} ({needs[1]})"
    command = load_manifest(path).command
    program = command[0] if command else ""
    if "/" in program:  # a program of the bot's own, relative to its directory
        if not os.access(path / program, os.X_OK):
            return f"{program} is not built (run `make` in {path}, or `make cpp-bot`)"
    elif program and not program.startswith("{") and shutil.which(program) is None:
        return f"{program!r} is not installed"
    if (path / "package.json").is_file() and not (path / "node_modules").is_dir():
        return f"its packages are not installed (run `npm ci` in {path})"
    return None


def default_sample_bots() -> tuple[list[Path], list[str]]:
    """The sample bots that can run here, and a note for each one skipped."""
    dirs, skipped = [], []
    for name, path in sample_bot_dirs().items():
        why = sample_bot_unavailable(path)
        if why is None:
            dirs.append(path)
        else:
            skipped.append(f"sample bot {name} skipped: {why}")
    return dirs, skipped


def register_directory(store: Store, path: Path) -> TournamentEntrant:
    """Register the bot in ``path`` (idempotent) and return it as an entrant."""
    manifest = load_manifest(path)
    content_hash = bot_content_hash(path)
    source = str(path.resolve())
    label = manifest.version or content_hash[:12]
    v = store.register_bot_version(manifest.name, label, content_hash, source)
    return TournamentEntrant(v.name, v.version_label, v.id, content_hash, source)


def resolve_entrant(store: Store, spec: str, *, names_only: bool = False) -> TournamentEntrant:
    """A directory, a registered bot name (``name`` or ``name@version``), or a sample bot name;
    with ``names_only`` never a directory (a name sent to a server is not a path of its own)."""
    path = Path(spec).expanduser()
    if not names_only and path.is_dir():
        return register_directory(store, path)
    if "/" in spec or spec.startswith("."):
        raise ArenaError(f"{spec}: no such directory")
    try:
        v = store.get_bot_version(spec)
    except NotFoundError:
        samples = sample_bot_dirs()
        if spec in samples:
            return register_directory(store, samples[spec])
        registered = [b.name for b in store.list_bots()]
        known = sorted(set(registered) | set(samples))
        raise ArenaError(
            f"unknown bot {spec!r}: not a directory, a registered bot or a sample bot; "
            f"known bots: {', '.join(known) if known else 'none'}"
        ) from None
    return TournamentEntrant(v.name, v.version_label, v.id, v.content_hash, v.source)


def resolve_entrants(
    store: Store, specs: Sequence[str], *, names_only: bool = False, allow_twice: bool = False
) -> list[TournamentEntrant]:
    """The entrants, each bot once; ``allow_twice`` for a comparison, where A against A (or two
    versions of one bot) is the very question."""
    entrants = [resolve_entrant(store, spec, names_only=names_only) for spec in specs]
    seen: dict[str, str] = {}
    for spec, e in zip(specs, entrants, strict=True):
        if allow_twice:
            break
        if e.name in seen:
            raise ArenaError(
                f"bot {e.name} is named twice ({seen[e.name]!r} and {spec!r}); "
                "a bot plays a tournament once"
            )
        seen[e.name] = spec
    return entrants


def check_unchanged(entrant: TournamentEntrant) -> None:
    """A resumed tournament must play the bots it started with: same files, same hash."""
    path = Path(entrant.source)
    if not path.is_dir():
        raise ArenaError(
            f"bot {entrant.name}: its directory {path} is gone; restore it to resume the tournament"
        )
    now = bot_content_hash(path)
    if now != entrant.content_hash:
        raise ArenaError(
            f"bot {entrant.name}: the files in {path} changed since the tournament started "
            f"(content hash {now[:12]}, was {entrant.content_hash[:12]}); restore them to "
            "resume the tournament, or start a new one"
        )
