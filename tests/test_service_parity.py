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
from test_service import ArenaProcess, arena_cli, bot_copy, make_token

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
        shown = arena_cli("tournament", "show", "1", "--json", "--server", server.address)
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["tournament"]["status"] == "finished"
        assert json.loads(out)["tournament"]["done"] == 4
    finally:
        assert server.stop() == 0, "".join(server.lines)
