"""Is bot A stronger than bot B, and how sure are we: Elo with a confidence interval and the GSPRT.

Pure functions over outcome counts, no I/O. The formulas are fishtest's (the Stockfish testing
framework, ``server/fishtest/stats/stat_util.py`` and ``LLRcalc.py``), in its "logistic" Elo
model, re-derived here without scipy:

- **Counts.** A *trinomial* is the number of A's losses, draws and wins ``[L, D, W]`` over
  independent matches. A *pentanomial* is over duplicate pairs (one deal seed played twice with
  the seats swapped): the number of pairs in which A took 0, ½, 1, 1½ or 2 match points
  ``[LL, LD+DL, LW+DD+WL, DW+WD, WW]``. The two matches of a pair share their cards, so they are
  not independent; the pentanomial treats the pair as one sample and so measures the variance
  that is really there (much smaller than two independent matches', since the deal's luck
  cancels within the pair).
- **Score and Elo.** The score is A's mean match points per match. Logistic Elo is
  ``elo = -400 log10(1/score - 1)``; its inverse ``score = 1 / (1 + 10^(-elo/400))``. The 95 %
  interval is the normal one on the score, ``score ± 1.96 · stdev / sqrt(matches)`` with the
  per-match stdev taken from the pentanomial (or trinomial) variance, mapped through the Elo
  curve (fishtest's ``get_elo``).
- **GSPRT.** H0: elo = elo0 against H1: elo = elo1. The log-likelihood ratio is the generalized
  one of fishtest's ``LLR_logistic``: the maximum likelihood distribution of the counts'
  categories whose expected score is ``score(elo1)`` against the one whose expected score is
  ``score(elo0)`` (the secular equation of LLRcalc's ``MLE_expected``). Wald's bounds:
  accept H1 when LLR ≥ log((1-beta)/alpha), H0 when LLR ≤ log(beta/(1-alpha)) (as cutechess's
  ``Sprt::status``). fishtest's dynamic overshoot correction is not applied: the test checks
  after every pair, where overshoot is small, and without it the error rates are at most the
  nominal ones (tests/test_stats.py measures them).

Empty categories are regularized as fishtest does (a count of 0 becomes 0.001), so every figure
is finite from the first sample on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from arena.errors import ArenaError

REGULARIZE = 1e-3
"""fishtest's ``LLRcalc.regularize``: a zero count becomes this, so logs and the MLE exist."""
ELO_CLAMP = 1e-3
"""fishtest's ``stat_util.elo`` clamps the score to [0.001, 0.999] (about ±1200 Elo)."""
CONFIDENCE = 0.95

DEFAULT_SPRT = {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05}


class StatsError(ArenaError):
    """A test's parameters cannot be used (bad ``--sprt`` syntax, elo0 ≥ elo1, alpha ∉ (0,1)…)."""


def elo_to_score(elo: float) -> float:
    """Expected score of the stronger side at a logistic Elo difference (fishtest's ``L``)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """Logistic Elo difference of an expected score, clamped as fishtest's ``elo`` is."""
    x = min(max(score, ELO_CLAMP), 1.0 - ELO_CLAMP)
    return -400.0 * math.log10(1.0 / x - 1.0)


def _check_counts(counts: Sequence[float]) -> None:
    if len(counts) not in (3, 5):
        raise StatsError(f"counts must be a trinomial (3) or pentanomial (5), got {len(counts)}")
    if any(c < 0 for c in counts):
        raise StatsError(f"counts cannot be negative, got {list(counts)}")


def regularize(counts: Sequence[float]) -> list[float]:
    return [REGULARIZE if c == 0 else float(c) for c in counts]


def _pdf(counts: Sequence[float]) -> tuple[float, list[tuple[float, float]]]:
    """(regularized total, [(score per match of the category, its frequency)])."""
    reg = regularize(counts)
    total = sum(reg)
    last = len(reg) - 1
    return total, [(i / last, c / total) for i, c in enumerate(reg)]


