"""A cgroup per running bot: memory (page cache and shared memory included), pids, CPU quota.

Both hierarchies are supported. cgroup v1 (one mount per controller, ``/sys/fs/cgroup/memory``…)
gets a directory per controller; cgroup v2 (the unified hierarchy) one directory with the
controllers enabled above it. Bot cgroups live in ``arena-bots/`` below the arena's own cgroup
of each v1 controller, or beside it in v2 (the "no internal processes" rule), so that a limit
set on the arena by its host (a container, a systemd slice) still holds its bots.

The memory controller charges every page a bot touches, tmpfs and ``/dev/shm`` pages and
``MAP_SHARED`` memory included, which ``RLIMIT_DATA`` does not; swap is capped with it (v1
``memsw``, v2 ``memory.swap.max``) so that the limit cannot be stretched onto disk. A bot that
exceeds it is killed by the kernel's OOM killer, which the cgroup counts (``oom_kill``): the
runtime reads that count to tell a memory kill from any other death.

Killing: v2 has ``cgroup.kill``; v1 freezes the cgroup (no fork can race the kill), SIGKILLs
every member and thaws it, until no member is left.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

CONTROLLERS = ("memory", "pids", "cpu", "freezer")
"""What the runtime uses (v2 has the freezer built in)."""
CPU_PERIOD_US = 100_000
_counter = itertools.count(1)


@dataclass(frozen=True, slots=True)
class CgroupLimits:
    memory_bytes: int | None
    pids: int | None
    cpus: float | None


@dataclass(frozen=True, slots=True)
class Controller:
    name: str
    version: int
    base: Path
    """Where bot cgroups are created (``…/arena-bots``)."""


def _mounts() -> tuple[dict[str, Path], Path | None]:
    """The v1 mount of each controller, and the v2 mount if any."""
    v1: dict[str, Path] = {}
    v2: Path | None = None
    try:
        with open("/proc/self/mountinfo") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return v1, v2
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, extra = left.split(), right.split()
        if len(fields) < 5 or len(extra) < 3:
            continue
        point = Path(fields[4])
        if extra[0] == "cgroup2" and v2 is None:
            v2 = point
        elif extra[0] == "cgroup":
            for option in extra[2].split(","):
                if option in CONTROLLERS:
                    v1.setdefault(option, point)
    return v1, v2


def _own_paths() -> tuple[dict[str, str], str | None]:
    """This process's cgroup path per v1 controller, and its v2 path."""
    v1: dict[str, str] = {}
    v2: str | None = None
    try:
        with open("/proc/self/cgroup") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return v1, v2
    for line in lines:
        _, names, path = line.split(":", 2)
        if names == "":
            v2 = path
        for name in names.split(","):
            v1[name] = path
    return v1, v2


def _writable_dir(path: Path) -> bool:
    try:
        path.mkdir(parents=False, exist_ok=True)
    except OSError:
        return False
    return os.access(path, os.W_OK)


def detect() -> tuple[dict[str, Controller], dict[str, str]]:
    """The usable controllers, and for each missing one why it is missing."""
    found: dict[str, Controller] = {}
    missing: dict[str, str] = {}
    v1_mounts, v2_mount = _mounts()
    v1_own, v2_own = _own_paths()
    for name in CONTROLLERS:
        mount = v1_mounts.get(name)
        if mount is None:
            continue
        base = mount / v1_own.get(name, "/").lstrip("/") / "arena-bots"
        if _writable_dir(base):
            found[name] = Controller(name, 1, base)
        else:
            missing[name] = f"cannot create cgroups in {base.parent} (not root, or not delegated)"
    if v2_mount is not None and v2_own is not None:
        _detect_v2(v2_mount, v2_own, found, missing)
    for name in CONTROLLERS:
        if name not in found and name not in missing:
            missing[name] = "the controller is not mounted (neither cgroup v1 nor v2)"
    return found, missing


