"""A .zip upload repacked as the .tar.gz the archive rules check: what it keeps (files, folders,
exec bits) and the zip's own hazards it refuses before anything is unpacked."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.runtime.archive import ArchiveError, ArchiveLimits, unpack_archive
from arena.runtime.zip_archive import is_zip, zip_to_tar_gz


def make_zip(entries: dict[str, bytes], modes: dict[str, int] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (modes or {}).get(name, stat.S_IFREG | 0o644) << 16
            z.writestr(info, data)
    return buffer.getvalue()


def test_files_folders_and_exec_bits_carry_over(tmp_path: Path) -> None:
    data = make_zip(
        {"bot.toml": b'name = "z"\n', "src/": b"", "src/run.sh": b"#!/bin/sh\n"},
        {"src/": stat.S_IFDIR | 0o755, "src/run.sh": stat.S_IFREG | 0o755},
    )
    assert is_zip(data) and not is_zip(b"\x1f\x8b")
    tar = zip_to_tar_gz(data, ArchiveLimits())
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        assert {m.name: m.mode for m in t.getmembers()} == {
            "bot.toml": 0o644, "src": 0o755, "src/run.sh": 0o755,
        }  # fmt: skip
    unpack_archive(tar, tmp_path / "out", ArchiveLimits())
    assert (tmp_path / "out" / "src" / "run.sh").stat().st_mode & 0o111


def test_a_zip_bomb_is_refused_by_its_declared_sizes() -> None:
    bomb = make_zip({"big.bin": b"\0" * (2 * 1024 * 1024)})
    assert len(bomb) < 10_000
    limits = ArchiveLimits(max_unpacked_bytes=1024 * 1024)
    with pytest.raises(ArchiveError, match="unpacks to 2097152 bytes, more than the limit"):
        zip_to_tar_gz(bomb, limits)
    many = make_zip({f"f{i}": b"" for i in range(11)})
    with pytest.raises(ArchiveError, match="11 entries, more than the limit of 10"):
        zip_to_tar_gz(many, ArchiveLimits(max_entries=10))


def test_a_member_that_lies_about_its_size_is_refused() -> None:
    data = bytearray(make_zip({"a.txt": b"x" * 5000}))
    # Shrink the declared size in the central directory (and the local header) to 10 bytes.
    real = (5000).to_bytes(4, "little")
    data = bytearray(bytes(data).replace(real, (10).to_bytes(4, "little")))
    with pytest.raises(ArchiveError, match=r"'a\.txt' (cannot be read|is not the size)"):
        zip_to_tar_gz(bytes(data), ArchiveLimits())


def test_links_and_garbage_are_refused() -> None:
    linked = make_zip({"link": b"/etc/passwd"}, {"link": stat.S_IFLNK | 0o777})
    with pytest.raises(ArchiveError, match="'link' is a symbolic link"):
        zip_to_tar_gz(linked, ArchiveLimits())
    with pytest.raises(ArchiveError, match="not a readable zip archive"):
        zip_to_tar_gz(b"PK\x03\x04 and nothing else", ArchiveLimits())
