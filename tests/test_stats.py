"""arena.stats against fishtest's published formulas, and the SPRT's error rates by simulation.

The reference numbers below were computed by running fishtest's own code
(official-stockfish/fishtest, commit b8eecff2, ``server/fishtest/stats/LLRcalc.py``
``LLR_logistic`` and ``stat_util.py`` ``get_elo``; scipy 1.17.1) on the given counts: the
first three pentanomials and the 65804/56553/65388 trinomial are the examples in
``stat_util.py``'s own ``__main__``. Counts are low to high: ``[L, D, W]`` and
``[0, ½, 1, 1½, 2]`` points per pair.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache

import pytest

from arena.stats import (
    Sprt,
    StatsError,
    elo_to_score,
    estimate,
    fisher_exact_greater,
    game_index,
    llr,
    pair_index,
    score_to_elo,
)

# counts, elo0, elo1, LLR_logistic, get_elo: (elo, elo95, los)
FISHTEST = [
    ([10789, 19328, 33806, 19402, 10543], -3, 1,
     2.1310678117940807, -0.7735773359165423, 1.2775798957280218, 0.1176588580327751),
    ([1187, 7410, 13475, 7378, 1164], -3, 1,
     2.86152718059463, -0.4426077992236841, 1.7298590276177421, 0.3080138791226903),
    ([39, 2226, 31451, 2412, 40], 0.2, 0.9,
     2.1625425800483593, 0.902981048809024, 0.6625314859816553, 0.9962220973354207),
    ([3, 12, 40, 25, 10], 0, 5,
     0.7386470719722664, 52.51156585572754, 34.93548039970325, 0.9986582938998138),
    ([0, 2, 10, 6, 2], 0, 50,
     2.216632377609588, 70.41479025523458, 64.26501054952598, 0.987291528021964),
    ([0, 0, 7, 0, 0], 0, 20,
     -0.4081291923781558, 0.0, 4.861548235471805, 0.5),
    ([65804, 56553, 65388], -3, 1,
     2.0490426179674808, -0.7698390908603271, 1.313742840854298, 0.12537555271611706),
    ([591, 2163, 716], 0, 6,
     4.361801249289283, 12.52110904602384, 7.092605276897359, 0.9997334525565953),
    ([30, 2, 48], 0, 50,
     1.8107387446205796, 79.53375447769643, 78.61936405206968, 0.9818327756438731),
    ([0, 0, 10], 0, 5,
     0.1428758670613136, 1199.8261952903777, 170.5057564466158, 1.0),
]  # fmt: skip


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1", "ref_llr", "ref_elo", "ref_elo95", "ref_los"), FISHTEST
)
def test_matches_fishtest(counts, elo0, elo1, ref_llr, ref_elo, ref_elo95, ref_los) -> None:
    # fishtest finds the secular root with brentq (xtol 2e-12): agreement to 1e-9 is that.
    assert llr(counts, elo0, elo1) == pytest.approx(ref_llr, rel=1e-9, abs=1e-12)
    est = estimate(counts)
    assert est.elo == pytest.approx(ref_elo, rel=1e-12, abs=1e-9)
    assert est.elo95 == pytest.approx(ref_elo95, rel=1e-12)
    assert est.los == pytest.approx(ref_los, rel=1e-12, abs=1e-12)


def test_interval_by_hand() -> None:
    """[3, 12, 40, 25, 10] over 90 pairs, from the formula of ``get_elo`` worked by hand.

    Per match: score = (12·½ + 40·1 + 25·1½ + 10·2) / 180 = 103.5 / 180 = 0.575. Per-pair
    points have mean 1.15 and variance (3·1.15² + 12·0.65² + 40·0.15² + 25·0.35² + 10·0.85²)/90
    = 20.225/90 = 0.224722…; the per-match variance ``stats`` uses is that over 2 = 0.1123611,
    so the interval on the score is 0.575 ± 1.959964·sqrt(0.1123611/180) = 0.575 ± 0.048969.
    """
    est = estimate([3, 12, 40, 25, 10])
    assert est.matches == 180
    assert est.score == pytest.approx(0.575, abs=1e-6)  # 0.001 regularizes the empty category
    assert est.score_high - est.score == pytest.approx(0.048969, abs=2e-6)
    assert est.elo_low == pytest.approx(score_to_elo(0.575 - 0.048969), abs=0.02)
    assert est.elo_high == pytest.approx(score_to_elo(0.575 + 0.048969), abs=0.02)
    assert est.elo_low < est.elo < est.elo_high


def test_elo_curve() -> None:
    assert elo_to_score(0) == 0.5
    assert score_to_elo(0.75) == pytest.approx(400 * math.log10(3))
    assert score_to_elo(elo_to_score(123.4)) == pytest.approx(123.4)
    assert score_to_elo(1.0) == pytest.approx(400 * math.log10(999))  # clamped, finite


def test_sprt_bounds_as_cutechess() -> None:
    """cutechess ``Sprt::status``: lBound = log(beta/(1-alpha)), uBound = log((1-beta)/alpha)."""
    s = Sprt(elo0=0, elo1=5, alpha=0.05, beta=0.05)
    assert s.lower == pytest.approx(-2.9444389791664403)
    assert s.upper == pytest.approx(2.9444389791664403)
    s = Sprt(elo0=0, elo1=5, alpha=0.01, beta=0.1)
    assert s.lower == pytest.approx(math.log(0.1 / 0.99))
    assert s.upper == pytest.approx(math.log(0.9 / 0.01))


def test_sprt_decisions() -> None:
    s = Sprt(elo0=0, elo1=50)
    assert s.status([0, 0, 0, 0, 0]).llr == 0.0
    assert s.status([0, 0, 0, 0, 0]).decision is None
    assert s.status([0, 2, 10, 6, 2]).decision is None  # 2.2166 < 2.944
    assert s.status([0, 4, 20, 12, 4]).decision == "H1"
    assert s.status([4, 12, 20, 4, 0]).decision == "H0"
    assert s.status([0, 0, 300, 0, 0]).decision == "H0"  # all splits: no edge at all


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("elo0=0,elo1", "key=value"),
        ("", "key=value"),
        ("elo2=3", "no parameter 'elo2'"),
        ("elo0=1,elo0=2", "twice"),
        ("elo1=five", "must be a number"),
        ("elo0=5,elo1=5", "elo0 < elo1"),
        ("elo0=10,elo1=5", "elo0 < elo1"),
        ("alpha=0", "alpha must be strictly between 0 and 1"),
        ("beta=1.5", "beta must be strictly between 0 and 1"),
        ("alpha=0.6,beta=0.5", r"alpha \+ beta < 1"),
        ("elo1=nan", "finite"),
        ("elo1=inf", "finite"),
        ("elo1=5000", "between -1000 and 1000"),
    ],
)
def test_sprt_parse_errors(text: str, message: str) -> None:
    with pytest.raises(StatsError, match=message) as info:
        Sprt.parse(text)
    assert "\n" not in str(info.value)


def test_sprt_parse() -> None:
    assert Sprt.parse("elo0=0,elo1=5,alpha=0.05,beta=0.05") == Sprt(0, 5, 0.05, 0.05)
    assert Sprt.parse(" elo1 = 50 ") == Sprt(0, 50, 0.05, 0.05)
    assert Sprt.parse("elo0=-5,elo1=0,alpha=0.1") == Sprt(-5, 0, 0.1, 0.05)


def test_indices() -> None:
    assert [pair_index(p) for p in (0, 0.5, 1, 1.5, 2)] == [0, 1, 2, 3, 4]
    assert [game_index(p) for p in (0, 0.5, 1)] == [0, 1, 2]
    for bad in (2.5, -0.5, 0.25):
        with pytest.raises(StatsError):
            pair_index(bad)
    with pytest.raises(StatsError):
        game_index(1.5)
    with pytest.raises(StatsError, match="trinomial"):
        estimate([1, 2])


# --- Simulation: do the error rates hold? -------------------------------------------------
#
# Synthetic duplicate pairs whose expected score is exactly elo_to_score(elo): a share SPLIT of
# the pairs is 1-1 (the deal's luck decided both matches, as often in Spades), the rest are two
# independent matches with a small draw rate. This model is independent of the code under test.

SPLIT = 0.4
DRAW = 0.02


def pentanomial(elo: float) -> list[float]:
    s = (elo_to_score(elo) - 0.5 * SPLIT) / (1 - SPLIT)  # per-match score of the free pairs
    win, loss = s - DRAW / 2, 1 - s - DRAW / 2
    game = [loss, DRAW, win]
    pair = [0.0] * 5
    for i, p in enumerate(game):
        for j, q in enumerate(game):
            pair[i + j] += (1 - SPLIT) * p * q
    pair[2] += SPLIT
    assert abs(sum(pair) - 1) < 1e-12
    assert abs(sum(i / 4 * p for i, p in enumerate(pair)) - elo_to_score(elo)) < 1e-12
    return pair


def run_sprts(elo: float, sprt: Sprt, runs: int, seed: int, cap: int = 5000) -> dict[str, int]:
    probs = pentanomial(elo)
    cumulative = [sum(probs[: i + 1]) for i in range(5)]
    rng = random.Random(seed)
    status = lru_cache(maxsize=None)(lambda counts: sprt.status(counts).decision)
    out = {"H0": 0, "H1": 0, "none": 0}
    for _ in range(runs):
        counts = [0] * 5
        decision = None
        for _ in range(cap):
            u = rng.random()
            counts[next(i for i, c in enumerate(cumulative) if u < c or i == 4)] += 1
            decision = status(tuple(counts))
            if decision is not None:
                break
        out[decision or "none"] += 1
    return out


def test_sprt_error_rates_by_simulation() -> None:
    """800 seeded SPRTs at elo0 and 800 at elo1: false positives ≤ alpha, false negatives ≤
    beta, within sampling error (3 standard errors of a rate of 0.05 over 800 runs: +0.023)."""
    sprt = Sprt(elo0=0, elo1=60, alpha=0.05, beta=0.05)
    runs = 800
    margin = 3 * math.sqrt(0.05 * 0.95 / runs)
    at_h0 = run_sprts(sprt.elo0, sprt, runs, seed=1)
    at_h1 = run_sprts(sprt.elo1, sprt, runs, seed=2)
    assert at_h0["none"] == at_h1["none"] == 0  # every run decides well before the cap
    assert at_h0["H1"] / runs <= sprt.alpha + margin, at_h0
    assert at_h1["H0"] / runs <= sprt.beta + margin, at_h1
    # ... and the test has power: far from the bounds it is almost never wrong.
    assert run_sprts(-30, sprt, 100, seed=3)["H1"] <= 1
    assert run_sprts(90, sprt, 100, seed=4)["H0"] <= 1


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        # The lady tasting tea (Fisher 1935): 17/70.
        (((3, 1), (1, 3)), 17 / 70),
        # scipy.stats.fisher_exact(table, alternative="greater").pvalue (scipy 1.17.1).
        (((8, 2), (1, 5)), 0.024475524475524483),
        (((4, 0), (0, 40)), 7.366428239939299e-06),
        (((5, 5), (2, 60)), 0.00033240701535695004),
        (((10, 0), (3, 200)), 6.690839871075459e-15),
        (((4, 0), (1, 20)), 0.0003952569169960475),
        (((0, 4), (3, 30)), 1.0),
        (((0, 0), (0, 0)), 1.0),
    ],
)
def test_fisher_exact_greater_matches_known_values(
    table: tuple[tuple[int, int], tuple[int, int]], expected: float
) -> None:
    (a, b), (c, d) = table
    assert fisher_exact_greater(a, b, c, d) == pytest.approx(expected, rel=1e-12)


def test_fisher_exact_refuses_negative_counts() -> None:
    with pytest.raises(StatsError, match="counts >= 0"):
        fisher_exact_greater(1, -1, 0, 0)
