"""Hostile bots, real processes: each misbehaviour ends in the right forfeit, the opponent is
credited, the arena plays the next match as if nothing happened, and no process is left over."""

from __future__ import annotations

import dataclasses
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.referee import (
    ClockConfig,
    FaultPolicy,
    MatchResult,
    Termination,
    play_match,
    verify,
)
from arena.rules import Match, RuleSet
from arena.rules.cards import card_name
from arena.rules.decisions import Decision
from arena.runtime import RunningBot, load_manifest, start_bot

BOTS = Path(__file__).resolve().parent / "bots"
CLOCK = ClockConfig(move_time_ms=300)
RULES = RuleSet(target_score=300)

# mode -> (termination, words the detail must contain)
CASES: dict[str, tuple[Termination, tuple[str, ...]]] = {
    "sleep": (Termination.FORFEIT_TIMEOUT, ("no answer to Draw within 300 ms",)),
    "sleep_start": (Termination.FORFEIT_TIMEOUT, ("no answer to StartMatch",)),
    "illegal": (Termination.FORFEIT_ILLEGAL_ACTION, ("R-4.3", "must follow suit")),
    "not_in_hand": (Termination.FORFEIT_ILLEGAL_ACTION, ("R-4.1", "is not in the hand")),
    "lead_spade": (Termination.FORFEIT_ILLEGAL_ACTION, ("R-4.5", "may not lead a spade")),
    "bid14": (Termination.FORFEIT_ILLEGAL_ACTION, ("bid 14", "R-3.1")),
    "bid_neg": (Termination.FORFEIT_ILLEGAL_ACTION, ("bid -1", "R-3.1")),
    "exchange4": (Termination.FORFEIT_ILLEGAL_ACTION, ("exchanged 4 cards", "R-3.4")),
    "out_of_range": (Termination.FORFEIT_MALFORMED_ANSWER, ("suit 15",)),
    "unspecified": (Termination.FORFEIT_MALFORMED_ANSWER, ("SUIT_UNSPECIFIED",)),
    "missing": (Termination.FORFEIT_MALFORMED_ANSWER, ("PlayResponse.card is not set",)),
    "garbage": (Termination.FORFEIT_MALFORMED_ANSWER, ("malformed Draw answer",)),
    "error": (Termination.FORFEIT_ERROR_STATUS, ("status INTERNAL",)),
    # A status that a lost connection also gives: the bot still answers its health check.
    "unavailable": (Termination.FORFEIT_ERROR_STATUS, ("status UNAVAILABLE",)),
    "error_start": (Termination.FORFEIT_ERROR_STATUS, ("StartMatch", "PERMISSION_DENIED")),
    "crash": (Termination.FORFEIT_CRASH, ("its process has exited (exit code 3)",)),
    "close": (Termination.FORFEIT_CRASH, ("the connection was lost",)),
    # Its children hold the connection until the runtime's supervisor kills them.
    "fork_exit": (Termination.FORFEIT_CRASH, ("during Draw",)),
}


@pytest.fixture(scope="module")
def good() -> Iterator[tuple[RunningBot, RunningBot]]:
    """Two well-behaved bots (the hostile bot's control mode), for every test of the module."""
    with (
        start_bot(load_manifest(BOTS / "hostile")) as a,
        start_bot(load_manifest(BOTS / "hostile")) as b,
    ):
        yield a, b


def marked_processes(mark: str) -> list[int]:
    """Processes whose environment carries ``mark`` (a bot and anything it started)."""
    found = []
    needle = f"HOSTILE_MARK={mark}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def start_marked(mode: str, env: dict[str, str] | None = None) -> tuple[RunningBot, str]:
    """``tests/bots/hostile_<mode>``, with a mark in its environment to find its processes."""
    manifest = load_manifest(BOTS / f"hostile_{mode}")
    mark = uuid.uuid4().hex
    manifest = dataclasses.replace(
        manifest, env={**manifest.env, **(env or {}), "HOSTILE_MARK": mark}
    )
    return start_bot(manifest), mark


def play_hostile(
    mode: str,
    seat: int,
    good: RunningBot,
    policy: FaultPolicy = FaultPolicy(),  # noqa: B008
    env: dict[str, str] | None = None,
) -> MatchResult:
    bot, mark = start_marked(mode, env)
    try:
        assert marked_processes(mark), "the mark should find the running bot"
        pair = (bot, good) if seat == 0 else (good, bot)
        result = play_match(pair, seed=11, rules=RULES, clock=CLOCK, policy=policy)
    finally:
        bot.stop()
    assert marked_processes(mark) == [], f"{mode}: processes left over after stop"
    return result


def assert_arena_still_plays(good: tuple[RunningBot, RunningBot]) -> None:
    """The next match, right after, is clean."""
    result = play_match(good, seed=99, rules=RuleSet(max_hands=1), clock=CLOCK)
    assert result.termination is Termination.HAND_LIMIT
    assert result.faults == (0, 0) and result.detail == ""


