"""Bot archives: deterministic packing, and every kind of bad archive refused with a clear reason.

``BAD_ARCHIVES`` is shared with the service tests, which send each one to a real server.
"""

from __future__ import annotations

import gzip
import io
import os
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.runtime.archive import (
    ArchiveError,
    ArchiveLimits,
    pack_directory,
    unpack_archive,
)

MANIFEST = 'name = "x"\n'


def make_tar(add: Callable[[tarfile.TarFile], None], *, compress: bool = True) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        add(tar)
    return gzip.compress(raw.getvalue(), mtime=0) if compress else raw.getvalue()


def add_file(tar: tarfile.TarFile, name: str, data: bytes = b"x", mode: int = 0o644) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = mode
    tar.addfile(info, io.BytesIO(data))


def add_special(tar: tarfile.TarFile, name: str, kind: bytes, linkname: str = "") -> None:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    tar.addfile(info)


def _bad(*entries: Callable[[tarfile.TarFile], None]) -> bytes:
    def add(tar: tarfile.TarFile) -> None:
        add_file(tar, "bot.toml", MANIFEST.encode())
        for entry in entries:
            entry(tar)

    return make_tar(add)


def _huge_header(tar: tarfile.TarFile) -> None:
    """A small file whose PAX header alone unpacks to 2 MiB: no declared size gives it away."""
    info = tarfile.TarInfo("small.txt")
    info.size = 1
    info.pax_headers = {"comment": "A" * (2 * 1024 * 1024)}
    tar.addfile(info, io.BytesIO(b"x"))


def _big_header(tar: tarfile.TarFile) -> None:
    """A PAX header of 200 KB, under the unpacked cap: it would be held in memory whole."""
    info = tarfile.TarInfo("small.txt")
    info.size = 1
    info.pax_headers = {"comment": "A" * 200_000}
    tar.addfile(info, io.BytesIO(b"x"))


def _deep(tar: tarfile.TarFile) -> None:
    """One file 1500 folders down (the unpacking recursed once per folder)."""
    info = tarfile.TarInfo("a/" * 1500 + "f")
    info.size = 1
    tar.addfile(info, io.BytesIO(b"x"))


def _zeros(tar: tarfile.TarFile) -> None:
    info = tarfile.TarInfo("zeros.bin")
    info.size = 4 * 1024 * 1024
    tar.addfile(info, io.BytesIO(bytes(info.size)))


TEST_LIMITS = ArchiveLimits(
    max_archive_bytes=512 * 1024, max_entries=50, max_unpacked_bytes=1024 * 1024
)
"""Small caps, so that the cap cases stay small; the service tests start the server with them."""

BAD_ARCHIVES: dict[str, tuple[bytes, str]] = {
    # case: (archive bytes, a fragment the error message must contain)
    "absolute path": (_bad(lambda t: add_file(t, "/etc/evil")), "absolute path"),
    "dot-dot path": (_bad(lambda t: add_file(t, "sub/../../evil")), "'..'"),
    "absolute link": (
        _bad(lambda t: add_special(t, "l", tarfile.SYMTYPE, "/etc/passwd")),
        "absolute path",
    ),
    "link leading out": (
        _bad(lambda t: add_special(t, "sub/l", tarfile.SYMTYPE, "../../outside")),
        "leads out of the bot folder",
    ),
    "link through a link": (
        _bad(
            lambda t: add_special(t, "d", tarfile.SYMTYPE, "."),
            lambda t: add_special(t, "e", tarfile.SYMTYPE, "d/../outside"),
        ),
        "passes through another link",
    ),
    "entry under a link": (
        _bad(
            lambda t: add_special(t, "l", tarfile.SYMTYPE, "sub"),
            lambda t: add_file(t, "l/x"),
        ),
        "which is a link",
    ),
    "entry under a later link": (
        _bad(
            lambda t: add_file(t, "l/x"),
            lambda t: add_special(t, "l", tarfile.SYMTYPE, "sub"),
        ),
        "other entries lie under it",
    ),
    "hard link": (_bad(lambda t: add_special(t, "h", tarfile.LNKTYPE, "bot.toml")), "hard link"),
    "device file": (_bad(lambda t: add_special(t, "dev", tarfile.CHRTYPE)), "device file"),
    "fifo": (_bad(lambda t: add_special(t, "fifo", tarfile.FIFOTYPE)), "device file or FIFO"),
    "duplicate entry": (_bad(lambda t: add_file(t, "bot.toml")), "appears twice"),
    "file where a folder is": (
        _bad(lambda t: add_file(t, "a/b"), lambda t: add_file(t, "a")),
        "entry 'a' cannot be unpacked",
    ),
    "name too long": (_bad(lambda t: add_file(t, "n" * 300)), "cannot be unpacked"),
    "link name too long": (
        _bad(lambda t: add_special(t, "l" * 300, tarfile.SYMTYPE, "bot.toml")),
        "cannot be unpacked",
    ),
    "too many entries": (
        _bad(*[lambda t, i=i: add_file(t, f"f{i}") for i in range(60)]),
        "more than 50 entries",
    ),
    "unpacks too big": (_bad(_zeros), "more than 1048576 bytes"),
    "gzip bomb in a header": (_bad(_huge_header), "extended header"),
    "big header under the unpacked cap": (_bad(_big_header), "200016-byte extended header"),
    "1500 nested folders": (_bad(_deep), "folders deep; at most 32"),
    "archive too big": (os.urandom(600 * 1024), "more than the limit of 524288 bytes"),
    "not gzip": (b"PK\x03\x04 this is a zip file", "not a gzip-compressed tar archive"),
    "not tar": (gzip.compress(b"hello, not a tar archive" * 40), "truncated or corrupt"),
    "truncated": (
        _bad(lambda t: add_file(t, "big", os.urandom(20000)))[:-3000],
        "truncated or corrupt",
    ),
}


