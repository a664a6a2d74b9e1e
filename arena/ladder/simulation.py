"""The ladder's scheduler alone, on synthetic bots of known strength: no processes, no store.

Each synthetic bot has a true skill; a game between two is won by the one whose performance
(true skill plus Gaussian noise of TrueSkill's beta) is higher, so the model the ratings assume
is the one the games follow. A run plays duplicate pairs (two games, rated one after the other,
as the ladder rates them) chosen either by the ladder's matchmaking or uniformly at random, and
records after how many pairs the leaderboard's order (by mu - 3 sigma, as shown) became the true
order for good. ``arena bench ladder`` prints the comparison; a test keeps it true.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from arena.ladder.matchmaking import LadderEntrant, Matchmaker, PairCounts
from arena.ratings import Rater, RatingConfig, conservative_score


@dataclass(frozen=True, slots=True)
class RunResult:
    policy: str
    pairs_to_order: int | None
    """Pairs after which the order was right and stayed right to the end; None if never."""
    pairs: int


def true_skills(bots: int, spacing: float, rng: random.Random) -> list[float]:
    """Skills ``spacing`` apart around the initial mu, in a random order of ids."""
    skills = [25.0 + spacing * (i - (bots - 1) / 2) for i in range(bots)]
    rng.shuffle(skills)
    return skills


class _Field:
    """Synthetic bots, their ratings and ladder counts; plays and rates duplicate pairs."""

    def __init__(self, skills: Sequence[float], seed: int, config: RatingConfig | None) -> None:
        self.config = config or RatingConfig()
        self.rater = Rater(self.config)
        self.matchmaker = Matchmaker(self.config)
        self.rng = random.Random(seed)
        self.games_rng = random.Random(seed ^ 0x5EED)
        self.skills = skills
        n = len(skills)
        self.ratings = [self.rater.initial() for _ in range(n)]
        self.pairs_of = [0] * n
        self.last = [-1] * n
        self.played = PairCounts()

    def choose(self, present: Sequence[int], index: int) -> tuple[int, int]:
        """The matchmaker's pair among ``present`` for pair number ``index``."""
        entrants = [
            LadderEntrant(
                i, f"bot{i}", self.ratings[i][0], self.ratings[i][1], self.pairs_of[i], self.last[i]
            )
            for i in present
        ]
        choice = self.matchmaker.choose(entrants, self.played, next_pair=index, rng=self.rng)
        assert choice is not None
        return choice.a.version_id, choice.b.version_id

    def play_pair(self, a: int, b: int, index: int) -> None:
        """Both seatings, rated one after the other, as the ladder rates them."""
        for s0, s1 in ((a, b), (b, a)):
            winner = _play(self.skills[s0], self.skills[s1], self.config.beta, self.games_rng)
            self.ratings[s0], self.ratings[s1] = self.rater.rate(
                self.ratings[s0], self.ratings[s1], winner
            )
        self.played.add(frozenset((a, b)))
        for i in (a, b):
            self.pairs_of[i] += 1
            self.last[i] = index


def run(
    skills: Sequence[float],
    *,
    policy: str,
    max_pairs: int,
    seed: int,
    config: RatingConfig | None = None,
) -> RunResult:
    """One seeded ladder run of ``max_pairs`` duplicate pairs under ``policy``
    (``matchmaking`` or ``uniform``)."""
    if policy not in ("matchmaking", "uniform"):
        raise ValueError(f"unknown policy {policy!r}")
    f = _Field(skills, seed, config)
    n = len(skills)
    truth = sorted(range(n), key=lambda i: -skills[i])
    right_since: int | None = None
    for index in range(max_pairs):
        if policy == "matchmaking":
            a, b = f.choose(range(n), index)
        else:
            a, b = f.rng.sample(range(n), 2)
        f.play_pair(a, b, index)
        shown = sorted(range(n), key=lambda i: -conservative_score(*f.ratings[i]))
        if shown == truth:
            if right_since is None:
                right_since = index + 1
        else:
            right_since = None
    return RunResult(policy, right_since, max_pairs)


def placement(
    skills: Sequence[float],
    *,
    settle_pairs: int,
    sigma_target: float,
    max_pairs: int,
    seed: int,
    config: RatingConfig | None = None,
) -> int | None:
    """Pairs a newcomer (the last of ``skills``) needs under matchmaking before its sigma falls
    below ``sigma_target``, after the others have settled for ``settle_pairs``; None if never."""
    f = _Field(skills, seed, config)
    n = len(skills)
    newcomer = n - 1
    newcomer_pairs = 0
    for index in range(settle_pairs + max_pairs):
        a, b = f.choose(range(n) if index >= settle_pairs else range(n - 1), index)
        f.play_pair(a, b, index)
        if newcomer in (a, b):
            newcomer_pairs += 1
            if f.ratings[newcomer][1] < sigma_target:
                return newcomer_pairs
    return None


@dataclass(frozen=True, slots=True)
class Comparison:
    bots: int
    spacing: float
    runs: int
    max_pairs: int
    matchmaking: list[int | None]
    uniform: list[int | None]

    @staticmethod
    def _median(values: list[int | None], cap: int) -> float:
        return statistics.median(cap + 1 if v is None else v for v in values)

    @property
    def matchmaking_median(self) -> float:
        return self._median(self.matchmaking, self.max_pairs)

    @property
    def uniform_median(self) -> float:
        return self._median(self.uniform, self.max_pairs)


def compare(
    *, bots: int = 8, spacing: float = 2.5, runs: int = 20, max_pairs: int = 400, seed: int = 1
) -> Comparison:
    """Both policies on the same synthetic fields and game seeds."""
    mm: list[int | None] = []
    uni: list[int | None] = []
    for r in range(runs):
        skills = true_skills(bots, spacing, random.Random(seed * 1000 + r))
        mm.append(
            run(skills, policy="matchmaking", max_pairs=max_pairs, seed=seed + r).pairs_to_order
        )
        uni.append(run(skills, policy="uniform", max_pairs=max_pairs, seed=seed + r).pairs_to_order)
    return Comparison(bots, spacing, runs, max_pairs, mm, uni)


def _play(skill0: float, skill1: float, beta: float, rng: random.Random) -> int | None:
    p0 = rng.gauss(skill0, beta)
    p1 = rng.gauss(skill1, beta)
    if p0 == p1:
        return None
    return 0 if p0 > p1 else 1
