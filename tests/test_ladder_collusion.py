"""The collusion flag: forfeits concentrated on one opponent, by Fisher's exact test."""

from __future__ import annotations

import random

from arena.ladder.collusion import FLAG_P, MatchFacts, collusion_flags


def _matches(bot: str, opponent: str, n: int, forfeits: int) -> list[MatchFacts]:
    return [MatchFacts((bot, opponent), 0 if i < forfeits else None) for i in range(n)]


def test_a_shill_throwing_only_to_its_star_is_flagged() -> None:
    facts = _matches("shill", "star", 4, 4)  # the case: 4 of 4 thrown
    for other in ("a", "b", "c", "d"):
        facts += _matches("shill", other, 5, 0)
        facts += _matches("star", other, 5, 0)
    flags = collusion_flags(facts)
    assert [(f.bot, f.opponent) for f in flags] == [("shill", "star")]
    flag = flags[0]
    assert (flag.forfeits_against, flag.matches_against) == (4, 4)
    assert (flag.forfeits_others, flag.matches_others) == (0, 20)
    # scipy.stats.fisher_exact([[4, 0], [0, 20]], alternative="greater").pvalue = 1/10626
    assert abs(flag.p_value - 1 / 10626) < 1e-15
    assert "shill forfeited 4 of 4 matches against star" in flag.describe()


def test_a_bot_that_fails_against_everyone_is_not_flagged() -> None:
    rng = random.Random(1)
    facts = []
    for other in "abcdefgh":
        for _ in range(12):
            # A buggy bot forfeits a third of its matches, whoever it plays.
            facts.append(MatchFacts(("buggy", other), 0 if rng.random() < 1 / 3 else None))
    assert collusion_flags(facts) == []


def test_few_forfeits_are_no_flag_however_lopsided() -> None:
    facts = _matches("x", "y", 2, 2) + _matches("x", "z", 200, 0)
    assert collusion_flags(facts) == []
    assert FLAG_P == 0.001
