"""A bot that is already running somewhere, reached at ``host:port``."""

from __future__ import annotations

import re
import time
from types import TracebackType

import grpc

from arena.runtime.channel import SERVING, health_status, open_channel
from arena.runtime.manifest import NAME_PATTERN
from arena.runtime.process import BotStartError

_HOST_PORT = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(?P<port>[0-9]{1,5})")


class RemoteBot:
    """A remote bot endpoint with the interface of a RunningBot. The arena does not own the
    process: :meth:`stop` only closes the channel, and there is no pid and no log."""

    manifest = None
    pid = None
    log_path = None

    def __init__(self, name: str, target: str) -> None:
        self.name = name
        self.target = target
        self.channel: grpc.Channel = open_channel(target)
        self._closed = False

    def serving(self, timeout: float = 1.0) -> bool:
        """Whether the bot answers its health check with SERVING within ``timeout``."""
        return not self._closed and health_status(self.channel, timeout) == SERVING

    def alive(self) -> bool:
        """Whether the endpoint answers its health check (the process is not ours to watch)."""
        return self.serving()

    def stop(self, grace: float = 0.0) -> None:
        """Close the channel; the remote process keeps running. Idempotent."""
        if not self._closed:
            self._closed = True
            self.channel.close()

    def __enter__(self) -> RemoteBot:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<RemoteBot {self.name!r} at {self.target}>"


def is_remote_target(target: str) -> bool:
    """``host:port`` (a port 1-65535) or ``unix:/absolute/path`` (the form the runtime gives a
    bot, docs/bots-and-manifests.md)."""
    if target.startswith("unix:"):
        return target[5:].startswith("/") and not target.startswith("unix://")
    match = _HOST_PORT.fullmatch(target)
    return match is not None and 0 < int(match["port"]) < 65536


def connect_remote(name: str, target: str, *, timeout: float | None = 5.0) -> RemoteBot:
    """Connect to a bot already serving at ``host:port`` or ``unix:/path``.

    Unless ``timeout`` is None, wait up to ``timeout`` seconds for its health check to answer
    SERVING and raise :class:`BotStartError` if it does not.
    """
    if not NAME_PATTERN.fullmatch(name):
        raise BotStartError(f"remote bot name {name!r} is not a valid bot name", name=name)
    if not is_remote_target(target):
        raise BotStartError(
            f"remote bot '{name}': {target!r} is not a host:port or unix:PATH address "
            "(e.g. 127.0.0.1:50051, [::1]:50051 or unix:/tmp/bot.sock)",
            name=name,
        )
    bot = RemoteBot(name, target)
    if timeout is None:
        return bot
    deadline = time.monotonic() + timeout
    last = "no answer"
    while (remaining := deadline - time.monotonic()) > 0:
        last = health_status(bot.channel, min(remaining, 1.0), wait_for_ready=True)
        if last == SERVING:
            return bot
        if last == "UNIMPLEMENTED":
            break
        time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
    bot.stop()
    raise BotStartError(
        f"remote bot '{name}' at {target} did not answer its health check with SERVING "
        f"within {timeout:g} s (last answer: {last})",
        name=name,
    )
