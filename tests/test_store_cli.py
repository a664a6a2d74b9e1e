"""``arena db`` and ``arena ratings``, run as the real command in a child process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.ratings import RatingConfig
from arena.referee.record import MatchResult
from arena.store import LEADERBOARD_KEYS, Store
from arena.store.migrate import head_revision

MakeResult = Callable[..., MatchResult]
EXPECTED_KEYS = [
    "rank",
    "bot",
    "version",
    "mu",
    "sigma",
    "score",
    "mu_low",
    "mu_high",
    "matches",
    "wins",
    "losses",
    "draws",
    "faults",
]


def arena(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_DB", "ARENA_TRUESKILL"))}
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=cwd,
    )


def _play(db_url: str, make_result: MakeResult) -> None:
    with Store.open(db_url, rating_config=RatingConfig()) as store:
        strong = store.register_bot_version("strong", "2.1", "s", "/s").id
        weak = store.register_bot_version("weak", "0.1", "w", "/w").id
        for i in range(3):
            # strong wins every match; weak faults once in each.
            seats, faults = ((strong, weak), (0, 1)) if i % 2 == 0 else ((weak, strong), (1, 0))
            store.record_match(make_result(i % 2, faults=faults), seat_versions=seats)


def test_ratings_json_has_exactly_the_documented_keys(db_url: str, make_result: MakeResult) -> None:
    _play(db_url, make_result)
    done = arena("ratings", "--json", "--db", db_url)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [list(row) for row in rows] == [EXPECTED_KEYS, EXPECTED_KEYS]
    assert list(LEADERBOARD_KEYS) == EXPECTED_KEYS
    top, bottom = rows
    assert (top["rank"], top["bot"], top["version"], top["matches"], top["wins"]) == (
        1,
        "strong",
        "2.1",
        3,
        3,
    )
    assert (bottom["bot"], bottom["losses"], bottom["faults"]) == ("weak", 3, 3)
    assert top["score"] == pytest.approx(top["mu"] - 3 * top["sigma"])


def test_ratings_recompute_gives_the_same_numbers(db_url: str, make_result: MakeResult) -> None:
    _play(db_url, make_result)
    before = json.loads(arena("ratings", "--json", "--db", db_url).stdout)
    done = arena("ratings", "--json", "--recompute", "--db", db_url)
    assert done.returncode == 0, done.stderr
    assert "recomputed ratings from 3 rated matches" in done.stderr
    assert json.loads(done.stdout) == before


def test_ratings_table(db_url: str, make_result: MakeResult) -> None:
    _play(db_url, make_result)
    done = arena("ratings", "--db", db_url)
    assert done.returncode == 0, done.stderr
    header, first, second = done.stdout.splitlines()
    assert header.split() == [
        "rank",
        "bot",
        "version",
        "mu",
        "sigma",
        "95%",
        "interval",
        "score",
        "matches",
        "W",
        "L",
        "D",
        "faults",
    ]
    assert first.split()[:3] == ["1", "strong", "2.1"]
    mu, sigma, low, high = first.split()[3:7]
    # the 95% interval, mu ± 1.96 sigma, from the rounded figures
    assert abs(float(low.strip("[,")) - (float(mu) - 1.96 * float(sigma))) <= 0.011
    assert abs(float(high.strip("]")) - (float(mu) + 1.96 * float(sigma))) <= 0.011
    assert second.split()[-1] == "3"  # weak's faults


def test_default_database_is_arena_db_in_the_current_folder(tmp_path: Path) -> None:
    done = arena("ratings", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "no rated matches yet"
    assert (tmp_path / "arena.db").is_file()


def test_db_upgrade_and_current(db_url: str) -> None:
    head = head_revision()
    assert "revision -, empty" in arena("db", "current", "--db", db_url).stdout
    done = arena("db", "upgrade", "--db", db_url)
    assert done.returncode == 0, done.stderr
    assert f"schema created at revision {head}" in done.stdout
    assert "already current" in arena("db", "upgrade", "--db", db_url).stdout
    assert f"revision {head}, current" in arena("db", "current", "--db", db_url).stdout


def test_unreachable_database_is_one_line_and_a_non_zero_exit() -> None:
    url = "postgresql://arena:hunter2@127.0.0.1:1/arena"
    for args in (("ratings", "--db", url), ("db", "upgrade", "--db", url)):
        done = arena(*args)
        assert done.returncode == 2
        assert done.stdout == ""
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, done.stderr
        assert lines[0].startswith(
            "arena: error: cannot connect to database "
            "postgresql+psycopg://arena:***@127.0.0.1:1/arena"
        )
        assert "hunter2" not in done.stderr


def test_newer_schema_is_one_line_and_a_non_zero_exit(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "arena.db"
    assert arena("db", "upgrade", "--db", str(db)).returncode == 0
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE alembic_version SET version_num = 'ffff'")
    done = arena("ratings", "--db", str(db))
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert "schema revision 'ffff'" in done.stderr and "nothing was changed" in done.stderr


def test_ratings_players_filter_shows_people_or_bots(db_url: str, make_result: MakeResult) -> None:
    _play(db_url, make_result)
    with Store.open(db_url) as store:
        ada = store.create_account("ada", "ada's long password")
        person = store.register_person(ada.id).id
        weak = store.get_bot_version("weak").id
        store.record_match(make_result(0), seat_versions=(person, weak))
    humans = json.loads(arena("ratings", "--json", "--players", "humans", "--db", db_url).stdout)
    assert [(r["rank"], r["bot"]) for r in humans] == [(1, "human:ada")]
    bots = json.loads(arena("ratings", "--json", "--players", "bots", "--db", db_url).stdout)
    assert [r["bot"] for r in bots] == ["strong", "weak"]
    everyone = json.loads(arena("ratings", "--json", "--db", db_url).stdout)
    assert len(everyone) == 3
    bad = arena("ratings", "--players", "people", "--db", db_url)
    assert bad.returncode != 0
    assert "--players is one of all, bots, humans, not 'people'" in bad.stderr
