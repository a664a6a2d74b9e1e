"""Bot archives: a bot directory packed as a deterministic tar.gz, and the checked unpacking of one.

An archive comes from a stranger's machine, so unpacking trusts nothing in it:

- the compressed size, the number of entries and the unpacked size are capped, and the
  decompressed stream is cut off past the cap (a gzip bomb stops there);
- entry names must be relative, without ``..``; entries are regular files, directories or
  symbolic links only (no hard links, devices or FIFOs);
- a symbolic link must be relative and must resolve inside the folder *without passing through
  another link* and no entry may lie under a link, so its lexical resolution is its real one:
  ``node_modules/.bin`` style links work, nothing can point or write outside;
- files are written with ``O_EXCL`` into a fresh directory, links are made only after every entry
  has been read and checked; a caller unpacks into a temporary directory and renames it into
  place only when everything (the manifest included) is valid, so a bad archive leaves nothing.

Packing is deterministic (sorted entries, fixed times, owners and modes), so the same directory
always gives the same bytes.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from arena.errors import ArenaError

SKIPPED_NAMES = frozenset({".git", "__pycache__"})
"""Names left out when packing: what the runtime's content hash leaves out too (version control
and Python's caches), so a packed directory has the hash of the directory itself."""
SKIPPED_SUFFIXES = (".pyc",)
FIXED_MTIME = 0


class ArchiveError(ArenaError):
    """A bot archive (or the directory to pack) breaks one of the rules; the message says which."""


@dataclass(frozen=True, slots=True)
class ArchiveLimits:
    """Caps on what one submission may take; the server's options set them."""

    max_archive_bytes: int = 32 * 1024 * 1024
    """Compressed size of the upload."""
    max_entries: int = 5000
    """Files, directories and links together."""
    max_unpacked_bytes: int = 256 * 1024 * 1024
    """Sum of the file sizes once unpacked."""
    max_depth: int = 32
    """Folders an entry may lie under."""
    max_header_bytes: int = 64 * 1024
    """A PAX extended header or a GNU long name: read into memory, so small."""


@dataclass(frozen=True, slots=True)
class UnpackedArchive:
    files: int
    directories: int
    links: int
    unpacked_bytes: int


# ---------------------------------------------------------------------------------------- packing


def pack_directory(directory: Path, limits: ArchiveLimits | None = None) -> bytes:
    """The bot directory as a deterministic tar.gz.

    Links are kept only when relative and inside the directory (as the server requires); other
    links, devices and sockets are refused here with a message naming them, before any upload.
    """
    root = Path(directory)
    if not root.exists():
        raise ArchiveError(f"{directory}: no such directory")
    if not root.is_dir():
        raise ArchiveError(f"{directory}: not a directory")
    entries: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_NAMES)
        base = Path(dirpath)
        rel_base = base.relative_to(root)
        for name in dirnames:
            entries.append(((rel_base / name).as_posix(), base / name))
        for name in filenames:
            if name in SKIPPED_NAMES or name.endswith(SKIPPED_SUFFIXES):
                continue
            entries.append(((rel_base / name).as_posix(), base / name))
    entries.sort(key=lambda e: e[0])
    if limits is not None and len(entries) > limits.max_entries:
        raise ArchiveError(
            f"{directory}: {len(entries)} entries, more than the limit of {limits.max_entries}"
        )
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=FIXED_MTIME) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for name, path in entries:
            _add_entry(tar, name, path, root)
    return buffer.getvalue()


def _add_entry(tar: tarfile.TarFile, name: str, path: Path, root: Path) -> None:
    st = path.lstat()
    info = tarfile.TarInfo(name)
    info.mtime = FIXED_MTIME
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    if stat.S_ISLNK(st.st_mode):
        target = os.readlink(path)
        problem = link_problem(name, target, set())
        if problem:
            raise ArchiveError(f"{path}: {problem}; replace it with the file itself")
        info.type = tarfile.SYMTYPE
        info.linkname = target
        info.mode = 0o777
        tar.addfile(info)
    elif stat.S_ISDIR(st.st_mode):
        info.type = tarfile.DIRTYPE
        info.mode = 0o755
        tar.addfile(info)
    elif stat.S_ISREG(st.st_mode):
        info.type = tarfile.REGTYPE
        info.mode = 0o755 if st.st_mode & 0o111 else 0o644
        info.size = st.st_size
        with path.open("rb") as f:
            tar.addfile(info, f)
    else:
        raise ArchiveError(
            f"{path}: not a regular file, directory or link (a device, FIFO or socket); "
            "a bot archive cannot hold it"
        )


