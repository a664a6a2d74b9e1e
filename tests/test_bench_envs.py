"""``arena bench envs``: the three rates measured in one run, and their ratios."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

from arena.bench.envs import measure
from arena.rules import RuleSet

pytestmark = pytest.mark.research


def test_measure_gives_each_rate_and_its_ratio_to_the_engine() -> None:
    r = measure(seconds=0.4, seed=1, rules=RuleSet(max_hands=1))
    assert r["engine_decisions_per_s"] > 0
    for kind in ("pettingzoo", "openspiel"):
        assert r[f"{kind}_steps_per_s"] > 0
        ratio = r[f"{kind}_steps_per_s"] / r["engine_decisions_per_s"]
        assert r[f"{kind}_ratio"] == pytest.approx(ratio, abs=1e-3)
    assert r["openspiel_chance_steps_per_s"] > 0 and r["pettingzoo_raw_steps_per_s"] > 0
    raw = r["pettingzoo_raw_steps_per_s"] / r["engine_decisions_per_s"]
    assert r["pettingzoo_raw_ratio"] == pytest.approx(raw, abs=1e-3)
    all_steps = r["openspiel_steps_per_s"] + r["openspiel_chance_steps_per_s"]
    assert abs(r["openspiel_all_steps_per_s"] - all_steps) <= 1
    # the sides take turns, one whole match each: every side has as many as there were rounds
    assert set(r["matches"].values()) == {r["rounds"]} and r["rounds"] >= 1


@pytest.mark.slow
def test_the_command_prints_one_json_object() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena",
            "bench",
            "envs",
            "--seconds",
            "0.4",
            "--max-hands",
            "1",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout)["target_ratio"] == 0.5


@pytest.mark.slow
def test_a_bad_duration_is_a_one_line_error() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "arena", "bench", "envs", "--seconds", "0"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and out.stderr.startswith("arena: error: --seconds must be positive")
