"""What this host offers the sandbox: a working bubblewrap, a way to drop root, cgroups.

Probed once per process (a trial ``bwrap`` run takes a few milliseconds) and reported by
``arena doctor`` and at the start of a tournament or server.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass, field

from arena.sandbox import cgroups
from arena.sandbox.bwrap import namespace_flags


@dataclass(frozen=True)
class HostSupport:
    bwrap: str | None
    bwrap_version: str | None
    bwrap_error: str | None
    """Why the sandbox cannot run here, or None when it can."""
    root: bool
    setpriv: str | None
    controllers: dict[str, cgroups.Controller] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)

    @property
    def sandbox(self) -> bool:
        return self.bwrap_error is None

    def lines(self) -> list[str]:
        """What is in force, one fact a line, for ``arena doctor``."""
        out = []
        if self.sandbox:
            out.append(
                f"sandbox: available (bubblewrap {self.bwrap_version} at {self.bwrap}): new "
                "mount, PID, IPC, UTS and network namespaces; read-only system, bot and "
                "interpreter directories; a private /tmp"
            )
        else:
            out.append(f"sandbox: NOT available: {self.bwrap_error}")
        if self.root:
            if self.setpriv:
                from arena.sandbox.uids import uid_range

                first, last = uid_range()
                out.append(f"users: each bot runs as its own unprivileged uid ({first}-{last})")
            else:
                out.append("users: setpriv (util-linux) is missing: bots cannot drop root")
        else:
            out.append(
                f"users: the arena is not root (uid {os.getuid()}): bots run in a user "
                "namespace as the arena's uid"
            )
        for name in cgroups.CONTROLLERS:
            c = self.controllers.get(name)
            if c is not None:
                out.append(f"cgroup {name}: cgroup v{c.version}, in {c.base}")
            else:
                fallback = {
                    "memory": "memory falls back to RLIMIT_DATA (shared memory not counted)",
                    "pids": "processes fall back to RLIMIT_NPROC",
                    "cpu": "no CPU quota: a busy bot can take every core",
                    "freezer": "kill loops without freezing (a PID namespace still ends all)",
                }[name]
                out.append(f"cgroup {name}: missing ({self.missing.get(name)}); {fallback}")
        return out


def _trial(bwrap: str, root: bool) -> str | None:
    """Run ``true`` in a sandbox like a bot's; None if it worked, else why not."""
    true = shutil.which("true", path="/usr/bin:/bin") or "/bin/true"
    argv = [bwrap, *namespace_flags(root), "--ro-bind", "/", "/", "--proc", "/proc", "--", true]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap does not run: {exc}"
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bwrap fails here: {said[-1] if said else f'exit code {done.returncode}'}"
    return None


@functools.cache
def probe() -> HostSupport:
    root = os.geteuid() == 0
    bwrap = shutil.which("bwrap")
    setpriv = shutil.which("setpriv", path="/usr/bin:/bin")
    version = None
    if bwrap is None:
        error: str | None = (
            "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
        )
    else:
        try:
            out = subprocess.run([bwrap, "--version"], capture_output=True, timeout=10)
            version = out.stdout.decode().split()[-1] if out.stdout else "?"
        except (OSError, subprocess.TimeoutExpired):
            version = "?"
        error = _trial(bwrap, root)
        if error is None and root and setpriv is None:
            error = "setpriv (util-linux) is missing, so bots cannot drop root"
    found, missing = cgroups.detect()
    return HostSupport(bwrap, version, error, root, setpriv, found, missing)