# -------------------------------------------------------------------------------------- unpacking


def entry_parts(name: str) -> tuple[str, ...]:
    """The checked path components of an archive entry name (``.`` and empty ones dropped)."""
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise ArchiveError(f"entry {name!r} has an absolute path; entries must be relative")
    if "\\" in name:
        raise ArchiveError(f"entry {name!r} contains a backslash; use '/' between folders")
    parts = tuple(p for p in name.split("/") if p not in ("", "."))
    if ".." in parts:
        raise ArchiveError(f"entry {name!r} contains '..'; entries must stay inside the folder")
    return parts


def link_problem(name: str, target: str, links: set[tuple[str, ...]]) -> str | None:
    """Why a symbolic link at ``name`` pointing to ``target`` is not allowed, or None.

    ``links`` holds the other links of the archive: resolving through one is refused, so the
    lexical walk below is exactly what the file system will do.
    """
    if not target:
        return "is a link with an empty target"
    if target.startswith("/"):
        return f"is a link to the absolute path {target!r}; only relative links are allowed"
    here = list(PurePosixPath(name).parts[:-1])
    for part in target.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not here:
                return f"is a link to {target!r}, which leads out of the bot folder"
            here.pop()
            continue
        here.append(part)
        if tuple(here) in links:
            return f"is a link to {target!r}, which passes through another link"
    return None


class _CappedReader(io.RawIOBase):
    """Reads the decompressed stream, failing once more than ``cap`` bytes came out of it."""

    def __init__(self, stream: IO[bytes] | gzip.GzipFile, cap: int) -> None:
        self._stream = stream
        self._left = cap

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(buffer)
        data = self._stream.read(min(len(view), self._left + 1))
        if len(data) > self._left:
            raise ArchiveError("the archive unpacks to more than the size limit (a gzip bomb?)")
        self._left -= len(data)
        view[: len(data)] = data
        return len(data)


_HEADER_TYPES = (
    tarfile.XHDTYPE,
    tarfile.XGLTYPE,
    tarfile.SOLARIS_XHDTYPE,
    tarfile.GNUTYPE_LONGNAME,
    tarfile.GNUTYPE_LONGLINK,
)


