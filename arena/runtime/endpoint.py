"""What the referee needs of a bot, whether the arena started it or it runs elsewhere."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import grpc

from arena.runtime.manifest import BotManifest


class BotEndpoint(Protocol):
    """A RunningBot or a RemoteBot."""

    name: str

    @property
    def target(self) -> str: ...

    @property
    def channel(self) -> grpc.Channel: ...

    @property
    def manifest(self) -> BotManifest | None: ...

    @property
    def pid(self) -> int | None: ...

    @property
    def log_path(self) -> Path | None: ...

    def alive(self) -> bool: ...

    def serving(self, timeout: float = 1.0) -> bool: ...

    def stop(self, grace: float = ...) -> None: ...