def _detect_v2(
    mount: Path, own: str, found: dict[str, Controller], missing: dict[str, str]
) -> None:
    wanted = [c for c in ("memory", "pids", "cpu") if c not in found]
    if not wanted and "freezer" in found:
        return
    own_dir = mount / own.lstrip("/")
    parent = own_dir if own in ("", "/") else own_dir.parent
    try:
        offered = set((parent / "cgroup.controllers").read_text().split())
    except OSError:
        return
    base = parent / "arena-bots"
    usable = [c for c in wanted if c in offered]
    if not usable and "freezer" in found:
        return
    if not _writable_dir(base):
        for c in usable:
            missing[c] = f"cannot create cgroups in {parent} (not root, or not delegated)"
        return
    for c in usable:
        for directory in (parent, base):
            with contextlib.suppress(OSError):
                (directory / "cgroup.subtree_control").write_text(f"+{c}")
        try:
            enabled = (base / "cgroup.subtree_control").read_text().split()
        except OSError:
            enabled = []
        if c in enabled:
            found[c] = Controller(c, 2, base)
        else:
            missing[c] = f"cgroup v2 offers {c} but it cannot be enabled in {base}"
    if "freezer" not in found and (base / "cgroup.procs").exists():
        found["freezer"] = Controller("freezer", 2, base)  # cgroup.freeze and cgroup.kill


def _weigh_base(c: Controller) -> None:
    """Give ``arena-bots`` the CPU weight of one busy process per core: the bots live in one
    group, which the scheduler would otherwise weigh as a single process against every other
    on a busy host (each bot's share within it is equal, and its quota caps it)."""
    cores = os.cpu_count() or 1
    file, value = ("cpu.shares", 1024 * cores) if c.version == 1 else ("cpu.weight", 100 * cores)
    with contextlib.suppress(OSError):
        (c.base / file).write_text(str(min(value, 10_000 if c.version == 2 else 262_144)))


