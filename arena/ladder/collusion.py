"""The organiser's collusion flag: a bot whose forfeits concentrate on one opponent.

A bot that throws its matches to a friend (a "shill" playing an illegal card only against its
owner's "star") forfeits against that one opponent and plays cleanly against everyone else.
For every bot and every opponent it met, the 2x2 table of its matches

    |                     | forfeited by it | other  |
    | against this one    | a               | b      |
    | against all others  | c               | d      |

is put to Fisher's exact test, one-sided (its forfeits more likely against this opponent than
against the others: ``arena.stats.fisher_exact_greater``). A bot is flagged when
``p <= FLAG_P`` and it forfeited at least ``MIN_FORFEITS`` matches against that opponent. A
flag is a question for the organiser, not a verdict: it is listed by ``arena ladder status``
(and so on every surface showing the ladder's status), never acted on by itself. With ~n²
pairs tested the threshold is strict (0.001), so an honest bot that crashes at random is not
flagged by chance.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from arena.stats import fisher_exact_greater

FLAG_P = 0.001
"""Flag a bot at or below this one-sided p-value."""
MIN_FORFEITS = 3
"""…and with at least this many forfeits against the one opponent."""


@dataclass(frozen=True, slots=True)
class MatchFacts:
    """What the flag reads of a recorded match: the two bots (by name) and who forfeited."""

    bots: tuple[str, str]
    forfeited_by: int | None
    """The seat that forfeited, or None (no forfeit, or both)."""


@dataclass(frozen=True, slots=True)
class CollusionFlag:
    bot: str
    opponent: str
    forfeits_against: int
    matches_against: int
    forfeits_others: int
    matches_others: int
    p_value: float

    def describe(self) -> str:
        return (
            f"{self.bot} forfeited {self.forfeits_against} of {self.matches_against} matches "
            f"against {self.opponent}, {self.forfeits_others} of {self.matches_others} against "
            f"the others (Fisher's exact test, one-sided: p = {self.p_value:.2g})"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "bot": self.bot,
            "opponent": self.opponent,
            "forfeits_against": self.forfeits_against,
            "matches_against": self.matches_against,
            "forfeits_others": self.forfeits_others,
            "matches_others": self.matches_others,
            "p_value": self.p_value,
            "why": self.describe(),
        }


def collusion_flags(matches: Iterable[MatchFacts]) -> list[CollusionFlag]:
    """The flagged (bot, opponent) pairs, most significant first."""
    played: Counter[tuple[str, str]] = Counter()
    forfeited: Counter[tuple[str, str]] = Counter()
    for m in matches:
        a, b = m.bots
        if a == b:
            continue
        played[a, b] += 1
        played[b, a] += 1
        if m.forfeited_by is not None:
            loser = m.bots[m.forfeited_by]
            forfeited[loser, m.bots[1 - m.forfeited_by]] += 1
    total_played: Counter[str] = Counter()
    total_forfeited: Counter[str] = Counter()
    for (bot, _), n in played.items():
        total_played[bot] += n
    for (bot, _), n in forfeited.items():
        total_forfeited[bot] += n
    flags = []
    for (bot, opponent), n in played.items():
        f = forfeited[bot, opponent]
        if f < MIN_FORFEITS:
            continue
        others_n = total_played[bot] - n
        others_f = total_forfeited[bot] - f
        p = fisher_exact_greater(f, n - f, others_f, others_n - others_f)
        if p <= FLAG_P:
            flags.append(CollusionFlag(bot, opponent, f, n, others_f, others_n, p))
    flags.sort(key=lambda x: (x.p_value, x.bot, x.opponent))
    return flags
