"""``ResumeTournament`` and ``arena tournament resume ID --server``: the server plays the rest of
an interrupted tournament with its own runner, for its creator's token or an admin's, within the
running quotas; a tournament finished, cancelled or already being played is refused with
FAILED_PRECONDITION (one line in the CLI). Real server processes, real bots, one SQLite file."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest
from test_service import ArenaProcess, arena_cli, bot_copy, make_admin_token, make_token

from arena._gen.arena.v1 import arena_pb2 as pb
from arena.bot_protocol.messages import ruleset_to_pb
from arena.rules import RuleSet
from arena.service.client import ArenaClient, RemoteError
from arena.store import GameStatus, Store, TournamentStatus

SHORT = ruleset_to_pb(RuleSet(target_score=200, max_hands=8))


def _code(call: object) -> tuple[grpc.StatusCode | None, str]:
    """The status code and message of a call the server refuses."""
    with pytest.raises(RemoteError) as info:
        call()  # type: ignore[operator]
    return info.value.code, str(info.value)


def _interrupted_tournament(tmp_path: Path, db: Path, token: str) -> int:
    """A tournament the service started and stopped in its middle (SIGTERM, no grace)."""
    server = ArenaProcess(db, "--shutdown-grace", "0")
    with ArenaClient(server.address, token=token) as client:
        for name in ("alpha", "beta"):
            client.submit_bot(bot_copy(tmp_path, name, extra=name))
        started = client.start_tournament(["alpha", "beta"], games=3, concurrency=1, rules=SHORT)
        for event in client.watch_tournament(started.id):
            if event.HasField("match"):
                break
    assert server.stop() == 0, "".join(server.lines)
    return started.id


@pytest.mark.slow
def test_resume_through_the_server(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    alice = make_token(db, "alice")
    bob = make_token(db, "bob")
    admin = make_admin_token(db, "root")
    tid = _interrupted_tournament(tmp_path, db, alice)
    with Store.open(str(db)) as store:
        left = len(store.pending_games(tid))
        assert 0 < left < 6
        # Another process plays it when the server starts: the server leaves it alone and
        # refuses to resume it while that process holds its player lock.
        with store.tournament_player_lock(tid):
            server = ArenaProcess(db, "--running-per-token", "1")
            try:
                with ArenaClient(server.address, token=alice) as client:
                    code, message = _code(lambda: client.resume_tournament(tid))
                    assert code == grpc.StatusCode.FAILED_PRECONDITION, message
                    assert "already being played by another process" in message
                    assert client.get_tournament(tid).state == pb.TOURNAMENT_STATE_RUNNING
            except BaseException:
                server.stop()
                raise
    try:
        assert not any("resuming tournament" in line for line in server.lines), server.lines
        with ArenaClient(server.address) as anonymous:
            assert anonymous.get_tournament(tid).state == pb.TOURNAMENT_STATE_INTERRUPTED
            code, message = _code(lambda: anonymous.resume_tournament(tid))
            assert code == grpc.StatusCode.UNAUTHENTICATED, message
        with ArenaClient(server.address, token=bob) as client:
            code, message = _code(lambda: client.resume_tournament(tid))
            assert code == grpc.StatusCode.PERMISSION_DENIED, message
            assert "only that token or an admin token may resume it" in message

        with ArenaClient(server.address, token=alice) as client:
            # The quota of running tournaments counts the resumed one against its creator.
            other = client.start_tournament(["alpha", "beta"], games=300, concurrency=1)
            code, message = _code(lambda: client.resume_tournament(other.id))
            assert code == grpc.StatusCode.FAILED_PRECONDITION, message
            assert "already being played on this server" in message
            code, message = _code(lambda: client.resume_tournament(tid))
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, message
            client.cancel_tournament(other.id)
            code, message = _code(lambda: client.resume_tournament(other.id))
            assert code == grpc.StatusCode.FAILED_PRECONDITION, message
            assert f"tournament {other.id} is cancelled" in message

        resumed = arena_cli(
            "tournament", "resume", str(tid), "--server", server.address, "--token", alice,
            "--json",
        )  # fmt: skip
        assert resumed.returncode == 0, resumed.stderr
        report = json.loads(resumed.stdout)["tournament"]
        assert report["status"] == "finished" and report["done"] == 6
        assert any(f"resuming tournament {tid} on request" in line for line in server.lines)
        # The report with its matches, through the server as on the database.
        remote = arena_cli("tournament", "show", str(tid), "--matches", "--json",
                           "--server", server.address)  # fmt: skip
        local = arena_cli("tournament", "show", str(tid), "--matches", "--json", "--db", str(db))
        assert remote.returncode == 0 and local.returncode == 0, remote.stderr + local.stderr
        ids = [[m["match_id"] for m in json.loads(o.stdout)["matches"]] for o in (remote, local)]
        assert ids[0] == ids[1] and {f"t{tid}-g{i}" for i in range(6)} <= set(ids[0])

        again = arena_cli(
            "tournament", "resume", str(tid), "--server", server.address, "--token", admin
        )
        assert again.returncode == 2
        assert again.stderr.splitlines() == [
            f"arena: error: arena at {server.address}: FAILED_PRECONDITION: tournament {tid} "
            "is finished: nothing is left to resume"
        ]
        mixed = arena_cli("tournament", "resume", str(tid), "--server", server.address, "-k", "2")
        assert mixed.returncode == 2
        assert mixed.stderr.startswith("arena: error: --concurrency and --server do not go")
    finally:
        assert server.stop() == 0, "".join(server.lines)
    with Store.open(str(db)) as store:
        assert store.get_tournament(tid).status is TournamentStatus.FINISHED
        games = store.tournament_games(tid)
    assert all(g.status is GameStatus.DONE for g in games)
    assert all(g.match_id == f"t{tid}-g{g.ordinal}" for g in games)  # each recorded once


@pytest.mark.slow
def test_an_admin_resumes_a_local_run_a_member_may_not(tmp_path: Path) -> None:
    """A tournament of a local `arena tournament run` has no creator token: only an admin may
    have the server finish it."""
    db = tmp_path / "arena.db"
    member = make_token(db, "member")
    admin = make_admin_token(db, "root")
    bots = [str(bot_copy(tmp_path, name, extra=name)) for name in ("gamma", "delta")]
    with Store.open(str(db)) as store:
        from arena.tournament import TournamentSettings, create_tournament

        tid = create_tournament(
            store, TournamentSettings(bots=bots, games=1, concurrency=1, seed=3,
                                      rules=RuleSet(target_score=200, max_hands=8)),
        )  # fmt: skip
    server = ArenaProcess(db)
    try:
        assert not any("resuming tournament" in line for line in server.lines)
        with ArenaClient(server.address, token=member) as client:
            code, message = _code(lambda: client.resume_tournament(tid))
            assert code == grpc.StatusCode.PERMISSION_DENIED, message
        with ArenaClient(server.address, token=admin) as client:
            # A bot whose files are gone is refused before anything is started.
            gone = Path(bots[0]).rename(tmp_path / "moved")
            code, message = _code(lambda: client.resume_tournament(tid))
            assert code == grpc.StatusCode.FAILED_PRECONDITION, message
            assert "bot gamma: its directory" in message and "is gone" in message
            assert client.get_tournament(tid).state == pb.TOURNAMENT_STATE_INTERRUPTED
            gone.rename(bots[0])
            assert client.resume_tournament(tid).state == pb.TOURNAMENT_STATE_RUNNING
            events = list(client.watch_tournament(tid))
            assert events[-1].tournament.state == pb.TOURNAMENT_STATE_FINISHED
            assert events[-1].tournament.matches_done == 2
    finally:
        assert server.stop() == 0, "".join(server.lines)


@pytest.mark.slow
def test_resume_of_an_unknown_tournament_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    token = make_token(db, "alice")
    server = ArenaProcess(db)
    try:
        result = arena_cli(
            "tournament", "resume", "99", "--server", server.address, "--token", token
        )
        assert result.returncode == 2
        assert result.stderr.splitlines() == [
            f"arena: error: arena at {server.address}: NOT_FOUND: no tournament with id 99"
        ]
    finally:
        assert server.stop() == 0, "".join(server.lines)
