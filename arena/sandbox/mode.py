"""``sandbox = auto | on | off``: whether bots run in the sandbox, and what to say when not."""

from __future__ import annotations

import enum
import os
import sys
import threading

from arena.errors import ArenaError

MODE_ENV = "ARENA_SANDBOX"
"""The default mode when none is given (``auto`` when unset)."""

_warned = threading.Event()


class SandboxMode(enum.StrEnum):
    AUTO = "auto"
    """The sandbox when bubblewrap works on this host, else plain processes with a warning."""
    ON = "on"
    """The sandbox, or an error saying why it cannot run here."""
    OFF = "off"
    """Plain supervised processes as the arena's user (trusted bots only)."""

    @classmethod
    def parse(cls, value: str | SandboxMode | None) -> SandboxMode:
        if value is None:
            value = os.environ.get(MODE_ENV) or cls.AUTO
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            raise ArenaError(f"sandbox mode must be auto, on or off, not {value!r}") from None


class SandboxUnavailableError(ArenaError):
    """``--sandbox on`` on a host where bubblewrap cannot run."""


def resolve_mode(value: str | SandboxMode | None) -> bool:
    """Whether to sandbox: raises for ``on`` without bubblewrap; warns once for ``auto``."""
    from arena.sandbox.probe import probe

    mode = SandboxMode.parse(value)
    if mode is SandboxMode.OFF:
        return False
    support = probe()
    if support.bwrap_error is None:
        return True
    if mode is SandboxMode.ON:
        raise SandboxUnavailableError(f"the bot sandbox cannot run here: {support.bwrap_error}")
    if not _warned.is_set():
        _warned.set()
        print(
            f"arena: warning: bots run WITHOUT the sandbox ({support.bwrap_error}); "
            "run only bots you trust (`arena doctor` says more)",
            file=sys.stderr,
            flush=True,
        )
    return False
