"""Fair play through the service (issue: collusion, sybils, results nobody earned): a shill
throwing its matches to its owner's star wins the star nothing rated; opponents are anonymous
unless an admin reveals them; sample bots' names are reserved; a version label names one
build; a bot that cannot start is refused at submission with its reason, to the submitter."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from bot_process import standalone_bot
from test_service import (
    ArenaProcess,
    arena_cli,
    bot_copy,
    bump_version,
    data_listing,
    make_admin_token,
    make_token,
)

from arena._gen.arena.v1 import arena_pb2 as pb
from arena._gen.spades.v1 import bot_pb2 as bot_pb
from arena.bot_protocol.messages import ruleset_to_pb
from arena.rules import RuleSet
from arena.service.client import ArenaClient, RemoteError

BOTS = Path(__file__).resolve().parent / "bots"
SHORT = RuleSet(target_score=100, max_hands=4)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ArenaProcess]:
    db = tmp_path_factory.mktemp("fair") / "arena.db"
    make_token(db, "setup")  # creates the database
    arena = ArenaProcess(db)
    yield arena
    assert arena.stop() == 0, "".join(arena.lines)


def _play(client: ArenaClient, bots: list[str], **kwargs: object) -> list[pb.Match]:
    started = client.start_tournament(
        bots,
        games=1,
        rules=ruleset_to_pb(SHORT),
        move_timeout_ms=5000,
        **kwargs,  # type: ignore[arg-type]
    )
    events = list(client.watch_tournament(started.id))
    assert events[-1].tournament.state == pb.TOURNAMENT_STATE_FINISHED
    return list(client.list_matches(tournament_id=started.id).matches)


@pytest.mark.slow
def test_a_shill_throwing_to_its_owners_star_wins_it_nothing_rated(
    server: ArenaProcess, tmp_path: Path
) -> None:
    alice = make_token(server.db, "alice")
    admin = make_admin_token(server.db, "organiser")
    with ArenaClient(server.address, token=alice) as client:
        client.submit_bot(bot_copy(tmp_path, "star"))
        client.submit_bot(standalone_bot(BOTS / "shill", tmp_path))
        # A member may not tell bots whom they play.
        with pytest.raises(RemoteError) as refused:
            client.start_tournament(["star", "shill"], reveal_opponents=True)
        assert refused.value.code == grpc.StatusCode.PERMISSION_DENIED
        assert "only an admin may tell bots their opponents' names" in str(refused.value)
        # Anonymous (the default): the shill cannot tell the star, and throws nothing; the
        # matches are kept, unrated: one owner's bots.
        matches = _play(client, ["star", "shill"])
        assert len(matches) == 2
        assert all(m.termination != bot_pb.TERMINATION_FORFEIT_ERROR_STATUS for m in matches)
        assert all(not m.rated and m.unrated_reason == "same_owner" for m in matches)
    # The case, names told (an admin's option): the shill throws both; the star wins
    # them, and not one is rated.
    with ArenaClient(server.address, token=admin) as client:
        thrown = _play(client, ["star", "shill"], reveal_opponents=True)
        assert [m.termination for m in thrown] == [bot_pb.TERMINATION_FORFEIT_ERROR_STATUS] * 2
        assert all(not m.rated and m.unrated_reason == "same_owner" for m in thrown)
        board = {row.bot: row for row in client.leaderboard()}
    assert "star" not in board or board["star"].wins == 0


@pytest.mark.slow
def test_a_sample_bots_name_is_reserved(server: ArenaProcess, tmp_path: Path) -> None:
    mallory = make_token(server.db, "mallory")
    before = data_listing(server)
    with ArenaClient(server.address, token=mallory) as client:
        tries = ((bot_copy(tmp_path, "random"), None), (bot_copy(tmp_path, "x"), "heuristic"))
        for bot, name in tries:
            with pytest.raises(RemoteError) as refused:
                client.submit_bot(bot, name=name)
            assert refused.value.code == grpc.StatusCode.PERMISSION_DENIED
            assert "is reserved for the arena's sample bot" in str(refused.value)
        assert {"random", "heuristic"}.isdisjoint(b.name for b in client.list_bots())
    assert data_listing(server) == before


@pytest.mark.slow
def test_a_version_label_reused_with_other_content_is_refused(
    server: ArenaProcess, tmp_path: Path
) -> None:
    carol = make_token(server.db, "carol")
    bot = bot_copy(tmp_path, "mybot")
    bump_version(bot, "1.1")
    with ArenaClient(server.address, token=carol) as client:
        first = client.submit_bot(bot)
        (bot / "extra.txt").write_text("other content, same label")
        with pytest.raises(RemoteError) as refused:
            client.submit_bot(bot)
        message = str(refused.value)
        assert refused.value.code == grpc.StatusCode.ALREADY_EXISTS
        assert "\n" not in message
        assert (
            f"already has version 1.1 with other content (content hash "
            f"{first.version.content_hash[:12]})" in message
        )
        assert "raise `version` in bot.toml (e.g. to 1.2)" in message
        assert [v.version for v in client.get_bot("mybot").versions] == ["1.1"]
        bump_version(bot, "1.2")
        assert client.submit_bot(bot).created


@pytest.mark.slow
def test_a_bot_that_cannot_start_is_refused_with_its_reason(
    server: ArenaProcess, tmp_path: Path
) -> None:
    dave = make_token(server.db, "dave")
    bot = tmp_path / "broken"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        'name = "broken"\nversion = "1"\ncommand = ["{python}", "bot.py"]\n'
    )
    (bot / "bot.py").write_text(
        "print('my secret recipe: 42', flush=True)\nimport no_such_module_of_this_test\n"
    )
    before = data_listing(server)
    with ArenaClient(server.address, token=dave) as client:
        with pytest.raises(RemoteError) as refused:
            client.submit_bot(bot)
        message = str(refused.value)
        assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
        assert "the bot did not start, so it was not accepted" in message
        # Its output, to the submitter: the one who needs it.
        assert "my secret recipe: 42" in message
        assert "No module named 'no_such_module_of_this_test'" in message
        # Named as the author knows it, never by the server's paths.
        assert 'File "bot.py", line 2' in message
        assert "/tmp/" not in message and "arena-start-check" not in message
        assert "broken" not in {b.name for b in client.list_bots()}
    assert data_listing(server) == before


@pytest.mark.slow
def test_the_cli_reveals_opponents_only_for_an_admin_on_a_server(
    server: ArenaProcess, tmp_path: Path
) -> None:
    erin = make_token(server.db, "erin")
    with ArenaClient(server.address, token=erin) as client:
        client.submit_bot(bot_copy(tmp_path, "erins"))
    args = ("tournament", "run", "erins", "random", "--server", server.address)
    member = arena_cli(*args, "--token", erin, "--reveal-opponents")
    assert member.returncode == 2
    assert len(member.stderr.strip().splitlines()) == 1
    assert "only an admin may tell bots their opponents' names" in member.stderr
    local = arena_cli("tournament", "run", "random", "heuristic", "--reveal-opponents")
    assert local.returncode == 2
    assert local.stderr.strip() == (
        "arena: error: --reveal-opponents is for --server: a local tournament tells bots "
        "their opponents' names already"
    )
