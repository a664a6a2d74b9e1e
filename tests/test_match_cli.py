"""``arena match BOT_A BOT_B``: what it takes for a bot, through the real ``arena`` entry point
in a child process playing real bot processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=120,
        cwd=cwd,
    )  # fmt: skip


def test_sample_names_are_taken_without_a_database(tmp_path: Path) -> None:
    """As ``tournament run`` and ``compare`` take them."""
    done = arena("match", "random", "heuristic", "--no-record", "--seed", "3", "--max-hands",
                 "2", "--sandbox", "off", "--json", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["players"] == ["random@1.0", "heuristic@1.0"] and data["recorded"] is None
    assert not (tmp_path / "arena.db").exists()
    unknown = arena("match", "random", "nobody", "--no-record", cwd=tmp_path)
    assert unknown.returncode == 2
    assert unknown.stderr.startswith("arena: error: 'nobody' is not a bot directory or a sample")


def test_a_sample_name_is_registered_and_recorded(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    done = arena("match", "random", "heuristic", "--seed", "3", "--max-hands", "2", "--sandbox",
                 "off", "--db", db, "--json", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["recorded"] is not None
    listed = arena("match", "list", "--db", db, "--json", cwd=tmp_path)
    assert json.loads(listed.stdout)[0]["seats"] == ["random@1.0", "heuristic@1.0"]
