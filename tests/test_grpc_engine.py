"""The arena package turns grpc's EventEngine experiments off before grpc loads (and only then)."""

from __future__ import annotations

import os
import subprocess
import sys

from arena import grpc_engine

_PROBE = "import os, sys; {pre}import arena; print(repr(os.environ.get('GRPC_EXPERIMENTS')))"


def _probe(pre: str = "", **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(pre=pre)],
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout.strip()


def test_set_on_import_for_the_measured_grpcio() -> None:
    assert grpc_engine._grpcio_version() in grpc_engine.MEASURED_ON
    assert _probe() == repr(grpc_engine.EXPERIMENTS)


def test_an_explicit_setting_wins_even_empty() -> None:
    assert _probe(GRPC_EXPERIMENTS="") == repr("")
    assert _probe(GRPC_EXPERIMENTS="-event_engine_client") == repr("-event_engine_client")


def test_not_set_once_grpc_is_loaded() -> None:
    # Too late then: grpc reads the variable once, on load; setting it would only mislead.
    assert _probe(pre="import grpc; ") == "None"


def test_grpc_knows_the_experiments() -> None:
    # An experiment grpc does not know is reported on stderr by every process: none here.
    clean = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    done = subprocess.run(
        [sys.executable, "-c", "import arena, grpc; grpc.insecure_channel('127.0.0.1:1').close()"],
        env=clean,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert "Unknown experiment" not in done.stderr


def test_a_bot_stops_at_once_after_a_match() -> None:
    """On the classic I/O manager a channel that nobody polls keeps its connection open, and a
    gRPC server's graceful stop waits for it: stopping a bot closes the arena's channel first,
    so a bot that has just played ends on its SIGTERM at once, not after its whole grace."""
    import time
    from pathlib import Path

    from arena.referee import play_match
    from arena.rules import RuleSet
    from arena.runtime import load_manifest, start_bot
    from arena.runtime.process import DEFAULT_GRACE_S

    assert os.environ.get("GRPC_EXPERIMENTS") == grpc_engine.EXPERIMENTS  # set on import here
    samples = Path(__file__).resolve().parents[1] / "sample_bots"
    bots = [start_bot(load_manifest(samples / name)) for name in ("random", "heuristic")]
    try:
        result = play_match((bots[0], bots[1]), seed=2, rules=RuleSet(max_hands=1))
        assert result.faults == (0, 0), result.detail
    finally:
        took = []
        for bot in bots:
            t0 = time.monotonic()
            bot.stop()
            took.append(time.monotonic() - t0)
    assert max(took) < DEFAULT_GRACE_S / 2, took
