"""The bot manifest (``bot.toml``): what a bot is called, how to start it, what it may use.

A bot is a directory with a ``bot.toml``. The manifest is read strictly: an unknown key, a wrong
type or a bad name is an error naming the file and the field, because a typo silently ignored
(``memroy_mb``) would run a bot without the limit its author asked for.
"""

from __future__ import annotations

import difflib
import hashlib
import math
import os
import re
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import ArenaError

MANIFEST_FILE = "bot.toml"
NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
PLACEHOLDERS = ("{python}", "{address}")
ADDRESS_ENV = "ARENA_BOT_ADDRESS"
NAME_ENV = "ARENA_BOT_NAME"

DEFAULT_MEMORY_MB = 1024
DEFAULT_STARTUP_TIMEOUT_S = 10.0
DEFAULT_PROCESSES = 256
DEFAULT_CPUS = 1.0
DEFAULT_DISK_MB = 64
MAX_STARTUP_TIMEOUT_S = 300.0

_TOP_KEYS = ("name", "version", "command", "limits", "env")
_LIMIT_KEYS = (
    "memory_mb", "address_space_mb", "cpu_seconds", "processes", "max_processes", "cpus",
    "disk_mb", "startup_timeout_s",
)  # fmt: skip
# The largest value of each limit a manifest may ask for (beyond: a typo or an attack).
_LIMIT_MAX: dict[str, float] = {
    "memory_mb": 1 << 20,  # 1 TiB
    "address_space_mb": 1 << 22,
    "cpu_seconds": 10_000_000.0,
    "processes": 65_536,
    "cpus": 1024.0,
    "disk_mb": 1 << 16,
    "startup_timeout_s": MAX_STARTUP_TIMEOUT_S,
}
_MAX_STRING = 32_768
_MAX_ARGS = 1_000
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PLACEHOLDER_LIKE = re.compile(r"\{[a-z_]+\}")
_RESERVED_ENV = (ADDRESS_ENV, NAME_ENV)

# Never part of a bot's identity: caches that Python writes next to the code, and VCS metadata.
_HASH_SKIP_DIRS = frozenset({"__pycache__", ".git"})
_HASH_SKIP_SUFFIXES = (".pyc",)


class ManifestError(ArenaError):
    """A bot directory or its ``bot.toml`` is missing or malformed."""


@dataclass(frozen=True, slots=True)
class BotLimits:
    """Resource limits applied to the bot's processes. ``None`` means no limit.

    ``memory_mb`` caps the bot's data memory (``RLIMIT_DATA``: heap, anonymous mappings, thread
    stacks) rather than its address space, because runtimes such as V8, the JVM, Go and glibc's
    per-thread malloc arenas reserve far more address space than they ever use; a Python gRPC
    server with 16 threads reserves about 1.3 GB. ``address_space_mb`` (``RLIMIT_AS``) is there
    for those who want the stricter cap anyway.
    """

    memory_mb: int | None = DEFAULT_MEMORY_MB
    address_space_mb: int | None = None
    cpu_seconds: float | None = None
    processes: int | None = DEFAULT_PROCESSES
    """Processes and threads (the pids cgroup; ``RLIMIT_NPROC`` under a uid of its own)."""
    cpus: float | None = DEFAULT_CPUS
    """CPU quota in cores (the cpu cgroup), e.g. 0.5 or 2."""
    disk_mb: int = DEFAULT_DISK_MB
    """Size of the sandbox's private /tmp (and of /dev/shm); it counts as memory too."""
    startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_S

    @property
    def max_processes(self) -> int | None:
        """The former name of :attr:`processes`."""
        return self.processes


@dataclass(frozen=True, slots=True)
class BotManifest:
    """A parsed ``bot.toml``. ``directory`` is absolute; the command runs there."""

    name: str
    command: tuple[str, ...]
    directory: Path
    version: str | None = None
    limits: BotLimits = field(default_factory=BotLimits)
    env: Mapping[str, str] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return self.directory / MANIFEST_FILE

    def argv(self, *, python: str, address: str) -> list[str]:
        """The command with its placeholders filled in."""
        return [
            arg.replace("{python}", python).replace("{address}", address) for arg in self.command
        ]


