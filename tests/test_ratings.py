"""TrueSkill: the package's published values, and the arena's environment against the package."""

from __future__ import annotations

import random

import pytest
import trueskill

from arena.errors import ArenaError
from arena.ratings import Rater, RatingConfig, RatingConfigError, conservative_score

PACKAGE_DEFAULTS = RatingConfig(
    mu=25.0, sigma=25.0 / 3, beta=25.0 / 6, tau=25.0 / 300, draw_probability=0.10
)


def test_published_values_with_package_defaults() -> None:
    # The trueskill package's documented example: a fresh rating beats a fresh rating.
    winner, loser = trueskill.rate_1vs1(trueskill.Rating(), trueskill.Rating())
    assert (round(winner.mu, 3), round(winner.sigma, 3)) == (29.396, 7.171)
    assert (round(loser.mu, 3), round(loser.sigma, 3)) == (20.604, 7.171)

    # The arena's Rater with the package's defaults gives the same.
    (mu0, s0), (mu1, s1) = Rater(PACKAGE_DEFAULTS).rate((25.0, 25.0 / 3), (25.0, 25.0 / 3), 0)
    assert (round(mu0, 3), round(s0, 3)) == (29.396, 7.171)
    assert (round(mu1, 3), round(s1, 3)) == (20.604, 7.171)


def _direct(config: RatingConfig) -> trueskill.TrueSkill:
    return trueskill.TrueSkill(
        mu=config.mu,
        sigma=config.sigma,
        beta=config.beta,
        tau=config.tau,
        draw_probability=config.draw_probability,
    )


@pytest.mark.parametrize("winner", [0, 1, None])
def test_arena_environment_equals_the_package_called_directly(winner: int | None) -> None:
    config = RatingConfig()
    env = _direct(config)
    rater = Rater(config)
    rng = random.Random(5)
    for _ in range(50):
        a = (rng.uniform(10, 40), rng.uniform(0.5, 8.4))
        b = (rng.uniform(10, 40), rng.uniform(0.5, 8.4))
        ra, rb = env.create_rating(*a), env.create_rating(*b)
        if winner is None:
            ea, eb = trueskill.rate_1vs1(ra, rb, drawn=True, env=env)
        elif winner == 0:
            ea, eb = trueskill.rate_1vs1(ra, rb, env=env)
        else:
            eb, ea = trueskill.rate_1vs1(rb, ra, env=env)
        (mu_a, s_a), (mu_b, s_b) = rater.rate(a, b, winner)
        assert (mu_a, s_a, mu_b, s_b) == (ea.mu, ea.sigma, eb.mu, eb.sigma)


def test_arena_environment_values() -> None:
    config = RatingConfig()
    assert config.tau == 0.0
    assert 0 < config.draw_probability <= 0.05
    (mu0, s0), (mu1, s1) = Rater(config).rate((25.0, 25.0 / 3), (25.0, 25.0 / 3), 0)
    # With tau = 0 and a 2% draw margin a fresh win is worth a little less than the default's.
    assert (round(mu0, 3), round(s0, 3), round(mu1, 3), round(s1, 3)) == (
        29.243,
        7.190,
        20.757,
        7.190,
    )


def test_a_draw_narrows_sigma_only_with_a_non_zero_draw_probability() -> None:
    fresh = (25.0, 25.0 / 3)
    (_, with_margin), _ = Rater(RatingConfig()).rate(fresh, fresh, None)
    (_, without), _ = Rater(RatingConfig(draw_probability=0.0)).rate(fresh, fresh, None)
    assert with_margin < fresh[1] < without  # 6.455 < 8.333 < 9.588


def test_zero_tau_lets_sigma_keep_shrinking() -> None:
    """With the default tau sigma stops at a floor; with tau = 0 evidence keeps counting."""
    floors = {}
    for name, config in (("default", PACKAGE_DEFAULTS), ("arena", RatingConfig())):
        rater = Rater(config)
        a = b = rater.initial()
        for game in range(600):
            a, b = rater.rate(a, b, game % 2)
        floors[name] = a[1]
    assert floors["arena"] < 0.5  # 0.30, and 0.16 after 2000 games
    assert floors["default"] > 0.75  # 0.78 after 300 games, and there it stays


def test_conservative_score() -> None:
    assert conservative_score(25.0, 25.0 / 3) == pytest.approx(0.0)
    assert conservative_score(30.0, 2.0) == 24.0


def test_settings_from_environment() -> None:
    config = RatingConfig.from_env(
        {"ARENA_TRUESKILL_TAU": "0.01", "ARENA_TRUESKILL_DRAW_PROBABILITY": " 0.05 "}
    )
    assert config == RatingConfig(tau=0.01, draw_probability=0.05)
    assert RatingConfig.from_env({}) == RatingConfig()
    assert RatingConfig.from_dict(config.to_dict()) == config


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ARENA_TRUESKILL_TAU": "abc"}, "ARENA_TRUESKILL_TAU must be a number"),
        ({"ARENA_TRUESKILL_TAU": "-1"}, "tau must be >= 0"),
        ({"ARENA_TRUESKILL_DRAW_PROBABILITY": "1"}, "draw_probability must be in [0, 1)"),
        ({"ARENA_TRUESKILL_SIGMA": "0"}, "must be positive"),
        ({"ARENA_TRUESKILL_MU": "nan"}, "must be finite"),
    ],
)
def test_bad_settings_are_user_errors(env: dict[str, str], message: str) -> None:
    with pytest.raises(RatingConfigError, match=message.replace("[", r"\[").replace(")", r"\)")):
        RatingConfig.from_env(env)
    assert issubclass(RatingConfigError, ArenaError)


def test_rate_rejects_a_bad_winner() -> None:
    with pytest.raises(ValueError, match="winner"):
        Rater().rate((25.0, 8.0), (25.0, 8.0), 2)
