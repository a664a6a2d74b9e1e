"""The bubblewrap command line of a bot: what it sees, and as whom it runs.

Modelled on how flatpak builds one (``common/flatpak-run.c``): an empty root, the system's
runtime directories read-only, a private ``/tmp``, fresh ``/proc`` and minimal ``/dev``, the
one socket directory bound in, ``--die-with-parent`` and ``--new-session``. The bot's network
namespace has only loopback; the referee reaches it through the socket, which crosses
namespaces as a file.

As root, bwrap runs without a user namespace (a user namespace created by root maps the bot onto
host root) and the bot drops to its own uid by ``setpriv`` before its command runs, with no
capabilities, an empty bounding set and ``no_new_privs``. As another user, bwrap makes a user
namespace that maps the arena's uid onto itself.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

SOCKET_DIR = "/run/arena"
"""Where the bot's socket directory appears inside the sandbox."""
_SYSTEM_DIRS = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")
_ETC_FILES = (
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "alternatives", "nsswitch.conf",
    "host.conf", "hosts", "ssl", "ca-certificates", "mime.types", "gai.conf",
)  # fmt: skip
_DROP = ("--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs")


def namespace_flags(root: bool) -> list[str]:
    """Every namespace but the user's for root (see the module docstring), all of them else."""
    flags = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
             "--unshare-cgroup-try"]  # fmt: skip
    if not root:
        flags.insert(0, "--unshare-user")
    return [*flags, "--die-with-parent", "--new-session"]


@dataclass
class SandboxSpec:
    program: str
    """The command's program, an absolute path (it must be visible inside)."""
    argv: Sequence[str]
    bot_dir: Path
    """Read-only, and the working directory."""
    socket_dir: Path
    """Bound writable at :data:`SOCKET_DIR`."""
    read_only: Sequence[Path] = ()
    """More directories to show read-only at their own path: interpreters, the SDK."""
    mapped: Sequence[tuple[Path, str]] = ()
    """More directories, read-only, each at a path of its own inside: ``(host, inside)``."""
    tmp_bytes: int = 64 << 20
    uid: int | None = None
    """The uid to drop to (the arena runs as root), else None."""
    setpriv: str = "/usr/bin/setpriv"
    extra: list[str] = field(default_factory=list)


def _is_under(path: PurePosixPath, roots: Sequence[PurePosixPath]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def command(bwrap: str, spec: SandboxSpec) -> list[str]:
    """The full argv: ``bwrap … -- [setpriv …] program args``."""
    root = spec.uid is not None
    args = [bwrap, *namespace_flags(root), "--hostname", "arena-bot"]
    if root:
        args += ["--cap-drop", "ALL"]
        for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"):  # for setpriv, which drops them
            args += ["--cap-add", cap]
    mounted: list[PurePosixPath] = []
    for d in _SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
            mounted.append(PurePosixPath(d))
    args += ["--perms", "0755", "--dir", "/etc"]
    for name in _ETC_FILES:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    args += ["--proc", "/proc", "--dev", "/dev"]
    size = str(spec.tmp_bytes)
    args += ["--perms", "1777", "--size", size, "--tmpfs", "/tmp"]
    args += ["--perms", "1777", "--size", size, "--tmpfs", "/dev/shm"]
    made = {PurePosixPath("/"), PurePosixPath("/etc"), PurePosixPath("/tmp")}

    def ancestors(dest: PurePosixPath) -> list[str]:
        out: list[str] = []
        for parent in reversed(dest.parents):
            if parent in made or _is_under(parent, mounted):
                continue
            made.add(parent)
            out += ["--perms", "0755", "--dir", str(parent)]
        return out

    binds = sorted({PurePosixPath(os.path.abspath(p)) for p in (*spec.read_only, spec.bot_dir)})
    for path in binds:
        if _is_under(path, mounted) or not os.path.exists(path):
            continue
        args += ancestors(path)
        args += ["--ro-bind", str(path), str(path)]
        mounted.append(path)
        made.add(path)
    for host, inside in spec.mapped:
        if os.path.isdir(host):
            args += ancestors(PurePosixPath(inside))
            args += ["--ro-bind", str(host), inside]
    socket_dir = PurePosixPath(SOCKET_DIR)
    args += ancestors(socket_dir)
    args += ["--bind", str(spec.socket_dir), SOCKET_DIR]
    args += ["--remount-ro", "/", "--chdir", str(spec.bot_dir), *spec.extra, "--"]
    if root:
        assert spec.uid is not None
        ids = str(spec.uid)
        args += [spec.setpriv, "--reuid", ids, "--regid", ids, *_DROP, "--"]
    return [*args, spec.program, *spec.argv[1:]]