class BotCgroup:
    """The cgroup(s) of one bot: created with its limits, joined by the bot's first process
    (``procs_files``), emptied by :meth:`kill_all`, removed by :meth:`remove`."""

    def __init__(self, dirs: dict[str, Path], versions: dict[str, int], limits: CgroupLimits):
        self.dirs = dirs
        self.versions = versions
        self.limits = limits

    @classmethod
    def create(cls, name: str, limits: CgroupLimits) -> tuple[BotCgroup | None, list[str]]:
        """A new cgroup for bot ``name``; also the warnings for limits that cannot be applied."""
        found, missing = detect()
        leaf = f"{name}-{os.getpid()}-{next(_counter)}"
        dirs: dict[str, Path] = {}
        versions: dict[str, int] = {}
        warnings: list[str] = []
        wanted = {
            "memory": limits.memory_bytes is not None,
            "pids": limits.pids is not None,
            "cpu": limits.cpus is not None,
            "freezer": True,
        }
        for controller, needed in wanted.items():
            c = found.get(controller)
            if c is None:
                if needed and controller != "freezer":
                    warnings.append(f"no {controller} cgroup ({missing.get(controller)})")
                continue
            path = c.base / leaf
            if controller == "cpu":
                _weigh_base(c)
            try:
                path.mkdir(exist_ok=True)
            except OSError as exc:
                warnings.append(f"cannot create the {controller} cgroup {path}: {exc.strerror}")
                continue
            dirs[controller] = path
            versions[controller] = c.version
        group = cls(dirs, versions, limits)
        try:
            warnings += group._apply()
        except BaseException:
            group.remove()
            raise
        if not dirs:
            return None, warnings
        return group, warnings

    def _apply(self) -> list[str]:
        warnings: list[str] = []
        lim = self.limits

        def put(controller: str, file: str, value: str, required: bool = True) -> None:
            try:
                (self.dirs[controller] / file).write_text(value)
            except OSError as exc:
                if required:
                    warnings.append(f"cannot set {controller} {file}: {exc.strerror}")

        if "memory" in self.dirs and lim.memory_bytes is not None:
            if self.versions["memory"] == 1:
                put("memory", "memory.limit_in_bytes", str(lim.memory_bytes))
                # Swap accounting is optional in v1 (swapaccount=1): without it there is no file.
                if (self.dirs["memory"] / "memory.memsw.limit_in_bytes").exists():
                    put("memory", "memory.memsw.limit_in_bytes", str(lim.memory_bytes))
            else:
                put("memory", "memory.max", str(lim.memory_bytes))
                put("memory", "memory.swap.max", "0", required=False)
        if "pids" in self.dirs and lim.pids is not None:
            put("pids", "pids.max", str(lim.pids))
        if "cpu" in self.dirs and lim.cpus is not None:
            quota = max(1000, int(lim.cpus * CPU_PERIOD_US))
            if self.versions["cpu"] == 1:
                put("cpu", "cpu.cfs_period_us", str(CPU_PERIOD_US))
                put("cpu", "cpu.cfs_quota_us", str(quota))
            else:
                put("cpu", "cpu.max", f"{quota} {CPU_PERIOD_US}")
        return warnings

    @property
    def procs_files(self) -> list[str]:
        """Where the bot's first process writes its pid to join (once per v1 hierarchy)."""
        seen: set[Path] = set()
        out = []
        for path in self.dirs.values():
            if path not in seen:
                seen.add(path)
                out.append(str(path / "cgroup.procs"))
        return out

    def in_force(self) -> list[str]:
        """The limits applied, for the start-up log: ``memory 1024 MB (cgroup v1)``…"""
        lim = self.limits
        out = []
        if "memory" in self.dirs and lim.memory_bytes is not None:
            out.append(f"memory {lim.memory_bytes >> 20} MB (cgroup v{self.versions['memory']})")
        if "pids" in self.dirs and lim.pids is not None:
            out.append(f"pids {lim.pids} (cgroup v{self.versions['pids']})")
        if "cpu" in self.dirs and lim.cpus is not None:
            out.append(f"cpu {lim.cpus:g} (cgroup v{self.versions['cpu']})")
        return out

    def members(self) -> set[int]:
        pids: set[int] = set()
        for path in self.dirs.values():
            with contextlib.suppress(OSError, ValueError):
                pids.update(int(x) for x in (path / "cgroup.procs").read_text().split())
        return pids

    def oom_kills(self) -> int:
        """Processes of the bot the kernel killed for exceeding the memory limit."""
        path = self.dirs.get("memory")
        if path is None:
            return 0
        file = "memory.oom_control" if self.versions["memory"] == 1 else "memory.events"
        try:
            text = (path / file).read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def kill_all(self, timeout: float = 5.0) -> bool:
        """SIGKILL every process in the cgroup until it is empty; whether it is."""
        deadline = time.monotonic() + timeout
        freezer = self.dirs.get("freezer")
        v2 = freezer is not None and self.versions["freezer"] == 2
        if v2 and freezer is not None and (freezer / "cgroup.kill").exists():
            with contextlib.suppress(OSError):
                (freezer / "cgroup.kill").write_text("1")
        while True:
            pids = self.members()
            if not pids:
                return True
            if time.monotonic() > deadline:
                return False
            self._freeze(True)
            for pid in self.members():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            # A frozen task dies of SIGKILL only once thawed.
            self._freeze(False)
            time.sleep(0.002)

    def _freeze(self, frozen: bool) -> None:
        path = self.dirs.get("freezer")
        if path is None:
            return
        with contextlib.suppress(OSError):
            if self.versions["freezer"] == 1:
                (path / "freezer.state").write_text("FROZEN" if frozen else "THAWED")
                if frozen:
                    # Freezing is asynchronous in v1: wait (briefly) for FREEZING to end.
                    for _ in range(200):
                        if (path / "freezer.state").read_text().strip() == "FROZEN":
                            break
                        time.sleep(0.001)
            else:
                (path / "cgroup.freeze").write_text("1" if frozen else "0")

    def remove(self) -> None:
        """Remove the (empty) cgroup directories; retried briefly while the last tasks exit."""
        for path in set(self.dirs.values()):
            for _ in range(200):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.005)
