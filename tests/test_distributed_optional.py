"""Without ``--ray`` nothing changes: a tournament run from the CLI never imports ``ray``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots"

PROGRAM = """
import sys
from arena.cli import main
sys.argv = ["arena", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print("RAY-IMPORTED" if "ray" in sys.modules else "RAY-NOT-IMPORTED", file=sys.stderr)
sys.exit(code)
"""


@pytest.mark.slow
def test_a_local_tournament_does_not_import_ray(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'local.db'}"
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            PROGRAM,
            "tournament",
            "run",
            str(SAMPLES / "random"),
            str(SAMPLES / "heuristic"),
            "-n",
            "1",
            "--max-hands",
            "2",
            "--seed",
            "3",
            "--db",
            url,
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["tournament"]["done"] == 2
    assert "nodes" not in json.loads(proc.stdout)
    assert proc.stderr.strip().endswith("RAY-NOT-IMPORTED"), proc.stderr


def test_bad_ray_options_are_one_line_errors(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    for args, expected in (
        (["--ray", "auto", "--server", "127.0.0.1:1"], "--ray and --server do not go together"),
        (["--ray", "127.0.0.1:1", "--ray-worker-cpus", "0"], "--ray-worker-cpus must be positive"),
        (["--ray", "nonsense"], "bad Ray cluster address 'nonsense'"),
        (["--ray", "127.0.0.1:1"], "cannot join the Ray cluster at 127.0.0.1:1: nothing answers"),
    ):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "arena",
                "tournament",
                "run",
                str(SAMPLES / "random"),
                str(SAMPLES / "heuristic"),
                "-n",
                "1",
                "--db",
                url,
                *args,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"arena: error: {expected}"), proc.stderr
    # Refused before anything was stored.
    assert not (tmp_path / "x.db").exists()
