"""``arena match list``: the newest 50 first under a header with the date, ``--page`` and
``--all``; a real SQLite file, the real ``arena`` entry point in a child process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.store import Store


def arena(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=120,
        env={**os.environ, "COLUMNS": "80"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def db(tmp_path: Path, make_result: Callable[..., Any]) -> str:
    """Sixty matches m00 … m59, recorded in that order, m07 a forfeit."""
    from arena.referee import Termination

    url = f"sqlite:///{tmp_path / 'arena.db'}"
    with Store.open(url) as store:
        a = store.register_bot_version("alpha", "1", "a" * 64, "/nowhere/a").id
        b = store.register_bot_version("beta", "1", "b" * 64, "/nowhere/b").id
        for i in range(60):
            crash = Termination.FORFEIT_CRASH if i == 7 else None
            result = make_result(winner=i % 2, match_id=f"m{i:02d}", termination=crash)
            store.record_match(result, seat_versions=(a, b))
    return url


def ids(text: str) -> list[str]:
    return [line.split()[0] for line in text.splitlines()[1:] if line.startswith("m")]


def test_the_newest_fifty_come_first_under_a_header(db: str) -> None:
    out = arena("match", "list", "--db", db)
    lines = out.splitlines()
    assert lines[0].split() == ["MATCH", "FINISHED", "SEAT", "0", "vs", "SEAT", "1", "SCORE",
                                "RESULT"]  # fmt: skip
    assert ids(out) == [f"m{i:02d}" for i in range(59, 9, -1)]
    assert lines[1].split()[:5] == ["m59", "2026-01-02", "03:04", "alpha@1", "vs"]
    assert lines[-1] == "(more older: --page 2 for the next 50, --all for every one)"


def test_pages_and_all(db: str) -> None:
    second = arena("match", "list", "--page", "2", "--db", db)
    assert ids(second) == [f"m{i:02d}" for i in range(9, -1, -1)]
    assert "older" not in second and "reason:" in second  # m07's forfeit
    small = arena("match", "list", "--limit", "20", "--page", "3", "--db", db)
    assert ids(small) == [f"m{i:02d}" for i in range(19, -1, -1)]
    every = arena("match", "list", "--all", "--db", db)
    assert ids(every) == [f"m{i:02d}" for i in range(59, -1, -1)]
    listed = json.loads(arena("match", "list", "--json", "--limit", "3", "--db", db))
    assert [r["match_id"] for r in listed] == ["m59", "m58", "m57"]
    assert [r["match_id"] for r in json.loads(arena("match", "list", "--faults", "--json",
                                                    "--db", db))] == ["m07"]  # fmt: skip
