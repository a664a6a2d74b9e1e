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