def _mean_var(pdf: Sequence[tuple[float, float]]) -> tuple[float, float]:
    mean = sum(p * a for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


@dataclass(frozen=True, slots=True)
class Estimate:
    """What the counts say about A's strength against B, with a 95 % interval."""

    matches: float
    """Matches the counts stand for (a pair is two)."""
    score: float
    """A's mean match points per match (a win 1, a draw ½), from the regularized counts (the
    centre of the interval and of the Elo: never exactly 0 or 1)."""
    raw_score: float
    """The same from the counts as they are: what was scored (1.0 after only wins)."""
    score_low: float
    score_high: float
    stdev: float
    """Per-match standard deviation of the score (from the pentanomial or trinomial variance)."""
    elo: float
    elo_low: float
    elo_high: float
    elo95: float
    """Half the width of the Elo interval (fishtest's ``elo95``): ``elo ± elo95``."""
    los: float
    """Likelihood of superiority: the probability that A is the stronger, normal approximation."""


def estimate(counts: Sequence[float], confidence: float = CONFIDENCE) -> Estimate:
    """Score and Elo with their interval (fishtest ``stat_util.get_elo``, ``stats``)."""
    _check_counts(counts)
    reg = regularize(counts)
    n = sum(reg)
    last = len(reg) - 1
    matches = n * last / 2.0
    # Per-match mean, and the per-match variance of a sample of `last / 2` matches.
    score = sum(c * (i / 2.0) for i, c in enumerate(reg)) / matches
    per_sample = last / 2.0 * score
    var = sum(c * (i / 2.0 - per_sample) ** 2 for i, c in enumerate(reg)) / matches
    stdev = math.sqrt(var)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    half = z * stdev / math.sqrt(matches)
    low, high = score - half, score + half
    elo_low, elo_high = score_to_elo(low), score_to_elo(high)
    los = NormalDist().cdf((score - 0.5) / (stdev / math.sqrt(matches))) if stdev > 0 else 0.5
    played = sum(counts)
    return Estimate(
        matches=played * last / 2.0,
        score=score,
        raw_score=sum(c * i for i, c in enumerate(counts)) / (played * last) if played else 0.5,
        score_low=max(low, 0.0),  # a score lies in [0, 1]; the Elo ends are clamped anyway
        score_high=min(high, 1.0),
        stdev=stdev,
        elo=score_to_elo(score),
        elo_low=elo_low,
        elo_high=elo_high,
        elo95=(elo_high - elo_low) / 2.0,
        los=los,
    )


def _secular(pdf: Sequence[tuple[float, float]]) -> float:
    """The root x of sum p_i a_i / (1 + x a_i) = 0 (LLRcalc ``secular``).

    The sum falls strictly on (-1/max a, -1/min a), so a Newton step kept inside a shrinking
    bracket finds the root to machine precision in a few steps.
    """
    lo_a = min(a for a, _ in pdf)
    hi_a = max(a for a, _ in pdf)
    if lo_a * hi_a >= 0:
        raise StatsError("the expected score must lie strictly between the outcomes' scores")
    lo, hi = -1.0 / hi_a, -1.0 / lo_a
    x = 0.0
    for _ in range(200):
        f = 0.0
        df = 0.0
        for a, p in pdf:
            d = 1.0 + x * a
            f += p * a / d
            df -= p * a * a / (d * d)
        if f == 0.0:
            return x
        if f > 0:
            lo = x
        else:
            hi = x
        step = x - f / df
        nxt = step if lo < step < hi else (lo + hi) / 2.0
        if abs(nxt - x) <= 1e-15 * max(1.0, abs(x)):
            return nxt
        x = nxt
    return x


def _log_mle(pdf: Sequence[tuple[float, float]], s: float) -> list[float]:
    """log of the maximum likelihood frequencies with expected score s (``MLE_expected``)."""
    x = _secular([(a - s, p) for a, p in pdf])
    return [math.log(p) - math.log1p(x * (a - s)) for a, p in pdf]


def llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The generalized log-likelihood ratio of elo1 against elo0 (fishtest ``LLR_logistic``)."""
    _check_counts(counts)
    if sum(counts) == 0:
        return 0.0
    total, pdf = _pdf(counts)
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    log0, log1 = _log_mle(pdf, s0), _log_mle(pdf, s1)
    return total * sum(p * (l1 - l0) for (_, p), l0, l1 in zip(pdf, log0, log1, strict=True))


@dataclass(frozen=True, slots=True)
class Sprt:
    """A GSPRT of H0: elo = elo0 against H1: elo = elo1, with error rates alpha and beta."""

    elo0: float = DEFAULT_SPRT["elo0"]
    elo1: float = DEFAULT_SPRT["elo1"]
    alpha: float = DEFAULT_SPRT["alpha"]
    beta: float = DEFAULT_SPRT["beta"]

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, name)
            if not math.isfinite(value):
                raise StatsError(f"--sprt {name} must be a finite number, got {value}")
        for name in ("elo0", "elo1"):
            if abs(getattr(self, name)) >= 1000:
                raise StatsError(
                    f"--sprt {name} must be between -1000 and 1000 Elo, got {getattr(self, name)}"
                )
        if self.elo0 >= self.elo1:
            raise StatsError(
                f"--sprt needs elo0 < elo1 (H1 is the stronger claim), got elo0={self.elo0:g}, "
                f"elo1={self.elo1:g}"
            )
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 1.0:
                raise StatsError(f"--sprt {name} must be strictly between 0 and 1, got {value:g}")
        if self.alpha + self.beta >= 1.0:
            raise StatsError(
                f"--sprt needs alpha + beta < 1, got alpha={self.alpha:g}, beta={self.beta:g}"
            )

    @classmethod
    def parse(cls, text: str) -> Sprt:
        """``elo0=0,elo1=5,alpha=0.05,beta=0.05``; any key left out takes its default."""
        values: dict[str, float] = {}
        for part in text.split(","):
            key, sep, raw = part.partition("=")
            key = key.strip()
            if not sep or not key:
                raise StatsError(
                    f"--sprt takes key=value pairs separated by commas "
                    f"(elo0=0,elo1=5,alpha=0.05,beta=0.05), got {text!r}"
                )
            if key not in DEFAULT_SPRT:
                raise StatsError(
                    f"--sprt has no parameter {key!r}; it takes elo0, elo1, alpha and beta"
                )
            if key in values:
                raise StatsError(f"--sprt gives {key} twice in {text!r}")
            try:
                values[key] = float(raw)
            except ValueError:
                raise StatsError(f"--sprt {key} must be a number, got {raw.strip()!r}") from None
        return cls(**values)

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: log(beta / (1 - alpha))."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: log((1 - beta) / alpha)."""
        return math.log((1.0 - self.beta) / self.alpha)

    def status(self, counts: Sequence[float]) -> SprtStatus:
        value = llr(counts, self.elo0, self.elo1)
        decision = "H1" if value >= self.upper else "H0" if value <= self.lower else None
        return SprtStatus(value, self.lower, self.upper, decision)

    def to_dict(self) -> dict[str, float]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta}


