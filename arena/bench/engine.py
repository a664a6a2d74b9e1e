"""Engine speed: random legal self-play through the public API, and OpenSpiel's spades beside it.

Every decision goes through what a referee uses: ``Match.random_action`` (legal action
generation and a uniform choice) then ``Match.apply`` (with its validation). All player decisions
count: Double Nil questions, draws, exchanges, bids and card plays.

OpenSpiel's C++ ``spades`` (PyPI ``open-spiel``, the ``bench`` extra) is driven the same way from
Python: ``state.legal_actions()``, a uniform choice, ``state.apply_action``; its chance nodes
(the deal) go through ``chance_outcomes`` and are not counted, so only its bids and card plays
are. The two run in alternating slices of the same run, so both see the same machine load.
"""

from __future__ import annotations

import platform
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError
from arena.rules import ENGINE_VERSION, Match, RuleSet

SLICES = 4
"""Each side runs in this many alternating slices, so a change of load hits both alike."""


@dataclass
class Tally:
    decisions: int = 0
    hands: int = 0
    games: int = 0
    seconds: float = 0.0

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0

    @property
    def hands_per_s(self) -> float:
        return self.hands / self.seconds if self.seconds else 0.0


def run_engine(
    tally: Tally,
    seconds: float,
    rng: random.Random,
    rules: RuleSet,
    seed: int,
    clock: Callable[[], float] = time.perf_counter,
) -> int:
    """Play whole random matches, seeded ``seed``, ``seed + 1`` …, for about ``seconds`` of
    ``clock``; add what was done to ``tally`` and return the next match seed."""
    start = clock()
    deadline = start + seconds
    while True:
        m = Match(seed, rules)
        seed += 1
        apply, random_action = m.apply, m.random_action
        n = 0
        while not m.is_over:
            apply(random_action(rng))
            n += 1
        tally.decisions += n
        tally.hands += m.hand_number
        tally.games += 1
        now = clock()
        if now >= deadline:
            break
    tally.seconds += now - start
    return seed


def load_openspiel_spades() -> Any:
    try:
        import pyspiel
    except ImportError as exc:
        raise ArenaError(
            "OpenSpiel is not installed; install the bench extra: "
            "pip install -e '.[bench]' (open-spiel==2.0.2)"
        ) from exc
    return pyspiel.load_game("spades")


def run_openspiel(tally: Tally, game: Any, seconds: float, rng: random.Random) -> None:
    """Random playouts of OpenSpiel's spades for about ``seconds``; one game is one deal."""
    rand = rng.random
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()  # the deal: uniform, not counted
                state.apply_action(outcomes[int(rand() * len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rand() * len(legal))])
                n += 1
        tally.decisions += n
        tally.hands += 1
        tally.games += 1
        now = time.perf_counter()
        if now >= deadline:
            break
    tally.seconds += now - start


def measure(seconds: float = 5.0, seed: int = 0, compare_openspiel: bool = False) -> dict[str, Any]:
    """Measure for ``seconds`` (each side, when comparing) and return the figures."""
    if not seconds > 0:
        raise ArenaError(f"--seconds must be positive, got {seconds}")
    rules = RuleSet()
    ours, theirs = Tally(), Tally()
    game = load_openspiel_spades() if compare_openspiel else None
    rng, other_rng = random.Random(seed), random.Random(seed)
    match_seed = seed
    for _ in range(SLICES):
        match_seed = run_engine(ours, seconds / SLICES, rng, rules, match_seed)
        if game is not None:
            run_openspiel(theirs, game, seconds / SLICES, other_rng)
    result: dict[str, Any] = {
        "decisions_per_s": round(ours.decisions_per_s),
        "hands_per_s": round(ours.hands_per_s),
        "decisions": ours.decisions,
        "hands": ours.hands,
        "matches": ours.games,
        "seconds": round(ours.seconds, 3),
        "seed": seed,
        "rules": rules.describe(),
        "engine_version": ENGINE_VERSION,
        "python": platform.python_version(),
    }
    if game is not None:
        from importlib.metadata import version

        result.update(
            openspiel_version=version("open-spiel"),
            openspiel_decisions_per_s=round(theirs.decisions_per_s),
            openspiel_hands_per_s=round(theirs.hands_per_s),
            openspiel_seconds=round(theirs.seconds, 3),
            ratio_vs_openspiel=round(ours.decisions_per_s / theirs.decisions_per_s, 2),
        )
    return result


def describe(result: dict[str, Any]) -> str:
    """The figures as a few readable lines."""
    lines = [
        f"engine {result['engine_version']} (Python {result['python']}): "
        f"{result['decisions_per_s']:,} decisions/s, {result['hands_per_s']:,} hands/s "
        f"({result['decisions']:,} decisions in {result['matches']:,} random self-play "
        f"matches, {result['seconds']} s, seed {result['seed']}, rules {result['rules']})"
    ]
    if "openspiel_decisions_per_s" in result:
        lines.append(
            f"OpenSpiel {result['openspiel_version']} spades: "
            f"{result['openspiel_decisions_per_s']:,} decisions/s (bids and card plays), "
            f"{result['openspiel_hands_per_s']:,} deals/s ({result['openspiel_seconds']} s)"
        )
        lines.append(f"ratio: {result['ratio_vs_openspiel']}x OpenSpiel's decisions per second")
    return "\n".join(lines)
