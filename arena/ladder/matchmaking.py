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

**Without an all-pairs scan.** ``rank`` scores every pair (the definition, and what the tests
compare with); ``choose`` finds the same best pairs without scoring them all, so a ladder of
10,000 entrants chooses in milliseconds (docs/benchmarks.md). Every factor but uncertainty and
quality is at most 1 apart from regularity, which is the larger of the two bots' own values, so
``g(s) * max(r_a, r_b) * exp(-(mu_a - mu_b)**2 / (2 * (2 beta**2 + s)))``, with ``s`` an upper
bound of ``sigma_a**2 + sigma_b**2`` and ``g(s) = s * sqrt(2 beta**2 / (2 beta**2 + s))``
increasing, bounds a pair's priority from above. The few most uncertain (and longest waiting)
entrants are scored against everyone; the pairs among the rest are walked in order of mu, each
bot's walk stopping where that bound falls below the best priority found. Pairs within a
relative 1e-7 of the best are then scored exactly as ``rank`` scores them, so the choice,
the tie-break draw included, is ``rank``'s.

**Kept between choices.** A running ladder gives ``choose`` a ``LadderField``: the entrants'
columns (mu, sigma squared, last pair, owner, house) as arrays kept from one choice to the
next and changed a row at a time (a result changes two ratings, a pair played two last-pair
marks, a bot joining, leaving or pausing one row), so a choice no longer reads every entrant
into arrays. The exact scores of the pairs kept are remembered by rating (TrueSkill's match
quality of two ratings never changes; a field's newcomers, all at the initial rating, tie with
each other choice after choice).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from operator import attrgetter
from typing import Any

import numpy as np
import trueskill

from arena.ratings import RatingConfig

REGULARITY_WAIT = 2
"""A bot gains priority once it has waited this many times the number of bots in pairs."""
SCAN_ALL_BELOW = 64
"""Fields of fewer free entrants than this are ranked pair by pair (``rank``)."""
HEAD = 16
"""Entrants of highest sigma (and, apart, of longest wait) scored against every other one."""
_SLACK = 1e-7
"""Relative margin kept below the best priority when pruning: far above float64's rounding and
``choose``'s tie tolerance (1e-9), so every pair ``rank`` would call tied is kept; the pairs kept
are then scored again exactly as ``rank`` scores them."""
_FIRST = 32


class PairCounts(dict[frozenset[int], int]):
    """Duplicate pairs played by each pair of version ids, with their running total (the
    matchmaker's fair share needs it on every choice; summing a long ladder's counts each time
    would cost more than the choice)."""

    total: int

    def __init__(self) -> None:
        super().__init__()
        self.total = 0

    def add(self, pair: frozenset[int], times: int = 1) -> None:
        self[pair] = self.get(pair, 0) + times
        self.total += times


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


