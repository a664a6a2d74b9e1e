"""Which of gRPC's I/O managers a bot the runtime starts runs on: its ``GRPC_EXPERIMENTS``.

A Python bot serving one match at a time (a twin lane, docs/tournaments.md) pays for each
message with the wake-ups of the threads it passes through. On grpcio 1.85's default, the
EventEngine, a message is read by an EventEngine thread, handed to grpc.aio's poller thread
and then to the event loop's: about 13 context switches a decision between two bots, and
600-750 µs of the bots' CPU. On the classic I/O manager the poller thread reads the socket
itself: about 7 switches and 450-560 µs (docs/benchmarks.md, "What twin lanes cost"). A
process that serves two matches at once shares those wake-ups between them; a lane does not.

So a bot whose command runs the arena's own interpreter (``{python}``: the grpcio the arena
has loaded, so the experiments' names are known to be right) starts on the classic I/O
manager. grpc reads ``GRPC_EXPERIMENTS`` once when it is loaded, so the runtime sets it in the
bot's environment; nothing is set in the arena's own process. An operator's
``GRPC_EXPERIMENTS`` (even empty: grpc's defaults) goes to every bot instead, and a manifest's
``[env]`` has the last word.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import grpc

__all__ = [
    "EXPERIMENTS_ENV",
    "IOMGR_EXPERIMENTS",
    "MEASURED_ON",
    "bot_grpc_environment",
    "grpcio_version",
]

EXPERIMENTS_ENV = "GRPC_EXPERIMENTS"
IOMGR_EXPERIMENTS = (
    "-event_engine_client,-event_engine_listener,"
    "-event_engine_for_all_other_endpoints,-event_engine_callback_cq"
)
"""The EventEngine experiments turned off (their names in grpcio 1.85)."""
MEASURED_ON = ((1, 85),)
"""The grpcio (major, minor) versions whose experiments these are; others keep their defaults
(an unknown experiment's name is an error on a bot's stderr)."""


def grpcio_version() -> tuple[int, int] | None:
    parts = grpc.__version__.split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return None


def bot_grpc_environment(
    arena_python: bool, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The gRPC variables of a bot's environment: the operator's ``GRPC_EXPERIMENTS`` if set
    (in ``environ``, the arena's environment by default), else the classic I/O manager for a
    bot on the arena's interpreter (``arena_python``) and grpcio version, else none."""
    environ = os.environ if environ is None else environ
    if EXPERIMENTS_ENV in environ:
        return {EXPERIMENTS_ENV: environ[EXPERIMENTS_ENV]}
    if arena_python and grpcio_version() in MEASURED_ON:
        return {EXPERIMENTS_ENV: IOMGR_EXPERIMENTS}
    return {}
