"""`arena bench web`'s live part: viewers on a real tournament's event stream, paired rounds."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from arena.bench.web import _ratio_interval, measure_live


def test_paired_ratios_give_a_geometric_mean_and_an_interval_around_it() -> None:
    r = _ratio_interval([0.9, 1.0, 1.1, 1.0])
    logs = [math.log(x) for x in (0.9, 1.0, 1.1, 1.0)]
    assert r["ratio"] == pytest.approx(math.exp(sum(logs) / 4), abs=1e-3)
    assert r["ratio_low"] < r["ratio"] < r["ratio_high"]
    # identical rounds leave no doubt; a single round gives no interval
    assert _ratio_interval([0.97, 0.97]) == {"ratio": 0.97, "ratio_low": 0.97, "ratio_high": 0.97}
    assert _ratio_interval([1.2])["ratio_low"] is None


@pytest.mark.slow
def test_live_viewers_get_every_update_and_rounds_are_paired() -> None:
    # More viewers than the server takes from one address: each connects from its own.
    result = measure_live(viewers=12, rounds=2, games=1, max_hands=2)
    runs = result["runs"]
    # round 1 plays without viewers first, round 2 with them first: drift favours neither side
    assert [r["viewers"] for r in runs] == [0, 12, 12, 0]
    assert all(r["matches"] == 2 and r["seconds"] > 0 for r in runs)
    assert len({r["decisions"] for r in runs}) == 1  # the same seeds: the same work each time
    watched = [r for r in runs if r["viewers"]]
    assert all(r["updates_min"] >= 1 for r in watched)  # every viewer was sent the updates
    assert len(result["round_ratios"]) == 2
    assert result["ratio_low"] <= result["ratio"] <= result["ratio_high"]


def test_the_generated_database_has_tournaments_whose_pages_serve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page benchmark's database: every match a done game of a generated tournament, the
    ratings the matches' in recorded order, and the pages it times answer."""
    from starlette.testclient import TestClient

    from arena.bench.web import TOURNAMENT_BOTS, generate
    from arena.ratings import Rater
    from arena.store import NotFoundError, Store
    from arena.tournament import compute_standings, tournament_standings
    from arena.tournament.runner import standings_basis, tournament_records
    from arena.tournament.standings import standings_from_dict
    from arena.web.app import create_app

    db = tmp_path / "gen.db"
    made = generate(str(db), bots=10, matches=200, distinct=5)
    assert made["matches"] == 200 and made["tournaments"] == 3  # 96 + 96 + 8
    with Store.open(str(db)) as store:
        t = store.get_tournament(1)
        games = store.tournament_games(1)
        assert len(t.config["bots"]) == TOURNAMENT_BOTS and len(games) == 96
        assert all(g.status.value == "done" and g.match_id for g in games)
        (m,) = [x for x in store.list_matches(tournament_id=1) if x.match_id == games[0].match_id]
        assert m.seat_versions == games[0].seat_versions
        assert sum(r.matches for r in store.ratings().values()) == 400
        # Each finished tournament's standings were kept, as a finishing run keeps them, and
        # are read back the same as computed afresh; another basis is not theirs.
        _info, config, records, total = tournament_records(store, 1)
        settings = store.effective_rating_config()
        bots = [(e.name, e.version) for e in config.entrants]
        fresh = compute_standings(bots, records, Rater(settings), total=total)
        basis = standings_basis(store, 1, settings)
        kept = store.tournament_summary(1, basis)
        assert kept is not None and standings_from_dict(kept) == fresh
        assert tournament_standings(store, 1)[2] == fresh
        assert store.tournament_summary(1, basis + " ") is None
        store.keep_tournament_summary(1, basis, {**kept, "played": 7})
        assert tournament_standings(store, 1)[2].played == 7  # read, not replayed
        store.keep_tournament_summary(1, basis, {**kept, "form": "older"})
        assert tournament_standings(store, 1)[2] == fresh  # another form: computed again
        assert store.tournament_summary(1, basis) == kept  # and kept again
        with pytest.raises(NotFoundError, match="no tournament with id 99"):
            store.keep_tournament_summary(99, basis, kept)
        with TestClient(create_app(store)) as client:
            for path in (
                "/tournaments/1",
                "/api/tournaments/2",
                f"/matches/{m.match_id}",
                "/api/leaderboard",
                "/bots/bot0001",
            ):
                assert client.get(path).status_code == 200, path
            # The leaderboard's filter offers the newest tournaments only (and the one chosen),
            # read a page at a time by id.
            assert [t.id for t in store.list_tournaments(newest_first=True, limit=2)] == [3, 2]
            assert [t.id for t in store.list_tournaments(before=3)] == [1, 2]
            from arena.web.routes import tournaments

            monkeypatch.setattr(tournaments, "FILTER_TOURNAMENTS", 2)
            offered = re.findall(r'<option value="(\d+)"', client.get("/").text)
            assert offered == ["3", "2"]
            offered = re.findall(r'<option value="(\d+)"', client.get("/?tournament=1").text)
            assert offered == ["3", "2", "1"]
