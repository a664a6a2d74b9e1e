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
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from arena.ladder.matchmaking import Entrant, Matchmaker
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
    config = config or RatingConfig()
    rater = Rater(config)
    matchmaker = Matchmaker(config)
    rng = random.Random(seed)
    games_rng = random.Random(seed ^ 0x5EED)
    n = len(skills)
    ratings = [rater.initial() for _ in range(n)]
    pairs_of = [0] * n
    last = [-1] * n
    played: Counter[frozenset[int]] = Counter()
    truth = sorted(range(n), key=lambda i: -skills[i])
    right_since: int | None = None
    for index in range(max_pairs):
        if policy == "matchmaking":
            entrants = [
                Entrant(i, f"bot{i}", ratings[i][0], ratings[i][1], pairs_of[i], last[i])
                for i in range(n)
            ]
            choice = matchmaker.choose(entrants, played, next_pair=index, rng=rng)
            assert choice is not None
            a, b = choice.a.version_id, choice.b.version_id
        elif policy == "uniform":
            a, b = rng.sample(range(n), 2)
        else:
            raise ValueError(f"unknown policy {policy!r}")
        for seats in ((a, b), (b, a)):
            winner = _play(skills[seats[0]], skills[seats[1]], config.beta, games_rng)
            ratings[seats[0]], ratings[seats[1]] = rater.rate(
                ratings[seats[0]], ratings[seats[1]], winner
            )
        played[frozenset((a, b))] += 1
        for i in (a, b):
            pairs_of[i] += 1
            last[i] = index
        shown = sorted(range(n), key=lambda i: -conservative_score(*ratings[i]))
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
    config = config or RatingConfig()
    rater = Rater(config)
    matchmaker = Matchmaker(config)
    rng = random.Random(seed)
    games_rng = random.Random(seed ^ 0x5EED)
    n = len(skills)
    ratings = [rater.initial() for _ in range(n)]
    pairs_of = [0] * n
    last = [-1] * n
    played: Counter[frozenset[int]] = Counter()
    newcomer = n - 1
    newcomer_pairs = 0
    for index in range(settle_pairs + max_pairs):
        present = range(n) if index >= settle_pairs else range(n - 1)
        entrants = [
            Entrant(i, f"bot{i}", ratings[i][0], ratings[i][1], pairs_of[i], last[i])
            for i in present
        ]
        choice = matchmaker.choose(entrants, played, next_pair=index, rng=rng)
        assert choice is not None
        a, b = choice.a.version_id, choice.b.version_id
        for seats in ((a, b), (b, a)):
            winner = _play(skills[seats[0]], skills[seats[1]], config.beta, games_rng)
            ratings[seats[0]], ratings[seats[1]] = rater.rate(
                ratings[seats[0]], ratings[seats[1]], winner
            )
        played[frozenset((a, b))] += 1
        for i in (a, b):
            pairs_of[i] += 1
            last[i] = index
        if newcomer in (a, b):
            newcomer_pairs += 1
            if ratings[newcomer][1] < sigma_target:
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
        mm.append(run(skills, policy="matchmaking", max_pairs=max_pairs, seed=seed + r)
                  .pairs_to_order)
        uni.append(run(skills, policy="uniform", max_pairs=max_pairs, seed=seed + r)
                   .pairs_to_order)
    return Comparison(bots, spacing, runs, max_pairs, mm, uni)


def _play(skill0: float, skill1: float, beta: float, rng: random.Random) -> int | None:
    p0 = rng.gauss(skill0, beta)
    p1 = rng.gauss(skill1, beta)
    if p0 == p1:
        return None
    return 0 if p0 > p1 else 1
