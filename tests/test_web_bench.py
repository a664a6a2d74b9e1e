"""`arena bench web`'s live part: viewers on a real tournament's event stream, paired rounds."""

from __future__ import annotations

import math

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
