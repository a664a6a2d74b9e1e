"""The web's view models (``arena/web/views.py``) and paging (``arena/web/params.py``): what a
page draws and the JSON API leaves out, and the 400 of a page past the last."""

from __future__ import annotations

import dataclasses
import json

import pytest
from starlette.exceptions import HTTPException

from arena.web.params import paged
from arena.web.views import (
    BotView,
    Matrix,
    Page,
    TournamentConfigView,
    TournamentView,
    to_json,
)


def _tournament() -> TournamentView:
    config = TournamentConfigView(
        bots=["a@1", "b@1"], games_per_pair=2, seed=None, seed_text="secret", concurrency=1,
        move_timeout_ms=1000, time_bank_ms=0, policy="forfeit", max_faults=3, deals="paired",
        rules="target 500",
    )  # fmt: skip
    return TournamentView(
        id=7, status="running", state="running", created_at="", finished_at="", games_total=2,
        games_done=0, config=config, standings=(), head_to_head=(), faults=(),
        matrix=Matrix(bots=["a", "b"], cells={("a", "b"): "1-0-0"}), games=(),
    )  # fmt: skip


def test_page_only_fields_stay_out_of_the_json() -> None:
    view = _tournament()
    data = to_json(view)
    assert "matrix" not in data and view.matrix is not None  # the page still draws it
    assert data["config"]["seed"] is None and data["config"]["bots"] == ["a@1", "b@1"]
    assert list(data) == [f.name for f in dataclasses.fields(view) if f.name != "matrix"]
    json.dumps(data)  # plain JSON all the way down
    bot_json = {f.name for f in dataclasses.fields(BotView) if not f.metadata.get("page_only")}
    assert {"plot", "loss_plot"}.isdisjoint(bot_json)


def test_views_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        _tournament().state = "finished"  # type: ignore[misc]


def test_paging_slices_and_says_where_it_is() -> None:
    items = list(range(25))
    shown, where = paged(items, 3, 10)
    assert list(shown) == [20, 21, 22, 23, 24] and where == Page(3, 10, 3, 25)
    assert paged([], 1, 10)[1] == Page(1, 10, 1, 0)  # an empty list is one empty page
    with pytest.raises(HTTPException) as caught:
        paged(items, 4, 10)
    assert caught.value.status_code == 400
    assert caught.value.detail == "query parameter page must be at most 3, got 4"
