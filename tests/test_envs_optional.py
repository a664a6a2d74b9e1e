"""Without the research extra the arena works: nothing outside arena.envs, arena.sdk.policy and
arena.bench.envs imports it, and `arena bench envs` says what to install in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROGRAM = """
import importlib.abc
import sys

MISSING = {"pettingzoo", "gymnasium", "pyspiel", "open_spiel"}


class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in MISSING:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Missing())
import arena, arena.sdk, arena.cli, arena.rules  # noqa: E401

from arena.cli import main

sys.argv = ["arena", *sys.argv[1:]]
main()
"""


@pytest.mark.slow
def test_the_cli_works_and_bench_envs_names_the_missing_extra() -> None:
    ok = subprocess.run(
        [sys.executable, "-c", PROGRAM, "--help"], cwd=ROOT, capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stderr
    proc = subprocess.run(
        [sys.executable, "-c", PROGRAM, "bench", "envs", "--seconds", "0.1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "arena: error: the research environments need the research extra (pyspiel is missing): "
        "pip install -e '.[research]'"
    )


def test_without_the_extra_the_openspiel_sample_bot_is_left_out_saying_why() -> None:
    """The ladder's house bots and the default sample bots skip it with its reason."""
    program = PROGRAM.split("from arena.cli import main")[0] + (
        "from arena.tournament.entrants import default_sample_bots\n"
        "dirs, skipped = default_sample_bots()\n"
        "print([d.name for d in dirs]); print(skipped)\n"
    )
    proc = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    names, skipped = proc.stdout.splitlines()
    assert "openspiel_ismcts" not in names and "'heuristic'" in names
    assert (
        "sample bot openspiel_ismcts skipped: it needs the Python package pyspiel "
        "(pip install -e '.[research]')"
    ) in skipped