def load_manifest(path: str | os.PathLike[str]) -> BotManifest:
    """Read and check the manifest of the bot in directory ``path`` (or the ``bot.toml`` itself)."""
    given = Path(path)
    if given.is_file():
        directory, file = given.parent, given
    elif given.is_dir():
        directory, file = given, given / MANIFEST_FILE
    else:
        raise ManifestError(f"{given}: no such bot directory")
    directory = directory.resolve()
    file = directory / file.name
    if not file.is_file():
        raise ManifestError(f"{file}: no bot manifest (a bot directory needs a {MANIFEST_FILE})")
    try:
        with file.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{file}: invalid TOML: {exc}") from None
    except OSError as exc:
        raise ManifestError(f"{file}: cannot read: {exc.strerror}") from None
    return _parse(data, file, directory)


def _parse(data: dict[str, Any], file: Path, directory: Path) -> BotManifest:
    def fail(key: str, message: str) -> ManifestError:
        return ManifestError(f"{file}: {key}: {message}")

    _reject_unknown(data, _TOP_KEYS, file, "")

    if "name" not in data:
        raise fail("name", 'missing (e.g. name = "my-bot")')
    name = data["name"]
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise fail(
            "name",
            f"{name!r} is not a valid bot name: 1 to 64 characters of a-z, 0-9, '_' and '-', "
            "starting with a letter or digit",
        )

    version = data.get("version")
    if version is not None and (not isinstance(version, str) or not version.strip()):
        raise fail("version", f'must be a non-empty string (e.g. version = "1.0"), not {version!r}')
    if version is not None:
        _check_string(version, file, "version", limit=200)

    if "command" not in data:
        raise fail("command", 'missing (e.g. command = ["{python}", "bot.py"])')
    command = data["command"]
    if (
        not isinstance(command, list)
        or not command
        or not all(isinstance(arg, str) for arg in command)
    ):
        raise fail(
            "command",
            f'must be a non-empty list of strings (e.g. ["{{python}}", "bot.py"]), not {command!r}',
        )
    if not command[0]:
        raise fail("command", "the program (first element) is empty")
    if len(command) > _MAX_ARGS:
        raise fail("command", f"has {len(command)} arguments; at most {_MAX_ARGS}")
    for i, arg in enumerate(command):
        _check_string(arg, file, f"command[{i}]")
    for arg in command:
        for token in _PLACEHOLDER_LIKE.findall(arg):
            if token not in PLACEHOLDERS:
                raise fail(
                    "command",
                    f"unknown placeholder {token} in {arg!r} (known: {', '.join(PLACEHOLDERS)})",
                )

    limits = _parse_limits(data.get("limits", {}), file)

    env_table = data.get("env", {})
    if not isinstance(env_table, dict):
        raise fail("env", 'must be a table ([env] with NAME = "value" lines)')
    env: dict[str, str] = {}
    for key, value in env_table.items():
        if not _ENV_NAME.fullmatch(key):
            raise fail(f"env.{key}", "not a valid environment variable name")
        if key in _RESERVED_ENV:
            raise fail(f"env.{key}", "is set by the arena and cannot be overridden")
        if not isinstance(value, str):
            raise fail(f"env.{key}", f"must be a string, not {value!r}")
        _check_string(value, file, f"env.{key}")
        env[key] = value
    if len(env) > _MAX_ARGS:
        raise fail("env", f"has {len(env)} variables; at most {_MAX_ARGS}")

    return BotManifest(
        name=name,
        command=tuple(command),
        directory=directory,
        version=version,
        limits=limits,
        env=env,
    )


