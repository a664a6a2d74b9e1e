"""A bot directory uploaded as a ``.zip`` (as browsers' and desktops' "compress" make it),
repacked as the ``.tar.gz`` that ``archive.unpack_archive`` checks, so that one set of archive
rules holds whichever format came in.

The zip's own hazards are refused here, before anything is unpacked: more entries or more
declared bytes than the limits allow (a zip bomb), a member that inflates past what it
declared, encrypted members and symbolic links. Names are passed on unchanged: the tar's
checks (absolute paths, ``..``, depth, duplicates) refuse the bad ones."""

from __future__ import annotations

import gzip
import io
import stat
import tarfile
import zipfile

from arena.runtime.archive import ArchiveError, ArchiveLimits

ZIP_MAGIC = b"PK\x03\x04"
EMPTY_ZIP = b"PK\x05\x06"


def is_zip(data: bytes) -> bool:
    return data[:4] in (ZIP_MAGIC, EMPTY_ZIP)


def zip_to_tar_gz(data: bytes, limits: ArchiveLimits) -> bytes:
    """The zip ``data`` as a gzip-compressed tar of the same files (exec bits kept)."""
    if len(data) > limits.max_archive_bytes:
        raise ArchiveError(
            f"the archive is {len(data)} bytes, more than the limit of "
            f"{limits.max_archive_bytes} bytes"
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ArchiveError(f"not a readable zip archive: {exc}") from None
    if len(members) > limits.max_entries:
        raise ArchiveError(
            f"the archive has {len(members)} entries, more than the limit of {limits.max_entries}"
        )
    declared = sum(m.file_size for m in members)
    if declared > limits.max_unpacked_bytes:
        raise ArchiveError(
            f"the archive unpacks to {declared} bytes, more than the limit of "
            f"{limits.max_unpacked_bytes} bytes"
        )
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for m in members:
            mode = m.external_attr >> 16
            if m.flag_bits & 0x1:
                raise ArchiveError(f"{m.filename!r} is encrypted: upload it unencrypted")
            if stat.S_ISLNK(mode):
                raise ArchiveError(
                    f"{m.filename!r} is a symbolic link: a zip upload may hold files and "
                    "folders only (a .tar.gz from `arena bot submit` keeps links)"
                )
            info = tarfile.TarInfo(m.filename.rstrip("/"))
            if m.is_dir():
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
                continue
            try:
                with archive.open(m) as member:
                    content = member.read(m.file_size + 1)
            except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError) as exc:
                raise ArchiveError(f"{m.filename!r} cannot be read from the zip: {exc}") from None
            if len(content) != m.file_size:
                raise ArchiveError(f"{m.filename!r} is not the size the zip declares for it")
            info.size = len(content)
            info.mode = 0o755 if mode & 0o111 else 0o644
            tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()