class LadderField:
    """The entrants of a ladder in their order, with the columns the choice searches kept as
    arrays between choices: a change is one row (``put``, ``remove``), not a rebuild."""

    __slots__ = ("_entrants", "_pos", "house", "ids", "last", "mu", "owner", "s2")

    def __init__(self, entrants: Iterable[LadderEntrant] = ()) -> None:
        self._entrants: list[LadderEntrant] = list(entrants)
        self._pos: dict[int, int] | None = None

        # An owner of None is NaN, equal to nothing, so the organiser's bots meet each other.
        def column(values: Iterable[Any]) -> np.ndarray:
            return np.fromiter(values, dtype=float, count=len(self._entrants))

        es = self._entrants
        self.ids = np.fromiter((e.version_id for e in es), dtype=np.int64, count=len(es))
        self.mu = column(e.mu for e in es)
        self.s2 = column(e.sigma for e in es) ** 2
        self.last = column(e.last_pair for e in es)
        self.owner = column(math.nan if e.owner is None else e.owner for e in es)
        self.house = np.fromiter((e.house for e in es), dtype=bool, count=len(es))

    def __len__(self) -> int:
        return len(self._entrants)

    def __iter__(self) -> Iterator[LadderEntrant]:
        return iter(self._entrants)

    def __getitem__(self, i: int) -> LadderEntrant:
        return self._entrants[i]

    def __contains__(self, version_id: object) -> bool:
        return version_id in self._positions()

    def get(self, version_id: int) -> LadderEntrant | None:
        i = self._positions().get(version_id)
        return None if i is None else self._entrants[i]

    def entrants(self) -> list[LadderEntrant]:
        return list(self._entrants)

    def _positions(self) -> dict[int, int]:
        if self._pos is None:
            self._pos = {e.version_id: i for i, e in enumerate(self._entrants)}
        return self._pos

    def put(self, e: LadderEntrant, index: int | None = None) -> None:
        """Change the row of ``e``'s version, or add it at ``index`` (the end by default)."""
        i = self._positions().get(e.version_id)
        owner = math.nan if e.owner is None else float(e.owner)
        if i is not None:
            self._entrants[i] = e
            self.mu[i], self.s2[i], self.last[i] = e.mu, e.sigma**2, e.last_pair
            self.owner[i], self.house[i] = owner, e.house
            return
        i = len(self._entrants) if index is None else index
        self._entrants.insert(i, e)
        self._pos = None
        self.ids = np.insert(self.ids, i, e.version_id)
        self.mu = np.insert(self.mu, i, e.mu)
        self.s2 = np.insert(self.s2, i, e.sigma**2)
        self.last = np.insert(self.last, i, e.last_pair)
        self.owner = np.insert(self.owner, i, owner)
        self.house = np.insert(self.house, i, e.house)

    def remove(self, version_id: int) -> None:
        i = self._positions().get(version_id)
        if i is None:
            return
        del self._entrants[i]
        self._pos = None
        self.ids, self.mu, self.s2, self.last, self.owner, self.house = (
            np.delete(a, i) for a in (self.ids, self.mu, self.s2, self.last, self.owner, self.house)
        )


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
    _qualities: dict[tuple[float, float, float, float], float] = field(
        init=False, repr=False, default_factory=dict
    )

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
        fair_share = _fair_share(played, n)
        choices = []
        for a, b in combinations(free, 2):
            c = self._score(a, b, played, fair_share, next_pair, n)
            if c is not None:
                choices.append(c)
        choices.sort(key=lambda c: (-c.priority, c.a.version_id, c.b.version_id))
        return choices

    def _score(
        self,
        a: LadderEntrant,
        b: LadderEntrant,
        played: Mapping[frozenset[int], int],
        fair_share: float,
        next_pair: int,
        n: int,
    ) -> Choice | None:
        if a.owner is not None and a.owner == b.owner:
            return None  # one owner's bots: a result between them is evidence of nothing
        if a.house and b.house:
            return None  # house bots are there to play the submitted ones
        uncertainty = a.sigma**2 + b.sigma**2
        key = (a.mu, a.sigma, b.mu, b.sigma)
        quality = self._qualities.get(key)
        if quality is None:
            ra = self._env.create_rating(a.mu, a.sigma)
            rb = self._env.create_rating(b.mu, b.sigma)
            quality = trueskill.quality_1vs1(ra, rb, env=self._env)
            if len(self._qualities) >= _QUALITIES_KEPT:
                self._qualities.clear()
            self._qualities[key] = quality
        times = played.get(frozenset((a.version_id, b.version_id)), 0)
        spread = 1.0 / (1.0 + times / fair_share)
        waited = max(_waited(a, next_pair), _waited(b, next_pair))
        regularity = 1.0 + max(0, waited - REGULARITY_WAIT * n) / n
        priority = uncertainty * quality * spread * regularity
        return Choice(a, b, priority, uncertainty, quality, spread, regularity)

    def choose(
        self,
        entrants: Sequence[LadderEntrant] | LadderField,
        played: Mapping[frozenset[int], int],
        *,
        next_pair: int,
        rng: random.Random,
        busy: frozenset[int] = frozenset(),
    ) -> Choice | None:
        """The pair to play next (a seeded draw among equal best), or None when no pair may
        play. A ``LadderField`` gives the same choice as its entrants in a list, without
        reading them into arrays."""
        if isinstance(entrants, LadderField):
            kept = entrants
            at = np.flatnonzero(~np.isin(kept.ids, np.fromiter(busy, np.int64, len(busy))))
            free: Sequence[LadderEntrant] = _Picked(kept, at)
            columns = (kept.mu[at], kept.s2[at], kept.last[at], kept.owner[at], kept.house[at])
        else:
            free = [e for e in entrants if e.version_id not in busy]
            columns = None
        if len(free) < SCAN_ALL_BELOW:
            ranked = self.rank(list(entrants), played, next_pair=next_pair, busy=busy)
        else:
            n = len(entrants)
            fair_share = _fair_share(played, n)
            pairs = _Search(
                free, played, fair_share, next_pair, n, self.config.beta, columns
            ).best()
            ranked = [
                c
                for i, j in pairs
                if (c := self._score(free[i], free[j], played, fair_share, next_pair, n))
                is not None
            ]
            ranked.sort(key=lambda c: (-c.priority, c.a.version_id, c.b.version_id))
        if not ranked:
            return None  # fewer than two free bots, or only one owner's
        best = ranked[0].priority
        tied = [c for c in ranked if math.isclose(c.priority, best, rel_tol=1e-9)]
        return tied[rng.randrange(len(tied))]


