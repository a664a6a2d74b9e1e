"""Tournaments through the service: started remotely, watched as a stream, read back as
leaderboard and match records, through the generated client and the CLI; and a SIGTERM in the
middle of one, after which nothing is half-written and the tournament can be resumed."""

from __future__ import annotations

import json
import signal
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest
from test_service import ArenaProcess, arena_cli, bot_copy, make_admin_token

from arena._gen.arena.v1 import arena_pb2 as pb
from arena.bot_protocol.messages import ruleset_to_pb
from arena.rules import Match, RuleSet
from arena.service.client import ArenaClient, RemoteError
from arena.service.convert import match_result_from_pb
from arena.store import LEADERBOARD_KEYS, GameStatus, Store, TournamentStatus

SHORT = RuleSet(target_score=100, max_hands=6)
"""Short matches: a few hands each."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[ArenaProcess, str]:
    root = tmp_path_factory.mktemp("tournament")
    db = root / "arena.db"
    token = make_admin_token(db, "organiser")  # an admin picks seeds: replayable runs
    server = ArenaProcess(db)
    with ArenaClient(server.address, token=token) as client:
        for name in ("alpha", "beta", "gamma"):
            client.submit_bot(bot_copy(root, name, extra=name))
    yield server, token
    assert server.stop() == 0, "".join(server.lines)


@pytest.mark.slow
def test_start_watch_and_read_back(served: tuple[ArenaProcess, str]) -> None:
    server, token = served
    with ArenaClient(server.address, token=token) as client:
        started = client.start_tournament(
            ["alpha", "beta", "gamma"], games=1, concurrency=2, seed=11,
            rules=ruleset_to_pb(SHORT), move_timeout_ms=5000,
        )  # fmt: skip
        assert started.state == pb.TOURNAMENT_STATE_RUNNING
        assert started.matches_total == 6  # 3 pairs x 1 seed x 2 seatings
        assert started.deals == pb.DEAL_MODE_PAIRS  # the default when the request names none
        assert list(started.bots) == ["alpha", "beta", "gamma"]

        events = list(client.watch_tournament(started.id))
        matches = [e.match for e in events if e.HasField("match")]
        assert len(matches) == 6
        assert len({m.id for m in matches}) == 6
        done = [e.tournament.matches_done for e in events if e.HasField("match")]
        assert done == sorted(done) and done[-1] == 6
        final = events[-1].tournament
        assert not events[-1].HasField("match")
        assert final.state == pb.TOURNAMENT_STATE_FINISHED
        assert final.matches_done == final.matches_total == 6
        assert {r.bot for r in final.standings.leaderboard} == {"alpha", "beta", "gamma"}
        assert sum(r.matches for r in final.standings.leaderboard) == 12
        assert len(final.standings.head_to_head) == 3

        # Duplicate pairs: both seatings of one pair share the seed, seats swapped, and no
        # other pair plays it (seen once the tournament is over: while it runs, a deal still to
        # be played stays sealed).
        replayed = [e.match for e in client.watch_tournament(started.id) if e.HasField("match")]
        by_pair: dict[str, list[pb.Match]] = {}
        for m in replayed:
            by_pair.setdefault(m.pair_id, []).append(m)
        assert len(by_pair) == 3
        for a, b in by_pair.values():
            assert a.seed == b.seed
            assert (a.seats[0].bot, a.seats[1].bot) == (b.seats[1].bot, b.seats[0].bot)
        assert len({a.seed for a, _ in by_pair.values()}) == 3

        # Watching a finished tournament replays its record and ends.
        again = list(client.watch_tournament(started.id))
        assert [e.match.id for e in again if e.HasField("match")] == [m.id for m in matches]
        assert again[-1].tournament.state == pb.TOURNAMENT_STATE_FINISHED

        # The full record replays exactly through the engine.
        record = match_result_from_pb(client.get_match(matches[0].id))
        engine = Match(seed=record.seed, rules=record.rules)
        for d in record.decisions:
            assert (engine.to_act, engine.decision) == (d.seat, d.decision)
            engine.apply(d.action)
        assert engine.is_over and tuple(engine.scores) == record.scores
        assert record.rules == SHORT

        listed = client.list_matches(tournament_id=started.id, page_size=4)
        assert len(listed.matches) == 4 and listed.next_page_token
        rest = client.list_matches(
            tournament_id=started.id, page_size=4, page_token=listed.next_page_token
        )
        assert len(rest.matches) == 2 and not rest.next_page_token
        assert {m.id for m in [*listed.matches, *rest.matches]} == {m.id for m in matches}

        board = client.leaderboard()
        assert {e.bot for e in board} == {"alpha", "beta", "gamma"}
        assert [e.rank for e in board] == [1, 2, 3]
        assert all(e.matches == 4 for e in board)
        assert all(e.score == pytest.approx(e.mu - 3 * e.sigma) for e in board)


def test_bad_tournament_requests(served: tuple[ArenaProcess, str]) -> None:
    server, token = served
    with ArenaClient(server.address, token=token) as client:
        for bots, fragment in [
            (["alpha", "nobody"], "unknown bot 'nobody'"),
            (["alpha"], "at least two bots"),
            (["alpha", "/etc"], "name a submitted bot"),
            (["alpha", "../beta"], "name a submitted bot"),
        ]:
            with pytest.raises(RemoteError) as info:
                client.start_tournament(bots, games=1)
            assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
            assert fragment in str(info.value)
        with pytest.raises(RemoteError) as info:
            client.start_tournament(["alpha", "beta"], concurrency=1000)
        assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
        # A deal mode this server does not know (a newer client's) is refused, not replaced.
        before = len(client.list_tournaments())
        with pytest.raises(RemoteError) as info:
            client.start_tournament(["alpha", "beta"], deals=7)  # type: ignore[arg-type]
        assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
        assert "unknown deal mode 7 (pairs, duplicate or independent)" in str(info.value)
        assert len(client.list_tournaments()) == before


@pytest.mark.slow
def test_duplicate_deals_asked_for_are_shared_by_every_pair(
    served: tuple[ArenaProcess, str],
) -> None:
    server, token = served
    with ArenaClient(server.address, token=token) as client:
        started = client.start_tournament(
            ["alpha", "beta", "gamma"], games=1, concurrency=2, seed=12,
            rules=ruleset_to_pb(SHORT), move_timeout_ms=5000, deals=pb.DEAL_MODE_DUPLICATE,
        )  # fmt: skip
        assert started.deals == pb.DEAL_MODE_DUPLICATE
        events = list(client.watch_tournament(started.id))
        assert events[-1].tournament.state == pb.TOURNAMENT_STATE_FINISHED
        assert events[-1].tournament.deals == pb.DEAL_MODE_DUPLICATE
        # Read once it is over (a sealed deal shows as seed 0 while the tournament runs).
        replayed = [e.match for e in client.watch_tournament(started.id) if e.HasField("match")]
        assert len(replayed) == 6 and len({m.pair_id for m in replayed}) == 3
        # One deal seed, played by all three pairs in both seatings.
        assert len({m.seed for m in replayed}) == 1 and replayed[0].seed != 0


@pytest.mark.slow
def test_a_comparison_through_the_service(served: tuple[ArenaProcess, str], tmp_path: Path) -> None:
    """StartTournament with a Comparison: two bots, played until the SPRT decides or the cap
    (here 3 pairs, bounds no 3 pairs of equal bots cross); bad requests refused in one line."""
    server, token = served
    with ArenaClient(server.address, token=token) as client:
        for bots, compare, fragment in [
            (["alpha", "beta", "gamma"], pb.Comparison(elo1=5), "exactly two bots (A, then B)"),
            (["alpha", "beta"], pb.Comparison(elo0=10, elo1=5), "--sprt needs elo0 < elo1"),
            (["alpha", "beta"], pb.Comparison(elo1=5, max_pairs=-1), "max_pairs must be >= 0"),
            (["alpha", "beta"], pb.Comparison(elo1=5, alpha=2), "strictly between 0 and 1"),
        ]:
            with pytest.raises(RemoteError) as info:
                client.start_tournament(bots, compare=compare)
            assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
            assert fragment in str(info.value) and "\n" not in str(info.value)
        started = client.start_tournament(
            ["alpha", "beta"], rules=ruleset_to_pb(SHORT),
            compare=pb.Comparison(elo0=-1, elo1=1, max_pairs=3),
        )  # fmt: skip
        assert started.matches_total == 6  # 3 pairs, both seatings
        final = list(client.watch_tournament(started.id))[-1].tournament
        assert final.state == pb.TOURNAMENT_STATE_FINISHED
        assert final.matches_done == 6
    with Store.open(f"sqlite:///{server.db}") as store:
        info = store.get_tournament(started.id)
        assert info.config["kind"] == "compare"
        assert info.config["compare"]["max_pairs"] == 3
        assert info.config["compare"]["sprt"] == {
            "elo0": -1.0, "elo1": 1.0, "alpha": 0.05, "beta": 0.05,
        }  # fmt: skip


@pytest.mark.slow
def test_cli_tournament_ratings_and_replay(served: tuple[ArenaProcess, str]) -> None:
    server, token = served
    env = {"ARENA_SERVER": server.address, "ARENA_TOKEN": token}
    run = arena_cli(
        "tournament", "run", "alpha", "beta", "--games", "1", "--seed", "5", "--max-hands", "3",
        "--rules", "draw_decision_public=true", "--json", env=env,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["tournament"]["done"] == report["tournament"]["total"] == 2
    assert report["tournament"]["rules"]["max_hands"] == 3  # the options reach the server
    assert report["tournament"]["rules"]["draw_decision_public"] is True
    assert report["tournament"]["status"] == "finished"
    assert {r["bot"] for r in report["leaderboard"]} == {"alpha", "beta"}
    assert report["head_to_head"][0]["matches"] == 2

    ratings = arena_cli("ratings", "--server", server.address, "--json")
    assert ratings.returncode == 0, ratings.stderr
    rows = json.loads(ratings.stdout)
    assert rows and all(list(r) == list(LEADERBOARD_KEYS) for r in rows)
    table = arena_cli("ratings", "--server", server.address)
    assert table.stdout.splitlines()[0].split()[:3] == ["rank", "bot", "version"]

    with ArenaClient(server.address) as client:
        match_id = client.list_matches(page_size=1).matches[0].id
    shown = arena_cli("replay", match_id, "--server", server.address, "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)
    text = arena_cli("replay", match_id, "--server", server.address)
    assert text.returncode == 0 and match_id in text.stdout

    unauth = arena_cli("tournament", "run", "alpha", "beta", "--server", server.address)
    assert unauth.returncode == 2 and "UNAUTHENTICATED" in unauth.stderr


@pytest.mark.slow
def test_sigterm_mid_tournament_leaves_nothing_half_written(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    token = make_admin_token(db, "organiser")  # an admin picks seeds: replayable runs
    server = ArenaProcess(db, "--shutdown-grace", "0")
    with ArenaClient(server.address, token=token) as client:
        for name in ("alpha", "beta"):
            client.submit_bot(bot_copy(tmp_path, name, extra=name))
        started = client.start_tournament(
            ["alpha", "beta"], games=3, concurrency=2, seed=3, move_timeout_ms=5000,
            rules=ruleset_to_pb(RuleSet(target_score=200, max_hands=20)),
        )  # fmt: skip
        watch = client.watch_tournament(started.id)
        for event in watch:
            if event.HasField("match"):
                break
        assert server.stop(signal.SIGTERM, timeout=120) == 0, "".join(server.lines)
        # The stream ends with the tournament interrupted (or, if it was that quick, finished).
        rest = list(watch)
    assert rest and rest[-1].tournament.state in (
        pb.TOURNAMENT_STATE_INTERRUPTED, pb.TOURNAMENT_STATE_FINISHED,
    )  # fmt: skip

    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with Store.open(str(db)) as store:
        info = store.get_tournament(started.id)
        games = store.tournament_games(started.id)
        matches = store.list_matches(tournament_id=started.id)
    done = [g for g in games if g.status is GameStatus.DONE]
    finished = [m for m in matches if m.termination.value != "aborted"]
    aborted = [m for m in matches if m.termination.value == "aborted"]
    # Every finished match settled its game, every settled game has its match, once.
    assert sorted(g.match_id for g in done) == sorted(m.match_id for m in finished)
    # A match cut short was recorded as aborted, unrated, and its game is still to play.
    assert all(not m.rated for m in aborted)
    pending_ids = {g.id for g in games if g.status is GameStatus.PENDING}
    assert all(m.tournament_game_id in pending_ids for m in aborted)
    assert info.games_done == len(done) < 6
    assert info.status is TournamentStatus.RUNNING
    assert aborted, "with --shutdown-grace 0 the match in play is aborted and recorded"

    resumed = arena_cli("tournament", "resume", str(started.id), "--db", str(db), "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["tournament"]["done"] == 6
    with Store.open(str(db)) as store:
        assert store.get_tournament(started.id).status is TournamentStatus.FINISHED
        replayed = {m.match_id for m in store.list_matches(tournament_id=started.id)}
        games = store.tournament_games(started.id)
    assert {m.match_id for m in aborted} <= replayed  # the aborted attempts stay on record
    # An aborted attempt is kept under an id of its own; the game, played again, keeps its id
    # (the one its bots saw the first time) and its seed.
    assert all(m.match_id.rsplit("-", 1)[1] == "a1" for m in aborted)
    assert all(g.match_id == f"t{started.id}-g{g.ordinal}" for g in games)


@pytest.mark.slow
def test_sigterm_lets_the_matches_in_play_finish_within_the_grace(tmp_path: Path) -> None:
    """With a generous grace, SIGTERM starts nothing new, the matches in play end normally
    (recorded once, rated), the rest stay pending, and a resume plays exactly those."""
    grace = 60.0
    db = tmp_path / "arena.db"
    token = make_admin_token(db, "organiser")  # an admin picks seeds: replayable runs
    server = ArenaProcess(db, "--shutdown-grace", str(grace))
    with ArenaClient(server.address, token=token) as client:
        for name in ("alpha", "beta"):
            client.submit_bot(bot_copy(tmp_path, name, extra=name))
        started = client.start_tournament(
            ["alpha", "beta"], games=5, concurrency=2, seed=4, move_timeout_ms=5000,
            rules=ruleset_to_pb(RuleSet(target_score=300, max_hands=10)),
        )  # fmt: skip
        watch = client.watch_tournament(started.id)
        for event in watch:
            if event.HasField("match"):
                break
        # The bots are up and games are pending: both of the 2 slots have a match in play.
        before = {
            m.id for m in client.list_matches(tournament_id=started.id, page_size=100).matches
        }
        signalled = datetime.now(UTC)
        sent = time.monotonic()
        assert server.stop(signal.SIGTERM, timeout=grace + 30) == 0, "".join(server.lines)
        took = time.monotonic() - sent
        rest = list(watch)
    assert took < grace, f"shutdown took {took:.1f}s, more than the {grace}s grace"
    assert rest and rest[-1].tournament.state == pb.TOURNAMENT_STATE_INTERRUPTED
    assert "arena: stopped" in "".join(server.lines)

    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with Store.open(str(db)) as store:
        info = store.get_tournament(started.id)
        games = store.tournament_games(started.id)
        matches = store.list_matches(tournament_id=started.id)
    done = [g for g in games if g.status is GameStatus.DONE]
    pending = [g for g in games if g.status is GameStatus.PENDING]
    # Nothing was cut short: every match ended by the rules and is rated.
    assert {m.termination.value for m in matches} <= {"target_reached", "hand_limit"}
    assert all(m.rated for m in matches)
    # Each settled game has its one match, each match settles one game: nothing twice.
    assert sorted(g.match_id for g in done) == sorted(m.match_id for m in matches)
    assert len({m.tournament_game_id for m in matches}) == len(matches)
    # The matches in play at the signal were let finish, after it.
    assert before <= {m.match_id for m in matches}
    in_play = [m for m in matches if m.started_at <= signalled <= m.finished_at]
    assert in_play, [(m.match_id, m.started_at, m.finished_at, signalled) for m in matches]
    # None started after the server took the signal; the games not started stay pending.
    assert all(m.started_at < signalled + timedelta(seconds=1) for m in matches)
    assert pending and len(done) + len(pending) == len(games) == 10
    assert info.games_done == len(done) < 10
    assert info.status is TournamentStatus.RUNNING

    resumed = arena_cli("tournament", "resume", str(started.id), "--db", str(db), "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["tournament"]["done"] == 10
    with Store.open(str(db)) as store:
        assert store.get_tournament(started.id).status is TournamentStatus.FINISHED
        after = store.list_matches(tournament_id=started.id)
    assert len(after) == 10 and len({m.tournament_game_id for m in after}) == 10
    assert {m.match_id for m in matches} <= {m.match_id for m in after}
    assert all(m.termination.value != "aborted" for m in after)


def test_a_server_takes_bot_names_never_its_own_directories(
    tmp_path: Path, sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name a client sends is a submitted (or sample) bot, even where the server's working
    directory holds a bot folder of that name: nothing of the server's disk becomes a bot."""
    from arena.errors import ArenaError
    from arena.service.tournaments import TournamentManager

    bot_copy(tmp_path, "sneaky")
    monkeypatch.chdir(tmp_path)
    with Store.open(sqlite_url) as store:
        manager = TournamentManager(store)
        try:
            with pytest.raises(ArenaError, match="unknown bot 'sneaky'"):
                manager.start(pb.StartTournamentRequest(bots=["sneaky", "random"], games=1))
        finally:
            manager.shutdown(grace_s=0)
        assert store.list_tournaments() == [] and store.list_bots() == []