def write_bot_dir(root: Path) -> Path:
    bot = root / "bot"
    (bot / "src").mkdir(parents=True)
    (bot / "bot.toml").write_text(MANIFEST)
    (bot / "src" / "main.py").write_text("print('hi')\n")
    (bot / "run.sh").write_text("#!/bin/sh\n")
    (bot / "run.sh").chmod(0o755)
    (bot / "empty").mkdir()
    (bot / "node_modules" / "pkg" / "bin").mkdir(parents=True)
    (bot / "node_modules" / "pkg" / "bin" / "cli.js").write_text("//\n")
    (bot / "node_modules" / ".bin").mkdir()
    os.symlink("../pkg/bin/cli.js", bot / "node_modules" / ".bin" / "cli")
    (bot / "__pycache__").mkdir()
    (bot / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0")
    return bot


def tree(root: Path) -> dict[str, str]:
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = "-> " + os.readlink(path)
        elif path.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = f"{oct(path.stat().st_mode & 0o777)} {path.read_bytes()!r}"
    return out


def test_pack_is_deterministic_and_round_trips(tmp_path: Path) -> None:
    bot = write_bot_dir(tmp_path)
    first = pack_directory(bot)
    os.utime(bot / "src" / "main.py", (1e9, 1e9))
    assert pack_directory(bot) == first
    out = tmp_path / "out"
    result = unpack_archive(first, out, ArchiveLimits())
    expected = {k: v for k, v in tree(bot).items() if "__pycache__" not in k}
    assert tree(out) == expected
    assert tree(out)["run.sh"].startswith("0o755")
    assert tree(out)["node_modules/.bin/cli"] == "-> ../pkg/bin/cli.js"
    assert (out / "node_modules" / ".bin" / "cli").read_text() == "//\n"
    assert (result.files, result.links) == (4, 1)


def test_pack_changes_with_content(tmp_path: Path) -> None:
    bot = write_bot_dir(tmp_path)
    first = pack_directory(bot)
    (bot / "src" / "main.py").write_text("print('bye')\n")
    assert pack_directory(bot) != first


@pytest.mark.parametrize(
    ("target", "fragment"),
    [("/etc/passwd", "absolute path"), ("../../outside", "leads out of the bot folder")],
)
def test_pack_refuses_links_the_server_would_refuse(
    tmp_path: Path, target: str, fragment: str
) -> None:
    bot = write_bot_dir(tmp_path)
    os.symlink(target, bot / "src" / "bad")
    with pytest.raises(ArchiveError, match=fragment):
        pack_directory(bot)


def test_pack_refuses_a_fifo(tmp_path: Path) -> None:
    bot = write_bot_dir(tmp_path)
    os.mkfifo(bot / "pipe")
    with pytest.raises(ArchiveError, match="FIFO"):
        pack_directory(bot)


def test_pack_refuses_a_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="no such directory"):
        pack_directory(tmp_path / "nope")


@pytest.mark.parametrize("case", sorted(BAD_ARCHIVES))
def test_bad_archive_is_refused(tmp_path: Path, case: str) -> None:
    data, fragment = BAD_ARCHIVES[case]
    outside = tmp_path / "outside"
    with pytest.raises(ArchiveError) as info:
        unpack_archive(data, tmp_path / "out", TEST_LIMITS)
    assert fragment in str(info.value)
    assert not outside.exists()
    assert not (tmp_path / "evil").exists()


def test_allowed_links_stay_inside(tmp_path: Path) -> None:
    data = _bad(
        lambda t: add_file(t, "a/b/target.txt", b"t"),
        lambda t: add_special(t, "a/c/l", tarfile.SYMTYPE, "../b/target.txt"),
        lambda t: add_special(t, "top", tarfile.SYMTYPE, "./a/b"),
    )
    out = tmp_path / "out"
    unpack_archive(data, out, TEST_LIMITS)
    assert (out / "a" / "c" / "l").read_text() == "t"
    assert (out / "top" / "target.txt").read_text() == "t"


def test_unpack_needs_a_fresh_directory(tmp_path: Path) -> None:
    data = _bad()
    (tmp_path / "out").mkdir()
    with pytest.raises(FileExistsError):
        unpack_archive(data, tmp_path / "out", TEST_LIMITS)


def test_setuid_bits_are_dropped(tmp_path: Path) -> None:
    data = _bad(lambda t: add_file(t, "s", b"#!", mode=0o4777))
    unpack_archive(data, tmp_path / "out", TEST_LIMITS)
    assert (tmp_path / "out" / "s").stat().st_mode & 0o7777 == 0o755