_QUALITIES_KEPT = 1 << 16
"""Match qualities remembered by rating before the memory is cleared."""


class _Picked(Sequence[LadderEntrant]):
    """The entrants of a field at some positions, without copying them out."""

    __slots__ = ("_at", "_field")

    def __init__(self, kept: LadderField, at: np.ndarray) -> None:
        self._field, self._at = kept, at

    def __len__(self) -> int:
        return len(self._at)

    def __getitem__(self, i: int) -> LadderEntrant:  # type: ignore[override]
        return self._field[int(self._at[i])]


def _top(values: np.ndarray, k: int) -> np.ndarray:
    """Positions of ``k`` largest values (any of equal ones), without sorting them all."""
    if len(values) <= k:
        return np.arange(len(values))
    return np.argpartition(-values, k - 1)[:k]


def _waited(e: LadderEntrant, next_pair: int) -> int:
    return next_pair if e.last_pair < 0 else next_pair - e.last_pair - 1


def _fair_share(played: Mapping[frozenset[int], int], n: int) -> float:
    total = played.total if isinstance(played, PairCounts) else sum(played.values())
    return max(1.0, 2.0 * total / max(1, n * (n - 1)))


class _Search:
    """The pairs of ``free`` (as index pairs i < j) whose priority may be within ``_SLACK`` of
    the best, found without scoring every pair (the module docstring says how)."""

    def __init__(
        self,
        free: Sequence[LadderEntrant],
        played: Mapping[frozenset[int], int],
        fair_share: float,
        next_pair: int,
        n: int,
        beta: float,
        columns: tuple[np.ndarray, ...] | None = None,
    ) -> None:
        self.free = free
        self.played = played
        self.fair_share = fair_share
        self.b2 = 2.0 * beta * beta
        if columns is None:
            # Each column in one C-level pass (the rest is numpy). An owner of None is NaN,
            # equal to nothing, so the organiser's bots meet each other.
            def column(name: str) -> np.ndarray:
                return np.array(list(map(attrgetter(name), free)), dtype=float)

            columns = (
                column("mu"), column("sigma") ** 2, column("last_pair"), column("owner"),
                column("house") > 0,
            )  # fmt: skip
        self.house: np.ndarray
        self.mu, self.s2, last, self.owner, self.house = columns
        waited = np.where(last < 0, float(next_pair), next_pair - last - 1.0)
        self.r = 1.0 + np.maximum(0.0, waited - REGULARITY_WAIT * n) / n
        self.best_p = -math.inf
        self.found: dict[tuple[int, int], float] = {}

    def _g(self, s: np.ndarray | float) -> np.ndarray | float:
        return s * np.sqrt(self.b2 / (self.b2 + s))

    def _bare(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Priority without the spread factor (at most 1), -inf for a pair that may not play."""
        s = self.s2[i] + self.s2[j]
        d = self.mu[i] - self.mu[j]
        p = self._g(s) * np.exp(-d * d / (2.0 * (self.b2 + s))) * np.maximum(self.r[i], self.r[j])
        bad = (self.owner[i] == self.owner[j]) | (self.house[i] & self.house[j]) | (i == j)
        return np.where(bad, -np.inf, p)

    def _threshold(self) -> float:
        return self.best_p - _SLACK * abs(self.best_p) if self.best_p > -math.inf else -math.inf

    def _consider(self, i: np.ndarray, j: np.ndarray, bare: np.ndarray) -> None:
        """Take the spread of the pairs whose bare priority reaches the best, best first."""
        keep = bare >= self._threshold()
        if not keep.any():
            return
        i, j, bare = i[keep], j[keep], bare[keep]
        if bare.size > _FIRST:
            # The few best first: they set the threshold that drops most of the others.
            top = np.argpartition(-bare, _FIRST - 1)[:_FIRST]
            self._take(i[top], j[top], bare[top])
            keep = bare >= self._threshold()
            keep[top] = False
            i, j, bare = i[keep], j[keep], bare[keep]
        self._take(i, j, bare)

    def _take(self, i: np.ndarray, j: np.ndarray, bare: np.ndarray) -> None:
        for k in np.argsort(-bare, kind="stable"):
            p_bare = float(bare[k])
            if p_bare < self._threshold() or p_bare == -math.inf:
                break
            a, b = int(i[k]), int(j[k])
            if a > b:
                a, b = b, a
            if (a, b) in self.found:
                continue
            times = self.played.get(
                frozenset((self.free[a].version_id, self.free[b].version_id)), 0
            )
            p = p_bare / (1.0 + times / self.fair_share)
            if p >= self._threshold():
                self.found[(a, b)] = p
                self.best_p = max(self.best_p, p)

    def best(self) -> list[tuple[int, int]]:
        m = len(self.free)
        # Which entrants make the head changes how much is scored, never the pairs found.
        head = set(_top(self.s2, HEAD).tolist())
        if (self.r > 1.0).any():
            head |= set(_top(self.r, HEAD).tolist())
        head_idx = np.array(sorted(head), dtype=np.int64)
        rest = np.ones(m, bool)
        rest[head_idx] = False
        s2_max, r_max = float(self.s2.max()), float(self.r.max())
        by_mu = np.argsort(self.mu, kind="stable")
        mu_sorted = self.mu[by_mu]
        # 1. The head against everyone, the most promising first; once a priority is found,
        # only against those close enough in mu for the bound to reach it.
        bound = self._g(self.s2[head_idx] + s2_max) * np.maximum(self.r[head_idx], r_max)
        for k in np.argsort(-bound, kind="stable"):
            t = self._threshold()
            if bound[k] < t:
                break
            a = int(head_idx[k])
            if t > 0.0:
                reach = 2.0 * (self.b2 + self.s2[a] + s2_max) * math.log(float(bound[k]) / t)
                w = math.sqrt(max(0.0, reach)) * (1.0 + 1e-9) + 1e-9
                lo = np.searchsorted(mu_sorted, self.mu[a] - w, "left")
                hi = np.searchsorted(mu_sorted, self.mu[a] + w, "right")
                j = by_mu[lo:hi]
            else:
                j = by_mu
            i = np.full(len(j), a)
            self._consider(i, j, self._bare(i, j))
        # 2. The rest among themselves, each walking up the order of mu while its bound holds.
        idx = by_mu[rest[by_mu]]
        if len(idx) >= 2:
            s2_r, r_r = float(self.s2[idx].max()), float(self.r[idx].max())
            mu = self.mu[idx]
            base = self._g(self.s2[idx] + s2_r) * np.maximum(self.r[idx], r_r)
            denom = 2.0 * (self.b2 + self.s2[idx] + s2_r)
            active = np.nonzero(base >= self._threshold())[0]
            k0, width = 1, 4
            while active.size:
                offsets = np.arange(k0, k0 + width)
                pos = active[:, None] + offsets[None, :]
                ok = pos < len(idx)
                left = np.broadcast_to(active[:, None], pos.shape)[ok]
                right = pos[ok]
                self._consider(idx[left], idx[right], self._bare(idx[left], idx[right]))
                k0 += width
                width *= 2
                active = active[active + k0 < len(idx)]
                d = mu[active + k0] - mu[active]
                still = base[active] * np.exp(-d * d / denom[active]) >= self._threshold()
                active = active[still]
        t = self._threshold()
        return sorted(pair for pair, p in self.found.items() if p >= t)
