"""The CLI's one arena interface: both sides answer every question of ``Arena`` alike, the
factory picks the side by ``--server``, and an option one side cannot honour is refused there in
one line before any file is made or any call is sent."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
import typer

from arena.cli.interface import Arena, LocalPlay, TournamentRequest
from arena.cli.local import LocalArena
from arena.cli.open_arena import open_arena
from arena.cli.remote import RemoteArena
from arena.errors import ArenaError
from arena.rules.ruleset import RuleSet

NOBODY = "127.0.0.1:1"
"""Nothing listens on port 1: a call that reached the network would fail otherwise."""


def _questions() -> list[str]:
    return [n for n, v in vars(Arena).items() if inspect.isfunction(v) and not n.startswith("_")]


def test_the_interface_asks_what_the_commands_need() -> None:
    needed = {"submit_bot", "bots", "leaderboard", "match_rows", "tournament_report",
              "run_tournament", "resume_tournament", "watch_tournament"}  # fmt: skip
    assert needed <= set(_questions())


@pytest.mark.parametrize("side", [LocalArena, RemoteArena])
def test_each_side_answers_every_question_with_the_same_parameters(side: type) -> None:
    for name in _questions():
        asked = inspect.signature(getattr(Arena, name))
        answered = inspect.signature(getattr(side, name))
        assert [(p.name, p.kind, p.default) for p in answered.parameters.values()] == [
            (p.name, p.kind, p.default) for p in asked.parameters.values()
        ], f"{side.__name__}.{name}{answered} is not Arena.{name}{asked}"


def test_the_factory_picks_the_side_by_server_and_opens_nothing(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    local = open_arena(db=str(db), data_dir=tmp_path / "data")
    assert local == LocalArena(str(db), tmp_path / "data")
    remote = open_arena(db=str(db), server=NOBODY, token="t", insecure=True)
    assert remote == RemoteArena(NOBODY, "t", None, True, db=str(db))
    assert not db.exists() and not (tmp_path / "data").exists()
    assert local.tournament_rows() == []  # the first call opens (and makes) the database
    assert db.exists()


def _request(**changes: object) -> TournamentRequest:
    fields: dict[str, object] = dict(
        bots=["random", "heuristic"], games=1, concurrency=None, seed=1, move_timeout_ms=1000,
        time_bank_ms=0, policy="forfeit", max_faults=3, rules=RuleSet(), deals="pairs",
    )  # fmt: skip
    fields.update(changes)
    return TournamentRequest(**fields)  # type: ignore[arg-type]


def test_a_local_arena_refuses_what_only_a_server_decides(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    arena = LocalArena(str(db))
    with pytest.raises(ArenaError, match=r"^--reveal-opponents is for --server"):
        arena.run_tournament(_request(reveal_opponents=True), LocalPlay(), as_json=True)
    assert not db.exists()


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (lambda a: a.leaderboard(recompute=True), "--recompute works on a local database"),
        (lambda a: a.leaderboard(players="bots"), "--players works on a local database"),
        (lambda a: a.match_log("m", 0, startup=True), "--startup reads a local database's logs"),
        (
            lambda a: a.run_tournament(_request(), LocalPlay(ray="auto"), as_json=True),
            "--ray and --server do not go together",
        ),
        (
            lambda a: a.run_tournament(_request(), LocalPlay(sandbox="off"), as_json=True),
            "--db, --sandbox and --server do not go together",
        ),
        (
            lambda a: a.run_tournament(_request(bots=[]), LocalPlay(), as_json=True),
            "--db and --server do not go together",
        ),
        (
            lambda a: a.resume_tournament(1, LocalPlay(concurrency=2), as_json=True),
            "--concurrency, --db and --server do not go together",
        ),
    ],
)
def test_a_remote_arena_refuses_local_options_before_any_call(call: object, said: str) -> None:
    arena = RemoteArena(NOBODY, db="sqlite://")
    with pytest.raises((ArenaError, typer.BadParameter)) as caught:
        call(arena)  # type: ignore[operator]
    message = (
        caught.value.message if isinstance(caught.value, typer.BadParameter) else str(caught.value)
    )
    assert message.startswith(said) and "\n" not in message, message


def test_a_remote_run_names_its_bots() -> None:
    with pytest.raises(ArenaError, match=r"^name the bots to play with --server"):
        RemoteArena(NOBODY).run_tournament(_request(bots=[]), LocalPlay(), as_json=True)
