"""PlaySession, real processes: every hostile bot forfeits over a session exactly as over unary
calls, the seq and the kind of each answer are judged, a bot that lists the method but does not
serve it is played over unary calls, and a late answer is dropped while the match goes on."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_referee_hostile import CASES

from arena.referee import ClockConfig, FaultPolicy, Termination, play_match, verify
from arena.referee.record import FaultKind
from arena.referee.session import serves_session
from arena.rules import RuleSet
from arena.runtime import RunningBot, load_manifest, start_bot

BOTS = Path(__file__).resolve().parent / "bots"
CLOCK = ClockConfig(move_time_ms=300)
RULES = RuleSet(target_score=300)


def start_hostile(mode: str, session: str = "1") -> RunningBot:
    """``tests/bots/hostile_<mode>`` (``hostile`` for the good control), serving sessions."""
    manifest = load_manifest(BOTS / (f"hostile_{mode}" if mode != "good" else "hostile"))
    manifest = dataclasses.replace(manifest, env={**manifest.env, "HOSTILE_SESSION": session})
    return start_bot(manifest)


@pytest.fixture(scope="module")
def good() -> Iterator[tuple[RunningBot, RunningBot]]:
    """Two well-behaved bots that serve sessions."""
    with start_hostile("good") as a, start_hostile("good") as b:
        yield a, b


@pytest.mark.slow
@pytest.mark.parametrize("mode", sorted(CASES))
def test_hostile_bot_forfeits_over_a_session(
    mode: str, good: tuple[RunningBot, RunningBot]
) -> None:
    termination, words = CASES[mode]
    seat = sorted(CASES).index(mode) % 2
    bot = start_hostile(mode)
    try:
        assert serves_session(bot.channel)
        pair = (bot, good[1]) if seat == 0 else (good[0], bot)
        result = play_match(pair, seed=11, rules=RULES, clock=CLOCK)
    finally:
        bot.stop()
    assert result.termination is termination, result.detail
    assert result.winner == 1 - seat
    faults = [0, 0]
    faults[seat] = 1
    assert result.faults == tuple(faults)
    assert result.detail.startswith(f"seat {seat} (hostile_{mode}): "), result.detail
    for word in words:
        assert word in result.detail, result.detail
    assert verify(result)
    # The next match is clean (a roomy clock: this checks the arena, not the machine's load).
    clean = play_match(good, seed=99, rules=RuleSet(max_hands=1), clock=ClockConfig())
    assert clean.termination is Termination.HAND_LIMIT and clean.faults == (0, 0), clean.detail


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("session_seq", ("malformed Draw answer", "answer numbered")),
        ("session_kind", ("malformed Draw answer", "a bid answer to a draw request")),
    ],
)
def test_an_answer_of_another_request_is_malformed(
    mode: str, words: tuple[str, ...], good: tuple[RunningBot, RunningBot]
) -> None:
    with start_bot(
        dataclasses.replace(
            load_manifest(BOTS / "hostile"),
            env={"HOSTILE_MODE": mode, "HOSTILE_SESSION": "1", "HOSTILE_AFTER": "3"},
        )
    ) as bot:
        result = play_match((bot, good[1]), seed=11, rules=RULES, clock=CLOCK)
    assert result.termination is Termination.FORFEIT_MALFORMED_ANSWER, result.detail
    for word in words:
        assert word in result.detail, result.detail


def test_a_session_listed_but_not_served_is_played_over_unary_calls(
    good: tuple[RunningBot, RunningBot],
) -> None:
    with start_hostile("good", session="unimplemented") as bot:
        assert serves_session(bot.channel)
        result = play_match((bot, good[1]), seed=5, rules=RuleSet(max_hands=2), clock=CLOCK)
    assert result.termination is Termination.HAND_LIMIT, result.detail
    assert result.faults == (0, 0) and result.detail == ""
    assert verify(result)


def test_a_late_answer_is_a_timeout_and_the_session_goes_on(
    good: tuple[RunningBot, RunningBot],
) -> None:
    """Every 10th decision comes after the limit: a timeout, a substitute, and the late answer
    never taken for the next one (the next decision gets its own answer: the stream cancelled,
    the next request on a new one)."""
    manifest = dataclasses.replace(
        load_manifest(BOTS / "hostile"),
        env={
            "HOSTILE_MODE": "slow",
            "HOSTILE_SESSION": "1",
            "HOSTILE_FRACTION": "1.3",
            "HOSTILE_SLOW_EVERY": "10",
        },
    )
    with start_bot(manifest) as bot:
        result = play_match(
            (bot, good[1]),
            seed=3,
            rules=RuleSet(max_hands=1),
            clock=ClockConfig(move_time_ms=200, time_bank_ms=0),
            policy=FaultPolicy("substitute", max_faults=100),
        )
    assert result.termination is Termination.HAND_LIMIT, result.detail
    late = [d for d in result.decisions if d.fault is FaultKind.TIMEOUT]
    assert late and all(d.seat == 0 for d in late)
    answered = [d for d in result.decisions if d.seat == 0 and d.fault is None]
    assert len(answered) >= 2 * len(late)
    assert result.faults[0] == len(late) and result.faults[1] == 0
    assert "no answer to" in result.detail
    assert verify(result)
