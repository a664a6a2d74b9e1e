"""The data folder of a PostgreSQL-backed arena (submitted bots, the bots' logs): one option,
``--data-dir`` or $ARENA_DATA_DIR, on every command that plays and on ``arena match logs``, as a
SQLite store's ``<database>-data`` is found by all of them. The real CLI in child processes, run
from a folder of their own, on the test PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SHORT = ("--max-hands", "4")
SAMPLES = Path(__file__).resolve().parents[1] / "sample_bots"
BOTS = (str(SAMPLES / "random"), str(SAMPLES / "heuristic"))


def _arena(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("ARENA_DATA_DIR", "ARENA_DB")}
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True, text=True, timeout=300, cwd=cwd, env={**clean, **env},
    )  # fmt: skip


def _logs(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*.log"))


@pytest.mark.slow
@pytest.mark.postgres
def test_every_command_that_plays_keeps_its_logs_in_the_data_dir(
    postgres_url: str, tmp_path: Path
) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    data = tmp_path / "data"
    db = ("--db", postgres_url)

    played = _arena(cwd, "match", *BOTS, "--seed", "3", *SHORT, *db,
                    "--data-dir", str(data), "--json")  # fmt: skip
    assert played.returncode == 0, played.stderr
    mid = json.loads(played.stdout)["match_id"]
    seats = [Path(p).parent.name for p in _logs(data / "logs" / f"match-{mid}")]
    assert seats == ["seat0", "seat1"], seats
    assert (data / "bots").is_dir()  # the submitted copies of the two bots, there too
    for how in ({"args": ("--data-dir", str(data))}, {"env": {"ARENA_DATA_DIR": str(data)}}):
        found = _arena(cwd, "match", "logs", mid, "--seat", "0", *db, *how.get("args", ()),
                       **how.get("env", {}))  # fmt: skip
        assert found.returncode == 0, found.stderr
    # Without it, a PostgreSQL store's data dir is ./arena-data of wherever the command runs.
    missing = _arena(cwd, "match", "logs", mid, "--seat", "0", *db)
    assert missing.returncode == 2 and "no log kept" in missing.stderr, missing.stderr

    ran = _arena(cwd, "tournament", "run", *BOTS, "-n", "1", "-k", "1", *SHORT,
                 *db, "--json", ARENA_DATA_DIR=str(data))  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    tid = json.loads(ran.stdout)["tournament"]["id"]
    log = data / "logs" / f"tournament-{tid}" / "random"
    assert f"StartMatch t{tid}-g0 " in "".join(p.read_text() for p in log.glob("*.log"))
    shown = _arena(cwd, "match", "logs", f"t{tid}-g1", "--seat", "1", *db, "--data-dir", str(data))
    assert shown.returncode == 0, shown.stderr

    compared = _arena(cwd, "compare", *BOTS, "--max-pairs", "1", *SHORT, *db,
                      "--data-dir", str(data), "--json")  # fmt: skip
    assert compared.returncode in (0, 1, 3), compared.stderr
    cid = json.loads(compared.stdout)["tournament"]
    assert _logs(data / "logs" / f"tournament-{cid}"), compared.stderr

    laddered = _arena(cwd, "ladder", "run", "--bots", "random,heuristic", "--max-pairs", "1",
                      "--house", "none", "--rules", "max_hands=4", *db,
                      "--data-dir", str(data))  # fmt: skip
    assert laddered.returncode == 0, laddered.stderr
    folders = {p.name for p in (data / "logs").iterdir()}
    ladder_pairs = folders - {f"match-{mid}", f"tournament-{tid}", f"tournament-{cid}"}
    assert ladder_pairs and all(f.startswith("tournament-") for f in ladder_pairs), folders

    assert not (cwd / "arena-data").exists()  # nothing went to the default