def _parse_limits(table: Any, file: Path) -> BotLimits:
    if not isinstance(table, dict):
        raise ManifestError(f"{file}: limits: must be a table ([limits])")
    _reject_unknown(table, _LIMIT_KEYS, file, "limits.")

    if "processes" in table and "max_processes" in table:
        raise ManifestError(
            f"{file}: limits.max_processes: the former name of limits.processes; give one"
        )

    def number(key: str, *, integer: bool, zero_means_none: bool) -> float | None:
        value = table[key]
        name = "processes" if key == "max_processes" else key
        kind = "an integer" if integer else "a number"
        ok_type = int if integer else (int, float)
        if isinstance(value, bool) or not isinstance(value, ok_type):
            raise ManifestError(f"{file}: limits.{key}: must be {kind}, not {value!r}")
        if not math.isfinite(value):
            raise ManifestError(f"{file}: limits.{key}: must be a finite number, not {value!r}")
        if value == 0 and zero_means_none:
            return None
        if value <= 0:
            hint = " (0 means no limit)" if zero_means_none else ""
            raise ManifestError(f"{file}: limits.{key}: must be positive{hint}, not {value!r}")
        top = _LIMIT_MAX[name]
        if value > top:
            raise ManifestError(f"{file}: limits.{key}: at most {top:g}, not {value!r}")
        return value

    values: dict[str, Any] = {}
    for key in ("memory_mb", "address_space_mb"):
        if key in table:
            values[key] = number(key, integer=True, zero_means_none=True)
    for key in ("processes", "max_processes"):
        if key in table:
            values["processes"] = number(key, integer=True, zero_means_none=True)
    for key in ("cpu_seconds", "cpus"):
        if key in table:
            values[key] = number(key, integer=False, zero_means_none=True)
    if "disk_mb" in table:
        values["disk_mb"] = number("disk_mb", integer=True, zero_means_none=False)
    if "startup_timeout_s" in table:
        values["startup_timeout_s"] = number(
            "startup_timeout_s", integer=False, zero_means_none=False
        )
    return BotLimits(**values)


def _check_string(value: str, file: Path, key: str, limit: int = _MAX_STRING) -> None:
    """No NUL byte (no program can receive one) and no surrogate, and a sane length."""
    if "\0" in value:
        raise ManifestError(f"{file}: {key}: contains a NUL byte, which no process can receive")
    if len(value) > limit:
        raise ManifestError(f"{file}: {key}: longer than {limit} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ManifestError(f"{file}: {key}: is not valid UTF-8") from None


def _reject_unknown(table: dict[str, Any], known: tuple[str, ...], file: Path, prefix: str) -> None:
    for key in table:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"; did you mean '{prefix}{close[0]}'?" if close else ""
            raise ManifestError(
                f"{file}: {prefix}{key}: unknown key (known: {', '.join(known)}){hint}"
            )


def bot_content_hash(directory: str | os.PathLike[str]) -> str:
    """The sha256 (hex) of everything in a bot directory: it identifies a bot version.

    Every regular file counts, ``node_modules`` included (it is part of what runs), except
    ``__pycache__`` and ``.git`` directories and ``*.pyc`` files, which change without the
    bot changing. Files are taken in sorted order of their relative POSIX path; each contributes
    its path, whether it is executable and the sha256 of its bytes, so that renaming a file,
    moving bytes between files or making a script executable all change the hash. Symbolic links are
    not followed: their target text is hashed. Empty directories and special files are ignored.
    """
    root = Path(directory)
    if not root.is_dir():
        raise ManifestError(f"{root}: no such bot directory")
    entries: list[tuple[str, Path]] = []
    for current, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if d not in _HASH_SKIP_DIRS]
        base = Path(current)
        for name in files:
            if name.endswith(_HASH_SKIP_SUFFIXES):
                continue
            full = base / name
            entries.append((full.relative_to(root).as_posix(), full))
        # Symbolic links to directories are listed in ``dirs`` but not walked: hash them as links.
        for name in list(dirs):
            full = base / name
            if full.is_symlink():
                dirs.remove(name)
                entries.append((full.relative_to(root).as_posix(), full))
    entries.sort(key=lambda entry: entry[0].encode("utf-8", "surrogateescape"))

    digest = hashlib.sha256()
    for rel, full in entries:
        st = full.lstat()
        rel_bytes = rel.encode("utf-8", "surrogateescape")
        if stat.S_ISLNK(st.st_mode):
            target = os.readlink(full).encode("utf-8", "surrogateescape")
            digest.update(b"L%d:%s%d:%s" % (len(rel_bytes), rel_bytes, len(target), target))
        elif stat.S_ISREG(st.st_mode):
            mode = b"x" if st.st_mode & 0o111 else b"-"
            file_digest = hashlib.sha256()
            with full.open("rb") as fh:
                while chunk := fh.read(1 << 20):
                    file_digest.update(chunk)
            digest.update(b"F%s%d:%s" % (mode, len(rel_bytes), rel_bytes))
            digest.update(file_digest.digest())
    return digest.hexdigest()