@dataclass(frozen=True, slots=True)
class SprtStatus:
    llr: float
    lower: float
    upper: float
    decision: str | None
    """``"H1"`` (A is at least elo1 stronger), ``"H0"`` (at most elo0), or None: go on."""


def pair_index(points: float) -> int:
    """The pentanomial category of A's match points in one duplicate pair (0, ½, 1, 1½, 2)."""
    index = round(points * 2)
    if not 0 <= index <= 4 or index != points * 2:
        raise StatsError(f"a duplicate pair scores 0, 0.5, 1, 1.5 or 2 points, got {points}")
    return index


def game_index(points: float) -> int:
    """The trinomial category of A's match points in one match (loss 0, draw ½, win 1)."""
    index = round(points * 2)
    if not 0 <= index <= 2 or index != points * 2:
        raise StatsError(f"a match scores 0, 0.5 or 1 point, got {points}")
    return index


def fisher_exact_greater(a: int, b: int, c: int, d: int) -> float:
    """One-sided Fisher's exact test of the 2x2 table ``[[a, b], [c, d]]``: the probability,
    with the margins fixed, of a top-left count at least ``a`` (the odds ratio is greater than
    1). Exact in integers (the hypergeometric tail), so it is right for the small counts it is
    used on; equals ``scipy.stats.fisher_exact(table, alternative="greater").pvalue``."""
    if min(a, b, c, d) < 0:
        raise StatsError(f"a 2x2 table holds counts >= 0, got {[[a, b], [c, d]]}")
    row, col, n = a + b, a + c, a + b + c + d
    if n == 0:
        return 1.0
    tail = sum(math.comb(col, k) * math.comb(n - col, row - k) for k in range(a, min(row, col) + 1))
    return min(1.0, tail / math.comb(n, row))
