"""``arena bench analysis`` and ``arena bench card-play-loss`` print their figures (small runs)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from arena.bench.card_play_loss import measure as measure_loss
from arena.cli import app
from arena.referee.analysed import analyse_result
from arena.store import Store
from tests.test_analyse_cli import played

runner = CliRunner()


def test_bench_analysis_prints_the_solvers_figures() -> None:
    out = runner.invoke(
        app,
        ["bench", "analysis", "--deals", "4", "--matches", "1", "--python-deals", "1", "--json"],
    )
    assert out.exit_code == 0, out.output
    r = json.loads(out.output)
    assert r["deals"] == 4 and r["matches"] == 1 and r["python_deals"] == 1
    assert 0 < r["solve_median_ms"] <= r["solve_worst_ms"]
    assert r["nodes_worst"] >= r["nodes_median"] > 0
    assert r["match_median_s"] > 0 and r["decision_mean_ms"] > 0


def test_card_play_loss_against_a_reference(sqlite_url: str) -> None:
    with Store.open(sqlite_url) as store:
        h = store.register_bot_version("heuristic", "1", "h", "/h").id
        x = store.register_bot_version("other", "1", "x", "/x").id
        results = [
            played("a", 1, ("heuristic@1", "other@1")),
            played("b", 2, ("other@1", "heuristic@1")),
        ]
        store.record_match(results[0], seat_versions=(h, x))
        store.record_match(results[1], seat_versions=(x, h))
    r = measure_loss(sqlite_url, "heuristic")
    assert r["matches"] == 2
    [other] = r["bots"]
    analyses = [analyse_result(results[0]), analyse_result(results[1])]
    points = analyses[0].hand_losses(1) + analyses[1].hand_losses(0)
    tricks = analyses[0].hand_trick_losses(1) + analyses[1].hand_trick_losses(0)
    assert other["player"] == "other@1"
    assert other["point_loss"]["mean"] == pytest.approx(sum(points) / len(points))
    assert other["trick_loss"]["mean"] == pytest.approx(sum(tricks) / len(tricks))
    assert other["trick_loss"]["hands"] == len(tricks) <= len(points)  # Nil hands left out
    assert other["matches"] == 2
    assert sorted(r["order"]["trick_loss"]) == ["heuristic", "other@1"]
    text = runner.invoke(app, ["bench", "card-play-loss", "--db", sqlite_url]).output
    assert "2 matches against heuristic" in text and "other@1" in text
    assert "by card-play loss" in text and "order by card-play loss: " in text
