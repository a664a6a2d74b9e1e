"""What one sandboxed bot holds: its uid lease, its cgroup, and its bubblewrap command line.

The mechanisms are ``arena.sandbox``'s; this module decides, from a bot's manifest and limits,
what the bot is given: its own directory and the interpreters its command needs, read-only; its
socket directory, owned by its uid; a ``/tmp`` of ``disk_mb``; a cgroup with its memory, process
and CPU limits. Limits that cannot be applied on this host are said once on stderr and in the
bot's log.
"""

from __future__ import annotations

import os
import stat
import sys
import threading
from pathlib import Path

import arena
from arena.runtime.manifest import BotLimits, BotManifest
from arena.sandbox import BotCgroup, CgroupLimits, UidLease, lease_uid, probe
from arena.sandbox import bwrap as bwrap_cmd
from arena.sandbox.uids import release_quietly

_MB = 1 << 20
PROTO_ENV = "ARENA_BOT_PROTO"
PROTO_INSIDE = "/opt/arena/proto/spades"
"""Where the bot protocol's .proto files appear in the sandbox (for bots that load them at run
time, as the Node sample bot does); ``$ARENA_BOT_PROTO`` names ``spades/v1/bot.proto`` there."""
_PROTO_SOURCE = Path(arena.__file__).resolve().parents[1] / "proto" / "spades"
_warned: set[str] = set()
_warned_lock = threading.Lock()


def _warn_once(text: str) -> None:
    with _warned_lock:
        if text in _warned:
            return
        _warned.add(text)
    print(f"arena: warning: {text}", file=sys.stderr, flush=True)


def _prefix(path: str) -> Path:
    """The installation directory of an interpreter: ``/x/bin/python`` -> ``/x``."""
    parent = Path(path).parent
    return parent.parent if parent.name == "bin" else parent


class BotJail:
    def __init__(
        self,
        manifest: BotManifest,
        limits: BotLimits,
        lease: UidLease | None,
        cgroup: BotCgroup | None,
        socket_dir: Path,
        read_only: list[Path],
        notes: list[str],
    ) -> None:
        self.manifest = manifest
        self.limits = limits
        self.lease = lease
        self.cgroup = cgroup
        self.socket_dir = socket_dir
        self.read_only = read_only
        self.notes = notes
        self._closed = False
        self._oom_kills = 0

    @property
    def uid(self) -> int | None:
        return self.lease.uid if self.lease is not None else None

    @classmethod
    def create(
        cls, manifest: BotManifest, limits: BotLimits, socket_dir: Path, python: str
    ) -> BotJail:
        support = probe()
        lease = lease_uid() if support.root else None
        cgroup: BotCgroup | None = None
        try:
            socket_dir.mkdir(mode=0o700)
            if lease is not None:
                os.chown(socket_dir, lease.uid, lease.uid)
            cpus = None
            if limits.cpus is not None:
                cpus = min(limits.cpus, float(os.cpu_count() or 1))
            wanted = CgroupLimits(
                memory_bytes=limits.memory_mb * _MB if limits.memory_mb is not None else None,
                pids=limits.processes,
                cpus=cpus,
            )
            cgroup, warnings = BotCgroup.create(manifest.name, wanted)
        except BaseException:
            release_quietly(lease)
            raise
        for w in warnings:
            _warn_once(f"bot limits: {w}; falling back to rlimits where there is one")
        read_only: list[Path] = []
        if any("{python}" in arg for arg in manifest.command):
            read_only += [Path(sys.prefix), Path(sys.base_prefix), _prefix(python)]
            read_only += [_prefix(os.path.realpath(python))]
            # An editable install imports the arena from its source tree: the package only.
            read_only.append(Path(arena.__file__).resolve().parent)
        who = f"uid {lease.uid}" if lease is not None else f"a user namespace (uid {os.getuid()})"
        in_force = cgroup.in_force() if cgroup is not None else []
        notes = [
            f"sandbox: {who}; namespaces mount, pid, ipc, uts, net (loopback only); "
            f"/tmp {limits.disk_mb} MB; " + (", ".join(in_force) or "no cgroup limits"),
            *(f"sandbox: warning: {w}" for w in warnings),
        ]
        return cls(manifest, limits, lease, cgroup, socket_dir, read_only, notes)

    def command(self, program: str, argv: list[str]) -> list[str]:
        """The bubblewrap argv that runs ``program`` (resolved on the host) with ``argv``."""
        read_only = list(self.read_only)
        visible = (*read_only, self.manifest.directory, Path("/usr"), Path("/bin"), Path("/lib"))
        real = Path(os.path.realpath(program))
        if not any(real == v or v in real.parents for v in visible):
            read_only.append(_prefix(str(real)))  # a program installed outside /usr
        spec = bwrap_cmd.SandboxSpec(
            program=program,
            argv=argv,
            bot_dir=self.manifest.directory,
            socket_dir=self.socket_dir,
            read_only=read_only,
            mapped=[(_PROTO_SOURCE, PROTO_INSIDE)] if _PROTO_SOURCE.is_dir() else [],
            tmp_bytes=self.limits.disk_mb * _MB,
            uid=self.uid,
            setpriv=probe().setpriv or "/usr/bin/setpriv",
        )
        return bwrap_cmd.command(probe().bwrap or "bwrap", spec)

    def environment(self, env: dict[str, str]) -> None:
        """Add what only the sandbox offers to the bot's environment (the manifest's own win)."""
        if _PROTO_SOURCE.is_dir():
            env.setdefault(PROTO_ENV, f"{PROTO_INSIDE}/v1/bot.proto")

    def seal_socket(self, path: Path) -> str | None:
        """Once the bot listens: check that its socket is a socket it made, then take the
        directory back, so that the bot cannot swap the socket for a link to another one
        (the arena, as root, would follow it) while the arena connects and reconnects.
        What is wrong with the socket, or None."""
        st = path.lstat()
        if not stat.S_ISSOCK(st.st_mode) or (self.uid is not None and st.st_uid != self.uid):
            return f"{path.name} in its socket directory is not a socket it listens on"
        if self.uid is not None:
            os.chown(self.socket_dir, 0, 0)
            self.socket_dir.chmod(0o700)
        return None

    def memory_killed(self) -> bool:
        if self._closed or self.cgroup is None:
            return self._oom_kills > 0
        return self.cgroup.oom_kills() > 0

    def close(self) -> None:
        """Remove the cgroup (its processes are gone by now) and free the uid."""
        if self._closed:
            return
        self._closed = True
        if self.cgroup is not None:
            self.cgroup.kill_all(timeout=2.0)
            self._oom_kills = self.cgroup.oom_kills()
            self.cgroup.remove()
        release_quietly(self.lease)