@pytest.mark.parametrize("mode", sorted(CASES))
def test_hostile_bot_forfeits(mode: str, good: tuple[RunningBot, RunningBot]) -> None:
    termination, words = CASES[mode]
    seat = sorted(CASES).index(mode) % 2
    result = play_hostile(mode, seat, good[seat ^ 1])
    assert result.termination is termination, result.detail
    assert result.winner == 1 - seat
    faults = [0, 0]
    faults[seat] = 1
    assert result.faults == tuple(faults)
    detail = result.detail
    assert detail.startswith(f"seat {seat} (hostile_{mode}): "), detail
    for word in words:
        assert word in detail, detail
    assert verify(result)
    assert_arena_still_plays(good)


@pytest.mark.parametrize("seat", [0, 1])
def test_a_card_of_the_opponents_hand_forfeits(
    seat: int, good: tuple[RunningBot, RunningBot]
) -> None:
    """R-4.1: a cheat that knows the deal plays a card the opponent holds at that moment.

    The hostile bot plays exactly like the control until its misbehaviour, so the clean match
    between the two controls is the same match up to there: the test reads the opponent's hand
    off it through the engine and tells the cheat which card to play on its third Play.
    """
    reference = play_match(good, seed=11, rules=RULES, clock=CLOCK)
    decisions = reference.decisions
    plays = [i for i, d in enumerate(decisions) if d.seat == seat and d.decision is Decision.PLAY]
    at = plays[2]
    before = Match(11, RULES)
    for d in decisions[:at]:
        before.apply(d.action)
    assert before.to_act == seat and before.decision is Decision.PLAY
    card = max(before.hand(1 - seat))
    answered = sum(1 for d in decisions[:at] if d.seat == seat)
    env = {"HOSTILE_CARD": card_name(card), "HOSTILE_AFTER": str(answered)}

    result = play_hostile("opponent_card", seat, good[1 - seat], env=env)
    assert result.termination is Termination.FORFEIT_ILLEGAL_ACTION, result.detail
    assert result.winner == 1 - seat
    assert result.faults == ((1, 0) if seat == 0 else (0, 1))
    assert result.detail.startswith(f"seat {seat} (hostile_opponent_card): "), result.detail
    for word in ("R-4.1", f"{card_name(card)} is not in the hand"):
        assert word in result.detail, result.detail
    # The forfeited match itself, rebuilt by the engine: the card was the opponent's, then.
    moves = [(d.seat, d.decision, d.action, d.fault) for d in result.decisions]
    assert moves == [(d.seat, d.decision, d.action, d.fault) for d in decisions[:at]]
    rebuilt = verify(result)
    assert rebuilt.to_act == seat and rebuilt.decision is Decision.PLAY
    assert card in rebuilt.hand(1 - seat) and card not in rebuilt.hand(seat)
    assert_arena_still_plays(good)


def test_flood_of_stderr_does_not_disturb_the_match(good: tuple[RunningBot, RunningBot]) -> None:
    bot, mark = start_marked("flood")
    try:
        result = play_match((good[0], bot), seed=11, rules=RuleSet(max_hands=1), clock=CLOCK)
        assert bot.log_bytes > 10_000_000  # it wrote a megabyte a decision...
        assert bot.log_path.stat().st_size < bot.log_bytes  # ...and the log kept a capped part
    finally:
        bot.stop()
    assert result.termination is Termination.HAND_LIMIT
    assert result.faults == (0, 0)
    assert marked_processes(mark) == []
    assert_arena_still_plays(good)


@pytest.mark.parametrize("mode", ["crash", "close", "fork_exit"])
def test_a_dead_bot_forfeits_under_substitute_too(
    mode: str, good: tuple[RunningBot, RunningBot]
) -> None:
    result = play_hostile(mode, 1, good[0], FaultPolicy("substitute", max_faults=5))
    assert result.termination is Termination.FORFEIT_CRASH
    assert result.winner == 0 and result.faults == (0, 1)
    assert_arena_still_plays(good)


@pytest.mark.parametrize(
    ("mode", "termination"),
    [
        ("sleep", Termination.FORFEIT_TIMEOUT),
        ("illegal", Termination.FORFEIT_ILLEGAL_ACTION),
        ("out_of_range", Termination.FORFEIT_MALFORMED_ANSWER),
        ("error", Termination.FORFEIT_ERROR_STATUS),
    ],
)
def test_substitute_policy_forfeits_at_the_fault_limit(
    mode: str, termination: Termination, good: tuple[RunningBot, RunningBot]
) -> None:
    result = play_hostile(mode, 0, good[1], FaultPolicy("substitute", max_faults=3))
    assert result.termination is termination
    assert result.winner == 1 and result.faults == (3, 0)
    substituted = [d for d in result.decisions if d.fault]
    assert len(substituted) == 2 and all(d.seat == 0 for d in substituted)
    assert "fault 3 of at most 3" in result.detail
    assert result.detail.count("a random legal action was played") == 2
    assert verify(result)
    assert_arena_still_plays(good)
