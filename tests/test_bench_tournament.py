"""``arena bench tournament``'s options: a deal mode it does not know, or one given where it has
no meaning, is one line and exit 2, before any bot is started."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "args,message",
    [
        (["--deals", "shared"], "--deals must be one of pairs, duplicate, independent"),
        (["--deals", "duplicate", "--ordering"], "--deals is for the plain benchmark"),
        (["--deals", "independent", "--ray", "local"], "--deals is for the plain benchmark"),
        (["--simulate-nodes", "10"], "--simulate-nodes runs on a loopback cluster: --ray local"),
        (["--ray", "local", "--simulate-nodes", "0"], "--simulate-nodes needs 1 or more"),
    ],
)
def test_a_bad_deal_mode_is_one_line(args: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena", "bench", "tournament", *args],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 2, done
    assert message in " ".join(done.stderr.split()), done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


@pytest.mark.ray
@pytest.mark.slow
def test_simulated_nodes_send_recorded_matches_through_the_real_path() -> None:
    """A real loopback Ray cluster whose simulated workers return a recorded real match: every
    scheduled match is recorded by the coordinator, and it keeps up with a few nodes."""
    pytest.importorskip("ray", reason="needs the ray extra")
    from arena.bench.tournament import measure_simulated

    r = measure_simulated(nodes=(3,), node_rate=2.0, seconds=6.0, max_matches=60)
    (run,) = r["runs"]
    assert r["recorded_match"]["decisions"] > 100  # a whole real match, not a stub
    assert run["simulated_nodes"] == 3 and run["in_flight"] >= 6
    assert run["matches"] >= 12 and run["faults"] == 0
    assert run["decisions"] == run["matches"] * r["recorded_match"]["decisions"]
    assert 0 < run["share_of_ideal"] <= 1.05
