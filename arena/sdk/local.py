"""Play a whole match in-process between two SDK bots, for quick tests of a bot.

Every decision goes through the real protocol conversion (``build_request`` → the bot's handler
→ ``action_from_response`` → ``Match.apply``), exactly as over gRPC, only without processes and
sockets. There is no clock and no fault policy: an illegal action raises the engine's error,
an exception in a bot propagates.
"""

from __future__ import annotations

import importlib.util
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from arena.bot_protocol import messages
from arena.rules.decisions import Decision
from arena.rules.match import Match
from arena.rules.outcome import HandResult, Outcome
from arena.rules.ruleset import RuleSet
from arena.sdk.bot import Bot
from arena.sdk.service import BotHandler
from arena.sdk.view import Clock

_WITH_LEGAL = (Decision.PLAY, Decision.BID)
"""Decisions whose requests list the legal options (the others would be costly to list)."""


@dataclass(frozen=True, slots=True)
class LocalResult:
    outcome: Outcome
    hand_results: tuple[HandResult, ...]
    decisions: int
    """Decisions asked of both bots together."""


def play_local(
    bot0: Bot,
    bot1: Bot,
    seed: int,
    rules: RuleSet | None = None,
    *,
    match_id: str | None = None,
    clock: Clock | None = None,
) -> LocalResult:
    """Play match ``seed`` with ``bot0`` in seat 0 and ``bot1`` in seat 1."""
    rules = rules if rules is not None else RuleSet()
    match_id = match_id if match_id is not None else f"local-{seed}"
    clock = clock if clock is not None else Clock(move_time_ms=1000, time_bank_ms=60_000)
    handlers = (BotHandler(bot0), BotHandler(bot1))
    names = (bot0.name, bot1.name)
    for told in (0, 1):
        handlers[told].start_match(
            messages.start_match_request(match_id, told, rules, names[1 - told], clock)
        )
    match = Match(seed, rules)
    decisions = hands_told = 0
    while not match.is_over:
        seat = match.to_act
        decision = match.decision
        assert seat is not None and decision is not None
        legal = match.legal_actions() if decision in _WITH_LEGAL else ()
        request = messages.build_request(decision, match_id, match.observation(seat), legal, clock)
        response = handlers[seat].answer(decision, request)
        match.apply(messages.action_from_response(decision, response))
        decisions += 1
        while hands_told < len(match.hand_results):
            result = match.hand_results[hands_told]
            for s in (0, 1):
                handlers[s].end_hand(messages.end_hand_request(match_id, s, result))
            hands_told += 1
    outcome = match.outcome
    assert outcome is not None
    for seat in (0, 1):
        handlers[seat].end_match(
            messages.end_match_request(
                match_id,
                seat,
                outcome.winner,
                outcome.scores,
                outcome.hands_played,
                outcome.termination,
            )
        )
    return LocalResult(outcome, tuple(match.hand_results), decisions)


def load_bot(directory: str | Path) -> Bot:
    """The SDK bot of a Python bot directory, to play it in-process.

    The file is the first ``*.py`` argument of the manifest's command (``bot.py`` without a
    manifest). The bot is what its ``make_bot()`` returns if it defines one, else an instance
    of the one :class:`Bot` subclass it defines."""
    folder = Path(directory)
    script = folder / "bot.py"
    manifest = folder / "bot.toml"
    if manifest.is_file():
        with manifest.open("rb") as f:
            command = tomllib.load(f).get("command", [])
        scripts = [a for a in command if isinstance(a, str) and a.endswith(".py")]
        if scripts:
            script = folder / scripts[0]
    if not script.is_file():
        raise BotLoadError(f"{folder}: no Python bot script {script.name} to load")
    name = f"arena_local_bot_{abs(hash(str(script.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, script)
    if spec is None or spec.loader is None:
        raise BotLoadError(f"cannot load {script}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    factory = getattr(module, "make_bot", None)
    if callable(factory):
        bot = factory()
    else:
        classes = [
            v
            for v in vars(module).values()
            if isinstance(v, type) and issubclass(v, Bot) and v.__module__ == name
        ]
        if len(classes) != 1:
            raise BotLoadError(
                f"{script}: define make_bot() or exactly one Bot subclass (found {len(classes)})"
            )
        bot = classes[0]()
    if not isinstance(bot, Bot):
        raise BotLoadError(f"{script}: make_bot() returned {bot!r}, not an arena.sdk.Bot")
    return bot


class BotLoadError(ValueError):
    """A directory that holds no Python SDK bot to play in-process."""


@dataclass(frozen=True, slots=True)
class DuplicateResult:
    """Bot A against bot B over duplicate pairs: every seed played twice, seats swapped."""

    pairs: int
    first_seed: int
    wins: int
    """Matches A won."""
    losses: int
    draws: int
    points_for: int
    """A's final scores, summed over the matches."""
    points_against: int
    hands: int
    decisions: int
    seconds: float

    @property
    def matches(self) -> int:
        return 2 * self.pairs

    @property
    def win_rate(self) -> float:
        """A's share of the matches, a draw counting half."""
        return (self.wins + self.draws / 2) / self.matches if self.pairs else 0.0


def play_duplicate(
    bot_a: Bot, bot_b: Bot, pairs: int, first_seed: int = 0, rules: RuleSet | None = None
) -> DuplicateResult:
    """Play seeds ``first_seed`` … ``first_seed + pairs - 1`` twice each, A in seat 0 then 1."""
    wins = losses = draws = points_for = points_against = hands = decisions = 0
    start = time.perf_counter()
    for seed in range(first_seed, first_seed + pairs):
        for a_seat in (0, 1):
            bots = (bot_a, bot_b) if a_seat == 0 else (bot_b, bot_a)
            result = play_local(*bots, seed, rules, match_id=f"local-{seed}-{a_seat}")
            outcome = result.outcome
            if outcome.winner is None:
                draws += 1
            elif outcome.winner == a_seat:
                wins += 1
            else:
                losses += 1
            points_for += outcome.scores[a_seat]
            points_against += outcome.scores[1 - a_seat]
            hands += outcome.hands_played
            decisions += result.decisions
    return DuplicateResult(
        pairs=pairs,
        first_seed=first_seed,
        wins=wins,
        losses=losses,
        draws=draws,
        points_for=points_for,
        points_against=points_against,
        hands=hands,
        decisions=decisions,
        seconds=time.perf_counter() - start,
    )
