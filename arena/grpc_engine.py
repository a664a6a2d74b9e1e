"""gRPC's C-core on its classic I/O manager: about a third less CPU per message, both sides.

grpcio 1.85 runs its sockets on the EventEngine by default, whose own threads read and write
and then hand each completion to the thread that waits for it (a Python server's pool, the
asyncio poller): a thread hop or two per message. Its older I/O manager polls in the thread
that waits on the completion queue, so a message is handled where it is received. Measured
with ``arena bench transport --session`` (``docs/benchmarks.md``, "What a decision costs"):
about 35 % less CPU per message in the arena's process and in a Python bot's.

The choice is gRPC's own switch, the ``GRPC_EXPERIMENTS`` variable, read once when grpc is
loaded: so ``prefer_iomgr`` runs on import of the ``arena`` package, before anything imports
grpc, and only for the grpcio versions it was measured on (other versions may not know these
experiments' names and would say so on stderr). A ``GRPC_EXPERIMENTS`` already set, even
empty, is left as it is: ``GRPC_EXPERIMENTS=`` keeps grpc's defaults.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

__all__ = ["EXPERIMENTS", "MEASURED_ON", "prefer_iomgr"]

EXPERIMENTS = (
    "-event_engine_client,-event_engine_listener,"
    "-event_engine_for_all_other_endpoints,-event_engine_callback_cq"
)
"""The EventEngine experiments turned off (their names in grpcio 1.85)."""
MEASURED_ON = ((1, 85),)
"""The grpcio (major, minor) versions whose experiments these are."""


def _grpcio_version() -> tuple[int, int] | None:
    """grpcio's version from its metadata file, without importing grpc (nor the slow
    ``importlib.metadata``)."""
    try:
        spec = importlib.util.find_spec("grpc")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    try:
        text = (Path(spec.origin).parent / "_grpcio_metadata.py").read_text()
    except OSError:
        return None
    found = re.search(r"(\d+)\.(\d+)", text)
    return (int(found[1]), int(found[2])) if found else None


def prefer_iomgr() -> bool:
    """Turn the EventEngine experiments off for this process (and its children) unless grpc
    is loaded already or ``GRPC_EXPERIMENTS`` is set; True when it did."""
    if "GRPC_EXPERIMENTS" in os.environ or "grpc" in sys.modules:
        return False
    if _grpcio_version() not in MEASURED_ON:
        return False
    os.environ["GRPC_EXPERIMENTS"] = EXPERIMENTS
    return True
