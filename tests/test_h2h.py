"""``arena h2h A B``: two bots' record against each other across the database, from A's side,
over real recorded matches in a real SQLite file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from arena.cli import app
from arena.referee.record import Termination
from arena.store import Store

runner = CliRunner()


def test_h2h_counts_from_a_side_whatever_the_seat(
    tmp_path: Path, make_result: Callable[..., Any]
) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    with Store.open(url) as store:
        a = store.register_bot_version("alpha", "1", "a" * 64, "/nowhere/a").id
        b = store.register_bot_version("beta", "1", "b" * 64, "/nowhere/b").id
        c = store.register_bot_version("gamma", "1", "c" * 64, "/nowhere/c").id
        store.record_match(make_result(winner=0), seat_versions=(a, b))  # alpha wins, seat 0
        store.record_match(make_result(winner=0), seat_versions=(b, a))  # beta wins, seat 0
        store.record_match(make_result(winner=1), seat_versions=(b, a))  # alpha wins, seat 1
        store.record_match(make_result(winner=None), seat_versions=(a, b))  # a draw
        store.record_match(make_result(winner=0), seat_versions=(a, c))  # not against beta
        aborted = make_result(winner=None, termination=Termination.ABORTED)
        store.record_match(aborted, seat_versions=(a, b))  # not counted, but said
    out = runner.invoke(app, ["h2h", "alpha", "beta", "--json", "--db", url])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert (data["matches"], data["wins"], data["losses"], data["draws"]) == (4, 2, 1, 1)
    assert data["by_tournament"] == {"null": {"matches": 4, "wins": 2, "losses": 1, "draws": 1}}
    assert data["unrated"] == {"aborted": 1}
    # 510-230 twice for alpha, 230-510 once, 300-300 once.
    assert data["margin"] == 280 + 280 - 280 + 0
    text = runner.invoke(app, ["h2h", "beta", "alpha@1", "--db", url]).output
    assert text.startswith("beta against alpha@1: 4 rated matches, 1 won, 2 lost, 1 drawn")
    assert "besides, recorded and not counted: 1 not rated: aborted" in text
    unknown = runner.invoke(app, ["h2h", "alpha", "nobody", "--db", url])
    assert unknown.exit_code != 0 and "nobody" in str(unknown.exception)


def test_h2h_says_one_match_in_the_singular(
    tmp_path: Path, make_result: Callable[..., Any]
) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    with Store.open(url) as store:
        a = store.register_bot_version("alpha", "1", "a" * 64, "/nowhere/a").id
        b = store.register_bot_version("beta", "1", "b" * 64, "/nowhere/b").id
        store.record_match(make_result(winner=0), seat_versions=(a, b))
    text = runner.invoke(app, ["h2h", "alpha", "beta", "--db", url]).output
    assert text.startswith("alpha against beta: 1 rated match, 1 won, 0 lost")
    assert "on their own: 1 match, 1-0-0" in text