def _bounded_tarinfo(max_header_bytes: int) -> type[tarfile.TarInfo]:
    """A TarInfo refusing a header member (PAX, GNU long name) bigger than the cap before
    tarfile reads it into memory."""

    class BoundedTarInfo(tarfile.TarInfo):
        def _proc_member(self, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
            if self.type in _HEADER_TYPES and self.size > max_header_bytes:
                raise ArchiveError(
                    f"the archive has a {self.size}-byte extended header; at most "
                    f"{max_header_bytes} bytes are allowed"
                )
            return super()._proc_member(tarfile_)  # type: ignore[misc]

    return BoundedTarInfo


def unpack_archive(data: bytes, dest: Path, limits: ArchiveLimits) -> UnpackedArchive:
    """Check ``data`` and unpack it into ``dest``, a directory that must not exist yet.

    Raises ArchiveError naming the first problem; ``dest`` may then hold a partial tree, which
    the caller (unpacking into a temporary directory) removes.
    """
    if len(data) > limits.max_archive_bytes:
        raise ArchiveError(
            f"the archive is {len(data)} bytes, more than the limit of "
            f"{limits.max_archive_bytes} bytes"
        )
    if data[:2] != b"\x1f\x8b":
        raise ArchiveError("not a gzip-compressed tar archive (`arena bot submit DIR` packs one)")
    dest.mkdir(mode=0o755)
    # Tar headers and padding take room beyond the file sizes: allow 1 KiB per entry for them.
    cap = limits.max_unpacked_bytes + 1024 * (limits.max_entries + 16)
    reader = io.BufferedReader(_CappedReader(gzip.GzipFile(fileobj=io.BytesIO(data)), cap))
    seen: dict[tuple[str, ...], str] = {}
    links: dict[tuple[str, ...], str] = {}
    files = dirs = 0
    total = 0
    entry = ""
    try:
        with tarfile.open(
            fileobj=reader, mode="r|", tarinfo=_bounded_tarinfo(limits.max_header_bytes)
        ) as tar:
            for count, member in enumerate(tar, start=1):
                entry = member.name
                if count > limits.max_entries:
                    raise ArchiveError(
                        f"the archive has more than {limits.max_entries} entries, the limit"
                    )
                parts = entry_parts(member.name)
                if not parts:
                    if member.isdir():
                        continue
                    raise ArchiveError(f"entry {member.name!r} has no name")
                if len(parts) > limits.max_depth:
                    raise ArchiveError(
                        f"an entry lies {len(parts) - 1} folders deep; at most "
                        f"{limits.max_depth} are allowed"
                    )
                if parts in seen:
                    raise ArchiveError(f"entry {'/'.join(parts)!r} appears twice")
                for i in range(1, len(parts)):
                    kind = seen.get(parts[:i])
                    if kind in ("file", "link"):
                        raise ArchiveError(
                            f"entry {'/'.join(parts)!r} lies under {'/'.join(parts[:i])!r}, "
                            f"which is a {kind}, not a directory"
                        )
                path = dest.joinpath(*parts)
                if member.issym():
                    links[parts] = member.linkname
                    seen[parts] = "link"
                elif member.islnk():
                    raise ArchiveError(
                        f"entry {member.name!r} is a hard link; archives may hold only files, "
                        "directories and relative symbolic links"
                    )
                elif member.isdir():
                    seen[parts] = "dir"
                    path.mkdir(mode=0o755, parents=True, exist_ok=True)
                    dirs += 1
                elif member.isfile() and not member.issparse():
                    seen[parts] = "file"
                    total += member.size
                    if total > limits.max_unpacked_bytes:
                        raise ArchiveError(
                            f"the archive unpacks to more than {limits.max_unpacked_bytes} "
                            "bytes, the limit"
                        )
                    _write_file(tar, member, path)
                    files += 1
                else:
                    what = (
                        "a device file or FIFO" if member.isdev() else "an unsupported entry type"
                    )
                    raise ArchiveError(
                        f"entry {member.name!r} is {what}; archives may hold only files, "
                        "directories and relative symbolic links"
                    )
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise ArchiveError(f"the archive is truncated or corrupt: {exc}") from None
    except OSError as exc:
        raise _unpacking_error(entry, exc) from None
    link_keys = set(links)
    parents = {parts[:i] for parts in seen for i in range(1, len(parts))}
    for parts, target in sorted(links.items()):
        if parts in parents:
            raise ArchiveError(
                f"entry {'/'.join(parts)!r} is a link, but other entries lie under it"
            )
        problem = link_problem("/".join(parts), target, link_keys - {parts})
        if problem:
            raise ArchiveError(f"entry {'/'.join(parts)!r} {problem}")
    for parts, target in sorted(links.items()):
        link = dest.joinpath(*parts)
        try:
            link.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            os.symlink(target, link)
        except OSError as exc:
            raise _unpacking_error("/".join(parts), exc) from None
    _check_inside(dest)
    return UnpackedArchive(files, dirs, len(links), total)


def _unpacking_error(entry: str, exc: OSError) -> ArchiveError:
    """The file system refused an entry (a name too long, a file where the archive already
    made a folder): the archive's fault, told without the server's paths."""
    return ArchiveError(f"entry {entry!r} cannot be unpacked: {exc.strerror or exc}")


def _write_file(tar: tarfile.TarFile, member: tarfile.TarInfo, path: Path) -> None:
    path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    source = tar.extractfile(member)
    assert source is not None
    mode = 0o755 if member.mode & 0o111 else 0o644
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    with os.fdopen(fd, "wb") as out:
        while chunk := source.read(1 << 16):
            out.write(chunk)
    os.chmod(path, mode)


def _check_inside(dest: Path) -> None:
    """A last, independent check on the real file system: every link resolves inside ``dest``."""
    root = os.path.realpath(dest)
    for dirpath, dirnames, filenames in os.walk(dest):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                real = os.path.realpath(path)
                if real != root and not real.startswith(root + os.sep):
                    rel = os.path.relpath(path, dest)
                    raise ArchiveError(f"entry {rel!r} is a link that leads out of the bot folder")
