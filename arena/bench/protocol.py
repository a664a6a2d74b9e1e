"""``arena bench protocol``: the cost of the referee's per-decision conversion.

Times ``build_request`` (the information set, the legal options, the clock) and its
serialization for every decision of real random matches, and on its own for a typical mid-hand
play decision, the most common request.
"""

from __future__ import annotations

import random
import time
from typing import Any

from arena.bot_protocol.messages import build_request, info_set
from arena.referee.clock import ClockConfig, SeatClock
from arena.rules import Decision, Match

_WITH_LEGAL = (Decision.PLAY, Decision.BID)


def _mid_hand(seed: int) -> tuple[Match, int]:
    """A match at the answer to the seventh trick's lead of its first hand."""
    m, rng = Match(seed), random.Random(seed)
    while True:
        seat = m.to_act
        assert seat is not None
        obs = m.observation(seat)
        if m.decision is Decision.PLAY and len(obs.tricks) == 7 and obs.tricks[-1].winner is None:
            return m, seat
        m.apply(m.random_action(rng))


def _best_of(fn: Any, number: int, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def measure(matches: int = 20, seed: int = 0, number: int = 20_000) -> dict[str, Any]:
    clock = SeatClock(ClockConfig(move_time_ms=1000, time_bank_ms=10_000))
    m, seat = _mid_hand(seed)
    obs = m.observation(seat)
    legal = m.legal_actions()
    mid_info = _best_of(lambda: info_set(obs), number)
    mid_request = _best_of(
        lambda: build_request(Decision.PLAY, "m-0123456789", obs, legal, clock), number
    )
    mid_bytes = build_request(Decision.PLAY, "m-0123456789", obs, legal, clock)
    mid_serialized = _best_of(
        lambda: build_request(Decision.PLAY, "m-0123456789", obs, legal, clock).SerializeToString(),
        number,
    )
    size = len(mid_bytes.SerializeToString())

    # every decision of whole random matches, observation and legal actions prepared first
    cases = []
    for s in range(seed, seed + matches):
        g, rng = Match(s), random.Random(s)
        while not g.is_over:
            decision, who = g.decision, g.to_act
            assert decision is not None and who is not None
            legal_now = g.legal_actions() if decision in _WITH_LEGAL else ()
            cases.append((decision, g.observation(who), legal_now))
            g.apply(g.random_action(rng))
    t0 = time.perf_counter()
    for decision, o, lg in cases:
        build_request(decision, "m-0123456789", o, lg, clock).SerializeToString()
    per_decision = (time.perf_counter() - t0) / len(cases)
    return {
        "mid_hand_info_set_us": round(mid_info * 1e6, 2),
        "mid_hand_build_request_us": round(mid_request * 1e6, 2),
        "mid_hand_build_and_serialize_us": round(mid_serialized * 1e6, 2),
        "mid_hand_request_bytes": size,
        "all_decisions": len(cases),
        "all_decisions_build_and_serialize_us": round(per_decision * 1e6, 2),
    }


def describe(r: dict[str, Any]) -> str:
    return (
        "mid-hand play request (7th trick, 7 cards in hand):\n"
        f"  info_set {r['mid_hand_info_set_us']:.1f} us, build_request "
        f"{r['mid_hand_build_request_us']:.1f} us, with serialization "
        f"{r['mid_hand_build_and_serialize_us']:.1f} us, {r['mid_hand_request_bytes']} bytes\n"
        f"every decision of random matches ({r['all_decisions']:,}): build_request and "
        f"serialization {r['all_decisions_build_and_serialize_us']:.1f} us each"
    )
