"""Which pair the ladder plays next: the pair whose result would teach the most.

A ladder plays for ever, so every duplicate pair it schedules should be the one that moves the
leaderboard towards the truth fastest. The policy (docs/ladder.md) scores every candidate pair
of active bots and plays the best:

- **Uncertainty.** ``sigma_a**2 + sigma_b**2``: a new or uncertain bot (TrueSkill's sigma is
  high) has the most to learn, and so does anyone who plays it. A newly submitted version starts
  at the initial sigma, far above everyone settled, so it gets its placement pairs first.
- **Match quality.** TrueSkill's ``quality_1vs1``, the probability of a draw between the two:
  a game between bots of close mu says more about their order than a foregone conclusion does.
- **Spread.** A pair already played many times is worth less than a fresh one
  (``1 / (1 + times_played / fair_share)``), so every bot meets a spread of opponents.
- **Regularity.** A bot that has waited more than ``2 * bots`` pairs since its last one gains
  priority (``1 + (waited - 2 * bots) / bots``), so nobody is forgotten once the ratings settle;
  below that wait it changes nothing (an earlier boost from the first pair on cost the order a
  fifth more pairs in the simulation).

House bots (``arena.ladder.house``) are never paired with each other. The product of the four
is the pair's *priority*; ties break by a seeded random draw, so a
ladder with the same history and seed picks the same pairs. The module is pure: no store, no
clock, no processes; the ladder runner feeds it the ratings and counts it read from the store.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import trueskill

from arena.ratings import RatingConfig

REGULARITY_WAIT = 2
"""A bot gains priority once it has waited this many times the number of bots in pairs."""


@dataclass(frozen=True, slots=True)
class LadderEntrant:
    """A bot version on the ladder, as the store last rated it."""

    version_id: int
    name: str
    mu: float
    sigma: float
    pairs: int = 0
    """Duplicate pairs this version has played on the ladder."""
    last_pair: int = -1
    """Index (in ladder pair order, from 0) of the last pair it played; -1 for never."""
    owner: int | None = None
    """Its owner (a member's token id; None for the organiser's bots): two bots of one owner
    are never paired (docs/ladder.md, "One owner's bots")."""
    house: bool = False
    """A house bot (``arena.ladder.house``): an opponent for the others, never paired with
    another house bot."""


@dataclass(frozen=True, slots=True)
class Choice:
    """A pair to play next, and why."""

    a: LadderEntrant
    b: LadderEntrant
    priority: float
    uncertainty: float
    quality: float
    spread: float
    regularity: float

    def reason(self) -> str:
        return (
            f"{self.a.name} (sigma {self.a.sigma:.2f}) vs {self.b.name} (sigma "
            f"{self.b.sigma:.2f}): uncertainty {self.uncertainty:.1f}, match quality "
            f"{self.quality:.2f}, spread {self.spread:.2f}, regularity {self.regularity:.2f}"
        )


@dataclass(slots=True)
class Matchmaker:
    """Scores pairs of entrants and picks the most informative one."""

    config: RatingConfig = field(default_factory=RatingConfig)
    _env: trueskill.TrueSkill = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._env = self.config.environment()

    def rank(
        self,
        entrants: Sequence[LadderEntrant],
        played: Mapping[frozenset[int], int],
        *,
        next_pair: int,
        busy: frozenset[int] = frozenset(),
    ) -> list[Choice]:
        """Every pair of entrants not in ``busy`` and not of one owner, best first.

        ``played`` counts the pairs already played by each pair of version ids; ``next_pair`` is
        the index the chosen pair will have (for how long each bot has waited).
        """
        free = [e for e in entrants if e.version_id not in busy]
        n = len(entrants)
        if len(free) < 2:
            return []
        fair_share = max(1.0, 2.0 * sum(played.values()) / max(1, n * (n - 1)))
        choices = []
        for a, b in combinations(free, 2):
            if a.owner is not None and a.owner == b.owner:
                continue  # one owner's bots: a result between them is evidence of nothing
            if a.house and b.house:
                continue  # house bots are there to play the submitted ones
            ra = self._env.create_rating(a.mu, a.sigma)
            rb = self._env.create_rating(b.mu, b.sigma)
            uncertainty = a.sigma**2 + b.sigma**2
            quality = trueskill.quality_1vs1(ra, rb, env=self._env)
            times = played.get(frozenset((a.version_id, b.version_id)), 0)
            spread = 1.0 / (1.0 + times / fair_share)
            waited = max(_waited(a, next_pair), _waited(b, next_pair))
            regularity = 1.0 + max(0, waited - REGULARITY_WAIT * n) / n
            priority = uncertainty * quality * spread * regularity
            choices.append(Choice(a, b, priority, uncertainty, quality, spread, regularity))
        choices.sort(key=lambda c: (-c.priority, c.a.version_id, c.b.version_id))
        return choices

    def choose(
        self,
        entrants: Sequence[LadderEntrant],
        played: Mapping[frozenset[int], int],
        *,
        next_pair: int,
        rng: random.Random,
        busy: frozenset[int] = frozenset(),
    ) -> Choice | None:
        """The pair to play next (a seeded draw among equal best), or None when no pair may
        play."""
        ranked = self.rank(entrants, played, next_pair=next_pair, busy=busy)
        if not ranked:
            return None  # fewer than two free bots, or only one owner's
        best = ranked[0].priority
        tied = [c for c in ranked if math.isclose(c.priority, best, rel_tol=1e-9)]
        return tied[rng.randrange(len(tied))]


def _waited(e: LadderEntrant, next_pair: int) -> int:
    return next_pair if e.last_pair < 0 else next_pair - e.last_pair - 1
