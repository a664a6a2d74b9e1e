"""Kernel isolation for bot processes: bubblewrap namespaces, a user of its own, cgroup limits.

``arena.runtime`` asks this package how to wrap a bot's command (``bwrap.command``), which
unprivileged uid to run it as (``uids``), and for a cgroup to hold it (``cgroups``). ``probe``
says what this host offers, for ``arena doctor`` and the start-up log. See
docs/bots-and-manifests.md for the threat model.
"""

from arena.sandbox.cgroups import BotCgroup, CgroupLimits
from arena.sandbox.mode import SandboxMode, SandboxUnavailableError, resolve_mode
from arena.sandbox.probe import HostSupport, probe
from arena.sandbox.uids import UidLease, lease_uid

__all__ = [
    "BotCgroup",
    "CgroupLimits",
    "HostSupport",
    "SandboxMode",
    "SandboxUnavailableError",
    "UidLease",
    "lease_uid",
    "probe",
    "resolve_mode",
]
