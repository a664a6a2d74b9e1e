"""Which of gRPC's I/O managers a bot the runtime starts runs on: the operator's choice.

grpc reads ``GRPC_EXPERIMENTS`` once when it is loaded; the arena sets none, in its own process
or in a bot's (experiments are named per grpcio version and are not its public API). An
operator's ``GRPC_EXPERIMENTS`` (even empty: grpc's defaults) goes to every bot, as it goes to
the arena's process, and a manifest's ``[env]`` has the last word. What the classic I/O manager
would save a Python bot serving one match at a time (a twin lane) is measured in
docs/benchmarks.md, "What twin lanes cost".
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["EXPERIMENTS_ENV", "bot_grpc_environment"]

EXPERIMENTS_ENV = "GRPC_EXPERIMENTS"


def bot_grpc_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The gRPC variables of a bot's environment: the operator's ``GRPC_EXPERIMENTS`` if set
    (in ``environ``, the arena's environment by default), else none."""
    environ = os.environ if environ is None else environ
    if EXPERIMENTS_ENV in environ:
        return {EXPERIMENTS_ENV: environ[EXPERIMENTS_ENV]}
    return {}
