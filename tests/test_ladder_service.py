"""``arena serve --ladder`` on a real port: a bot submitted over the network is played by the
ladder without anyone starting a tournament, its status is readable through the service, and a
server stopped and started again records nothing twice."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import pytest

from arena.ladder import LADDER_KEY
from arena.referee import Termination
from arena.rules.ruleset import RuleSet
from arena.store import Store
from arena.tournament import TournamentSettings, create_tournament, run_tournament
from tests.test_service import ArenaProcess, arena_cli, bot_copy, make_token

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots"

pytestmark = pytest.mark.slow


def ladder_matches(db: Path) -> list:
    with Store.open(f"sqlite:///{db}") as store:
        ids = {t.id for t in store.list_tournaments() if isinstance(t.config.get(LADDER_KEY), dict)}
        return [m for m in store.list_matches() if m.tournament_id in ids]


def test_serve_ladder_plays_a_submitted_bot_by_itself(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    with Store.open(f"sqlite:///{db}") as store:  # two settled sample bots
        tid = create_tournament(store, TournamentSettings(
            bots=[str(SAMPLES / "random"), str(SAMPLES / "heuristic")], games=2, seed=3,
            rules=RuleSet(max_hands=2),
        ))  # fmt: skip
        run_tournament(store, tid)
    token = make_token(db, "carol")
    server = ArenaProcess(db, "--ladder")
    try:
        submitted = arena_cli(
            "bot", "submit", str(bot_copy(tmp_path, "carols_bot")), "--server", server.address,
            "--token", token,
        )  # fmt: skip
        assert submitted.returncode == 0, submitted.stderr
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            played = [m for m in ladder_matches(db) if "carols_bot" in " ".join(m.players)]
            if len(played) >= 2:
                break
            time.sleep(0.5)
        assert len(played) >= 2, "".join(server.lines)
        status = arena_cli("ladder", "status", "--server", server.address, "--json")
        assert status.returncode == 0, status.stderr
        shown = json.loads(status.stdout)
        assert "carols_bot" in {e["bot"] for e in shown["entrants"]}
        assert shown["pairs_scheduled"] >= 1
    finally:
        assert server.stop() == 0, "".join(server.lines)
    before = {m.match_id for m in ladder_matches(db) if m.termination is not Termination.ABORTED}
    # Started again, it goes on where it was: every game recorded once, nothing lost.
    again = ArenaProcess(db, "--ladder")
    try:
        time.sleep(3)
    finally:
        assert again.stop() == 0, "".join(again.lines)
    done = [m for m in ladder_matches(db) if m.termination is not Termination.ABORTED]
    assert before <= {m.match_id for m in done}
    per_game = Counter(m.tournament_game_id for m in done)
    assert all(n == 1 for n in per_game.values()), per_game
