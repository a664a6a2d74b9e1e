"""Bot logs and match lists through the service: ``GetMatchLog`` for the bot's owner only,
``arena match list|logs --server``; a real server process, real bots, real gRPC."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest
from test_service import ArenaProcess, arena_cli, bot_copy, make_admin_token, make_token

from arena.bot_protocol.messages import ruleset_to_pb
from arena.rules import RuleSet
from arena.service.client import ArenaClient, RemoteError


@pytest.mark.slow
def test_logs_are_kept_per_tournament_and_shown_to_the_owner_only(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    owner = make_token(db, "owner")
    other = make_admin_token(db, "other")  # pits another's bot and picks the seed
    server = ArenaProcess(db)
    try:
        with ArenaClient(server.address, token=owner) as client:
            client.submit_bot(bot_copy(tmp_path, "alpha", extra="a"))
        with ArenaClient(server.address, token=other) as client:
            client.submit_bot(bot_copy(tmp_path, "beta", extra="b"))
            started = client.start_tournament(
                ["alpha", "beta"], games=1, concurrency=1, seed=3,
                rules=ruleset_to_pb(RuleSet(target_score=100, max_hands=3)),
            )  # fmt: skip
            events = list(client.watch_tournament(started.id))
            assert events[-1].tournament.matches_done == 2
            seat_of_beta = next(
                (m.id, i)
                for m in (e.match for e in events if e.HasField("match"))
                for i, s in enumerate(m.seats)
                if s.bot == "beta"
            )
            mid, seat = seat_of_beta
            got = client.match_log(mid, seat)
            assert got.kept
            # Opponents are anonymous in the service's tournaments: no name in the log either.
            assert got.text.startswith(f"[arena] StartMatch {mid} seat {seat}\n")
            assert f"[arena] EndMatch {mid} " in got.text
            with pytest.raises(RemoteError) as denied:
                client.match_log(mid, 1 - seat)  # alpha's seat: not this token's bot
            assert denied.value.code == grpc.StatusCode.PERMISSION_DENIED
            assert "only the owner of alpha" in str(denied.value)
        with ArenaClient(server.address) as anonymous, pytest.raises(RemoteError):
            anonymous.match_log(mid, seat)
        logs = tmp_path / "arena-data" / "logs" / f"tournament-{started.id}"
        assert sorted(p.name for p in logs.iterdir()) == ["alpha", "beta"]

        shown = arena_cli("match", "logs", mid, "--seat", str(seat), "--server", server.address,
                          "--token", other)  # fmt: skip
        assert shown.returncode == 0, shown.stderr
        assert f"EndMatch {mid}" in shown.stdout
        listed = arena_cli("match", "list", "--json", "--tournament", str(started.id),
                           "--server", server.address)  # fmt: skip
        assert listed.returncode == 0, listed.stderr
        rows = json.loads(listed.stdout)
        assert sorted(r["match_id"] for r in rows) == [f"t{started.id}-g0", f"t{started.id}-g1"]
        assert all(sorted(r["seats"]) == ["alpha@1.0", "beta@1.0"] for r in rows)
        local = json.loads(arena_cli("match", "list", "--json", "--db", str(db)).stdout)
        assert [r["match_id"] for r in local] == [r["match_id"] for r in rows]
    finally:
        assert server.stop() == 0, "".join(server.lines)
