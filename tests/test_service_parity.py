"""The same tournament commands against a server: ``show`` and ``watch`` with ``--server``, and
a service that sees a tournament a local ``arena tournament run`` plays on its database as
running, and follows it. A real server process, real bots, real gRPC, one SQLite file."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_service import ArenaProcess, arena_cli, bot_copy, make_admin_token, make_token

from arena._gen.arena.v1 import arena_pb2 as pb
from arena.service.client import ArenaClient
from arena.store import Store


@pytest.mark.slow
def test_a_watch_through_the_server_follows_a_local_run(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    token = make_token(db, "organiser")
    server = ArenaProcess(db)
    try:
        with ArenaClient(server.address, token=token) as client:
            for name in ("alpha", "beta"):
                client.submit_bot(bot_copy(tmp_path, name, extra=name))
        player = subprocess.Popen(
            [sys.executable, "-m", "arena", "tournament", "run", "alpha", "beta", "-n", "2",
             "-k", "1", "--max-hands", "4", "--seed", "5", "--db", str(db), "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            with Store.open(str(db)) as store:
                while not (store.list_tournaments() and store.tournament_player_active(1)):
                    assert time.monotonic() < deadline, "the local run never started"
                    time.sleep(0.1)
            with ArenaClient(server.address) as client:
                assert client.get_tournament(1).state == pb.TOURNAMENT_STATE_RUNNING
            watched = arena_cli("tournament", "watch", "1", "--server", server.address)
        finally:
            out, err = player.communicate(timeout=300)
        assert player.returncode == 0, err
        assert watched.returncode == 0, watched.stderr
        assert "[4/4]" in watched.stderr and "finished" in watched.stdout
        listed = arena_cli("tournament", "list", "--json", "--server", server.address)
        assert listed.returncode == 0, listed.stderr
        local = arena_cli("tournament", "list", "--json", "--db", str(db))
        assert json.loads(listed.stdout) == json.loads(local.stdout)  # the same words and rows
        assert json.loads(listed.stdout)[0]["status"] == "finished"
        shown = arena_cli("tournament", "show", "1", "--json", "--server", server.address)
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["tournament"]["status"] == "finished"
        assert json.loads(out)["tournament"]["done"] == 4
    finally:
        assert server.stop() == 0, "".join(server.lines)


@pytest.mark.slow
def test_a_restarted_server_resumes_the_tournaments_it_was_playing(tmp_path: Path) -> None:
    from arena.bot_protocol.messages import ruleset_to_pb
    from arena.rules import RuleSet
    from arena.store import GameStatus, TournamentStatus

    db = tmp_path / "arena.db"
    token = make_admin_token(db, "organiser")  # an admin may pick the seed
    server = ArenaProcess(db, "--shutdown-grace", "0")
    with ArenaClient(server.address, token=token) as client:
        for name in ("alpha", "beta"):
            client.submit_bot(bot_copy(tmp_path, name, extra=name))
        started = client.start_tournament(
            ["alpha", "beta"], games=3, concurrency=1, seed=2,
            rules=ruleset_to_pb(RuleSet(target_score=200, max_hands=8)),
        )  # fmt: skip
        for event in client.watch_tournament(started.id):
            if event.HasField("match"):
                break  # one match recorded: stop the server in the middle
    assert server.stop() == 0, "".join(server.lines)
    with Store.open(str(db)) as store:
        left = len(store.pending_games(started.id))
    assert left > 0

    again = ArenaProcess(db)
    try:
        deadline = time.monotonic() + 30
        while not (said := [line for line in again.lines if "resuming tournament" in line]):
            assert time.monotonic() < deadline, "".join(again.lines)
            time.sleep(0.05)
        assert said and f"resuming tournament {started.id}" in said[0], "".join(again.lines)
        assert f"{left} of 6 matches left" in said[0]
        with ArenaClient(again.address) as client:
            events = list(client.watch_tournament(started.id))
        assert events[-1].tournament.state == pb.TOURNAMENT_STATE_FINISHED
    finally:
        assert again.stop() == 0, "".join(again.lines)
    with Store.open(str(db)) as store:
        assert store.get_tournament(started.id).status is TournamentStatus.FINISHED
        games = store.tournament_games(started.id)
    assert all(g.status is GameStatus.DONE for g in games)
    assert all(g.match_id == f"t{started.id}-g{g.ordinal}" for g in games)
