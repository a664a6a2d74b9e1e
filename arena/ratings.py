"""TrueSkill ratings of bot versions, 1 vs 1, tuned for players whose strength never changes.

A bot version is a fixed program (a changed bot is a new version, rated afresh), so the rating
environment differs from the package's defaults, which are made for people who learn and forget:

- ``tau`` (the dynamics factor) is the standard deviation of a drift in skill added before every
  game. The default, sigma/100 = 0.083, keeps sigma from falling below a floor, so two bots of
  nearly equal strength keep trading places on the leaderboard forever. A fixed program does not
  drift, so the arena uses ``tau = 0``: sigma keeps shrinking as evidence accumulates, and the
  order settles.
- ``draw_probability`` sets the draw margin. Draws are rare in Spades (equal scores at the hand
  limit, R-6.3), but with 0 the margin is 0 and a draw *raises* both sigmas (8.333 -> 9.588 for
  two fresh ratings): the model calls the observed draw impossible. A small non-zero 0.02 makes a
  draw ordinary evidence that the two are close.

Every setting can be changed with an environment variable (``ARENA_TRUESKILL_TAU`` …); ratings
already stored were computed with the old settings, so rebuild them with
``arena ratings --recompute`` (the store refuses to mix settings).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

import trueskill

from arena.errors import ArenaError

CONSERVATIVE_K = 3.0
"""The leaderboard ranks by mu - 3 sigma: the skill the bot has with about 99% confidence."""
INTERVAL_Z = 1.959963984540054
"""The leaderboard shows mu ± 1.96 sigma: the skill's 95 % interval under TrueSkill's Gaussian
belief (the two-sided 95 % quantile of the normal law)."""


class RatingConfigError(ArenaError):
    """A rating setting (from the environment or a database) is not a usable number."""


@dataclass(frozen=True, slots=True)
class RatingConfig:
    mu: float = 25.0
    """Initial mean: the package default."""
    sigma: float = 25.0 / 3
    """Initial standard deviation: the package default, mu/3."""
    beta: float = 25.0 / 6
    """Skill difference that gives the better player about a 76% chance: the package default."""
    tau: float = 0.0
    """Skill drift per game: zero, since a bot version is a fixed program (module docstring)."""
    draw_probability: float = 0.02
    """Small but non-zero, so that a rare draw narrows sigma rather than widening it."""

    ENV_PREFIX = "ARENA_TRUESKILL_"

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, float | int) or isinstance(value, bool):
                raise RatingConfigError(f"TrueSkill {f.name} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise RatingConfigError(f"TrueSkill {f.name} must be finite, got {value!r}")
        if self.sigma <= 0 or self.beta <= 0:
            raise RatingConfigError(
                f"TrueSkill sigma and beta must be positive, got sigma={self.sigma}, "
                f"beta={self.beta}"
            )
        if self.tau < 0:
            raise RatingConfigError(f"TrueSkill tau must be >= 0, got {self.tau}")
        if not 0 <= self.draw_probability < 1:
            raise RatingConfigError(
                f"TrueSkill draw_probability must be in [0, 1), got {self.draw_probability}"
            )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RatingConfig:
        """The arena's settings, each overridable by ``ARENA_TRUESKILL_<NAME>``."""
        environ = os.environ if environ is None else environ
        values: dict[str, float] = {}
        for f in fields(cls):
            name = cls.ENV_PREFIX + f.name.upper()
            raw = environ.get(name)
            if raw is None or raw.strip() == "":
                continue
            try:
                values[f.name] = float(raw)
            except ValueError:
                raise RatingConfigError(f"{name} must be a number, got {raw!r}") from None
        return cls(**values)

    def to_dict(self) -> dict[str, float]:
        return {k: float(v) for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RatingConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise RatingConfigError(f"unknown TrueSkill settings: {', '.join(sorted(unknown))}")
        return cls(**{k: float(v) for k, v in data.items()})

    def describe(self) -> str:
        return ", ".join(f"{k}={v:g}" for k, v in self.to_dict().items())

    def environment(self) -> trueskill.TrueSkill:
        return trueskill.TrueSkill(
            mu=self.mu,
            sigma=self.sigma,
            beta=self.beta,
            tau=self.tau,
            draw_probability=self.draw_probability,
        )


class Rater:
    """Applies 1 vs 1 results with one TrueSkill environment (built once: it is not free)."""

    def __init__(self, config: RatingConfig | None = None) -> None:
        self.config = config or RatingConfig()
        self._env = self.config.environment()

    def initial(self) -> tuple[float, float]:
        return self.config.mu, self.config.sigma

    def rate(
        self, seat0: tuple[float, float], seat1: tuple[float, float], winner: int | None
    ) -> tuple[tuple[float, float], tuple[float, float]]:
        """New (mu, sigma) of both seats after a game: ``winner`` is 0, 1, or None for a draw."""
        a = self._env.create_rating(*seat0)
        b = self._env.create_rating(*seat1)
        if winner is None:
            a, b = trueskill.rate_1vs1(a, b, drawn=True, env=self._env)
        elif winner == 0:
            a, b = trueskill.rate_1vs1(a, b, env=self._env)
        elif winner == 1:
            b, a = trueskill.rate_1vs1(b, a, env=self._env)
        else:
            raise ValueError(f"winner must be 0, 1 or None, got {winner!r}")
        return (a.mu, a.sigma), (b.mu, b.sigma)


def conservative_score(mu: float, sigma: float) -> float:
    """TrueSkill's ``expose`` with the leaderboard's fixed k = 3: mu - 3 sigma."""
    return mu - CONSERVATIVE_K * sigma


def skill_interval(mu: float, sigma: float) -> tuple[float, float]:
    """The 95 % interval of a bot's skill: mu ± 1.96 sigma."""
    return mu - INTERVAL_Z * sigma, mu + INTERVAL_Z * sigma
