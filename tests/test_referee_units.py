"""The referee's parts that need no bot process: clock, policy, wire encoder, record, replay."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from dataclasses import replace
from typing import Any

import pytest

from arena._gen.spades.v1 import bot_pb2 as pb
from arena.bot_protocol.messages import RPCS, build_request, card_to_pb, end_hand_request
from arena.referee import (
    ClockConfig,
    DecisionRecord,
    FaultKind,
    FaultPolicy,
    MatchResult,
    RefereeConfigError,
    ReplayError,
    Termination,
    decode_decisions,
    encode_decisions,
    render_text,
    replay,
    replay_to_dict,
    result_from_dict,
    result_to_dict,
    unplayed_result,
    verify,
)
from arena.referee.clock import SeatClock
from arena.referee.wire import (
    C_ENCODER,
    PythonRequestEncoder,
    RequestEncoder,
    end_hand_requests,
)
from arena.rules import ENGINE_VERSION, Decision, Match, RuleSet

# -- clock -----------------------------------------------------------------------------------


def test_clock_without_bank_times_out_past_the_move_limit() -> None:
    clock = SeatClock(ClockConfig(move_time_ms=300))
    assert clock.limit_ns == 300_000_000
    assert clock.charge(299_999_999)
    assert clock.charge(300_000_000)
    assert not clock.charge(300_000_001)


def test_clock_takes_overruns_from_the_bank_chess_style() -> None:
    clock = SeatClock(ClockConfig(move_time_ms=100, time_bank_ms=1000))
    assert clock.limit_ns == 1_100_000_000
    assert clock.charge(50_000_000)  # within the move limit: the bank is untouched
    assert clock.time_bank_ms == 1000
    assert clock.charge(400_500_000)  # 300.5 ms over
    assert clock.bank_ns == 699_500_000
    assert clock.time_bank_ms == 699  # told rounded down, never more than it has
    assert clock.limit_ns == 799_500_000
    assert not clock.charge(800_000_000)  # over move + bank: a timeout, the bank is spent
    assert clock.bank_ns == 0 and clock.time_bank_ms == 0
    assert clock.limit_ns == 100_000_000


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"move_time_ms": 0}, "move time"),
        ({"move_time_ms": -5}, "move time"),
        ({"time_bank_ms": -1}, "time bank"),
        ({"move_time_ms": 2**31}, "move time"),
    ],
)
def test_clock_config_rejects_unplayable_values(kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(RefereeConfigError, match=message):
        ClockConfig(**kwargs)


def test_fault_policy() -> None:
    assert FaultPolicy().forfeits(1)
    sub = FaultPolicy("substitute", max_faults=3)
    assert [sub.forfeits(n) for n in (1, 2, 3)] == [False, False, True]
    with pytest.raises(RefereeConfigError, match="unknown fault policy"):
        FaultPolicy("forgive")  # type: ignore[arg-type]
    with pytest.raises(RefereeConfigError, match="max_faults"):
        FaultPolicy("substitute", max_faults=0)


def test_fault_kinds_map_to_forfeit_terminations() -> None:
    assert FaultKind.TIMEOUT.termination is Termination.FORFEIT_TIMEOUT
    assert FaultKind.CRASH.termination is Termination.FORFEIT_CRASH
    assert all(k.termination.is_forfeit for k in FaultKind)
    assert not Termination.TARGET_REACHED.is_forfeit


# -- the wire encoders -----------------------------------------------------------------------
#
# Two encoders, the same bytes: the Python reference and the C extension (``_wire.c``). Each
# test of what a request holds runs on both; ``ARENA_TEST_REQUIRE_C_ENCODER=1`` (set by CI)
# makes a C encoder that was not built a failure rather than a skip.


def _c_encoder() -> Any:
    if C_ENCODER is None:
        if os.environ.get("ARENA_TEST_REQUIRE_C_ENCODER") == "1":
            pytest.fail("the C request encoder (arena/referee/_wire.c) was not built")
        pytest.skip("the C request encoder was not built (no C compiler at install)")
    return C_ENCODER


@pytest.fixture(params=["python", "c"])
def encoder_class(request: pytest.FixtureRequest) -> Any:
    return PythonRequestEncoder if request.param == "python" else _c_encoder()


@pytest.mark.parametrize("seed", range(6))
def test_wire_encoder_equals_the_protocol_reference(seed: int, encoder_class: Any) -> None:
    """Every request of whole matches parses to the message ``build_request`` makes."""
    rules = RuleSet(
        draw_decision_public=seed % 2 == 0,
        target_score=150 + 50 * seed,
        nil_tricks_count_as_bags=seed == 3,
        double_nil_allowed=seed != 5,
    )
    rng = random.Random(seed)
    m = Match(seed, rules)
    match_id = f"match-{seed}-ü"
    encoder = encoder_class(match_id, rules)
    clock = SeatClock(ClockConfig(move_time_ms=[1, 250, 1000, 90_000][seed % 4], time_bank_ms=3000))
    seen = set()
    while not m.is_over:
        decision, seat = m.decision, m.to_act
        assert decision is not None and seat is not None
        obs = m.observation(seat)
        legal = m.legal_actions() if decision in (Decision.PLAY, Decision.BID) else ()
        if rng.random() < 0.05:
            clock.charge(clock.move_ns + rng.randrange(100_000_000))
        expected = build_request(decision, match_id, obs, legal, clock)
        got = RPCS[decision].request_type.FromString(encoder.encode(m, m.to_act, m.decision, clock))
        assert got == expected, decision
        seen.add(decision)
        m.apply(m.random_action(rng))
    assert {Decision.DRAW, Decision.BID, Decision.PLAY} <= seen


def test_wire_encoder_carries_the_own_put_aside_cards(encoder_class: Any) -> None:
    """A Double Nil bidder's own put-aside cards reach her on the fast path too (R-3.4)."""
    m = Match(5)
    encoder = encoder_class("dn", m.rules)
    clock = SeatClock(ClockConfig())
    aside: tuple[int, ...] = ()
    checked = 0
    while m.hand_number == 1:
        decision, seat = m.decision, m.to_act
        assert decision is not None and seat is not None
        obs = m.observation(seat)
        legal = m.legal_actions() if decision in (Decision.PLAY, Decision.BID) else ()
        expected = build_request(decision, "dn", obs, legal, clock)
        got = RPCS[decision].request_type.FromString(encoder.encode(m, m.to_act, m.decision, clock))
        assert got == expected, decision
        if seat == 0 and aside:
            assert len(got.info.own_put_aside) == 3
            checked += 1
        if decision is Decision.DOUBLE_NIL:
            m.apply(seat == 0)
        elif decision is Decision.EXCHANGE:
            aside = m.hand(0)[:3]
            m.apply(aside)
        else:
            m.apply(m.legal_actions()[0])
    assert checked == 13


def test_wire_encoder_negative_scores(encoder_class: Any) -> None:
    """Negative int32 scores take ten bytes on the wire; parse them back."""
    rng = random.Random(1)
    m = Match(11, RuleSet(target_score=100000, max_hands=6))
    encoder = encoder_class("m", m.rules)
    clock = SeatClock(ClockConfig())
    negative = False
    while not m.is_over:
        d, s = m.decision, m.to_act
        assert d is not None and s is not None
        if d is Decision.BID:
            m.apply(13)  # always set: scores go negative
            continue
        obs = m.observation(s)
        legal = m.legal_actions() if d is Decision.PLAY else ()
        msg = RPCS[d].request_type.FromString(encoder.encode(m, m.to_act, m.decision, clock))
        assert msg == build_request(d, "m", obs, legal, clock)
        negative = negative or any(seat.score < 0 for seat in msg.info.seats)  # type: ignore[attr-defined]
        m.apply(m.random_action(rng))
    assert negative


def test_end_hand_requests_equal_the_protocol_reference() -> None:
    """Both seats' EndHand bytes, serialized once, parse to what ``end_hand_request`` builds."""
    rng = random.Random(4)
    m = Match(4, RuleSet(max_hands=8, target_score=10_000))
    while not m.is_over:
        m.apply(m.random_action(rng))
    assert len(m.hand_results) == 8
    assert any(p < 0 for r in m.hand_results for p in r.points)  # ten-byte varints
    assert any(r.first_drawer for r in m.hand_results)
    assert any(any(r.double_nil) for r in m.hand_results)
    for result in m.hand_results:
        for seat, data in enumerate(end_hand_requests("eh-ü", result)):
            assert pb.EndHandRequest.FromString(data) == end_hand_request("eh-ü", seat, result)


def test_wire_encoder_legal_cards_of_every_card() -> None:
    """Each card as a legal card, as the encoder writes it from the hand's bytes."""
    from arena.referee.wire import _HAND_TO_LEGAL, _INFO_HAND

    for card in range(52):
        expected = pb.PlayRequest(legal_cards=[card_to_pb(card)]).SerializeToString()
        assert _INFO_HAND[card].translate(_HAND_TO_LEGAL) == expected


def test_wire_encoder_hands_of_any_cards() -> None:
    """A hand by the suit tables is its cards' entries, lowest first, for any set of cards."""
    from arena.referee.wire import _INFO_HAND, _hand_bytes

    PythonRequestEncoder("t", RuleSet())  # the first Python encoder makes the tables
    rng = random.Random(7)
    masks = [0, (1 << 52) - 1] + [rng.getrandbits(52) for _ in range(2000)]
    for mask in masks:
        cards = [c for c in range(52) if mask >> c & 1]
        assert _hand_bytes(mask) == b"".join(_INFO_HAND[c] for c in cards)


def test_wire_encoder_refuses_a_match_that_is_over(encoder_class: Any) -> None:
    rng = random.Random(2)
    m = Match(2, RuleSet(max_hands=1))
    while not m.is_over:
        m.apply(m.random_action(rng))
    with pytest.raises(ValueError, match="the match is over"):
        encoder_class("over", m.rules).encode(m, m.to_act, m.decision, SeatClock(ClockConfig()))


@pytest.mark.parametrize("seed", range(48))
def test_c_encoder_writes_the_python_encoders_bytes(seed: int) -> None:
    """Byte for byte the reference's, at every decision of whole matches of every rule set:
    public and private draws (R-2.2), Double Nil on and off (R-3.3), Nil tricks as bags or
    not (R-5.3), negative scores, long match ids, clocks that change."""
    c_encoder = _c_encoder()
    rules = RuleSet(
        draw_decision_public=seed % 2 == 0,
        double_nil_allowed=seed % 3 != 0,
        nil_tricks_count_as_bags=seed % 5 == 0,
        target_score=(100, 250, 500, 100_000)[seed % 4],
        max_hands=(10, 3, 20, 6)[seed % 4],
    )
    rng = random.Random(seed)
    m = Match(seed, rules)
    match_id = f"m-{seed}-ü" * (1 + seed % 40)  # to 280 bytes: a two-byte length
    reference, fast = PythonRequestEncoder(match_id, rules), c_encoder(match_id, rules)
    clock = SeatClock(
        ClockConfig(
            move_time_ms=(1, 250, 1000, 2**31 - 1)[seed % 4], time_bank_ms=(0, 3000)[seed % 2]
        )
    )
    count = 0
    while not m.is_over:
        if rng.random() < 0.05:
            clock.charge(clock.move_ns + rng.randrange(100_000_000))
        args = (m, m.to_act, m.decision, clock)
        assert fast.encode(*args) == reference.encode(*args), (m.decision, count)
        count += 1
        if m.decision is Decision.BID and rng.random() < 0.3:
            m.apply(13 if rng.random() < 0.5 else 0)  # sets and Nils: scores below zero
        else:
            m.apply(m.random_action(rng))
    assert count > 50


class _Engine:
    """A stand-in match whose ``information_set`` gives what a broken engine might."""

    def __init__(self, info: tuple[Any, ...], legal_mask: Any = 0) -> None:
        self.info = info
        self.legal_mask = legal_mask

    def information_set(self, seat: int) -> tuple[Any, ...]:
        return self.info


class _Index:
    """An int-like object whose conversion would run Python code."""

    def __index__(self) -> int:
        raise AssertionError("the C encoder ran an object's __index__")


def _good_info() -> list[Any]:
    m = Match(3)
    return list(m.information_set(m.to_act))


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        (2, "hand", TypeError),  # the hand: not a mask
        (2, 1 << 52, ValueError),  # a card above the 52
        (2, -1, OverflowError),
        (3, 52, ValueError),  # looking at a card that is none
        (4, {1, 2}, TypeError),  # the discards: not a list
        (4, [7, -1], ValueError),
        (6, (None,), TypeError),  # the seats: not a pair
        (6, (1, 2), AttributeError),  # not seat views
        (7, [1, 2, 3], ValueError),  # three cards played and no trick won
        (8, [5], ValueError),  # a trick won by seat 5 (with its two cards)
        (1, 2, ValueError),  # a first drawer that is not a seat
        (5, _Index(), TypeError),  # an int-like object: refused, its __index__ never run
        (4, [_Index()], TypeError),
    ],
)
def test_c_encoder_refuses_a_broken_information_set(field: int, value: Any, error: type) -> None:
    """The C encoder checks what it reads: a wrong value from the engine is a Python exception
    naming it, never a crash or a request with a card that is none."""
    c_encoder = _c_encoder()
    info = _good_info()
    info[field] = value
    if field == 8:
        info[7] = [0, 1]
    encoder = c_encoder("x", RuleSet())
    with pytest.raises(error):
        encoder.encode(_Engine(tuple(info)), 0, Decision.DRAW, SeatClock(ClockConfig()))


def test_c_encoder_refuses_a_short_tuple_and_a_legal_card_not_held() -> None:
    encoder = _c_encoder()("x", RuleSet())
    good = _good_info()
    with pytest.raises(TypeError, match="11-tuple"):
        encoder.encode(_Engine(tuple(good[:10])), 0, Decision.DRAW, SeatClock(ClockConfig()))
    missing = next(c for c in range(52) if not good[2] >> c & 1)
    with pytest.raises(ValueError, match="not in the hand"):  # a legal card it does not hold
        encoder.encode(
            _Engine(tuple(good), 1 << missing), 0, Decision.PLAY, SeatClock(ClockConfig())
        )


def test_c_encoder_made_without_init_refuses_to_encode() -> None:
    c_encoder = _c_encoder()
    bare = c_encoder.__new__(c_encoder)
    m = Match(1)
    with pytest.raises(RuntimeError, match="__init__ was not called"):
        bare.encode(m, m.to_act, m.decision, SeatClock(ClockConfig()))


def test_the_referee_uses_the_c_encoder_unless_told_otherwise() -> None:
    """``RequestEncoder`` is the C one where it was built; ``ARENA_WIRE=python`` asks for the
    reference (for comparisons)."""
    _c_encoder()
    assert RequestEncoder is C_ENCODER
    code = "from arena.referee.wire import RequestEncoder as E; print(E.__name__)"
    env = {**os.environ, "ARENA_WIRE": "python"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "PythonRequestEncoder"


# -- records ---------------------------------------------------------------------------------


def _random_match(seed: int, rules: RuleSet = RuleSet(), faults: bool = False) -> MatchResult:  # noqa: B008
    """A result as the referee would record it, played by random choices in-process."""
    from datetime import UTC, datetime

    rng = random.Random(seed)
    m = Match(seed, rules)
    decisions = []
    while not m.is_over:
        seat, decision = m.to_act, m.decision
        assert seat is not None and decision is not None
        action = m.random_action(rng)
        fault = FaultKind.TIMEOUT if faults and rng.random() < 0.01 else None
        m.apply(action)
        decisions.append(DecisionRecord(seat, decision, action, rng.randrange(10**7), fault))
    outcome = m.outcome
    assert outcome is not None
    now = datetime.now(UTC)
    return MatchResult(
        match_id=f"r{seed}",
        seed=seed,
        rules=rules,
        engine_version=ENGINE_VERSION,
        players=("alpha", "beta"),
        winner=outcome.winner,
        scores=outcome.scores,
        hands_played=outcome.hands_played,
        termination=Termination(outcome.termination.value),
        faults=(
            sum(1 for d in decisions if d.seat == 0 and d.fault),
            sum(1 for d in decisions if d.seat == 1 and d.fault),
        ),
        detail="",
        decisions=tuple(decisions),
        started_at=now,
        finished_at=now,
    )


def test_result_json_round_trip() -> None:
    result = _random_match(5, RuleSet(target_score=300), faults=True)
    assert any(d.fault for d in result.decisions)
    data = json.loads(json.dumps(result_to_dict(result)))
    assert data["termination"] == result.termination.value
    assert result_from_dict(data) == result


def test_compact_decisions_round_trip() -> None:
    result = _random_match(8, faults=True)
    assert decode_decisions(encode_decisions(result.decisions)) == result.decisions


def test_replay_rebuilds_scores_and_hands() -> None:
    for seed in range(4):
        result = _random_match(seed, RuleSet(target_score=250))
        m = verify(result)
        assert m.scores == result.scores
        assert len(m.hand_results) == result.hands_played
        assert replay((result.seed, result.rules, result.decisions)).scores == result.scores


def test_replay_catches_a_tampered_record() -> None:
    result = _random_match(3, RuleSet(target_score=250))
    with pytest.raises(ReplayError, match="scores"):
        verify(replace(result, scores=(result.scores[0] + 1, result.scores[1])))
    with pytest.raises(ReplayError, match=r"decision \d+"):
        replay((result.seed + 1, result.rules, result.decisions))
    with pytest.raises(ReplayError, match="engine"):
        verify(replace(result, engine_version="0.0-other"))
    plays = [i for i, d in enumerate(result.decisions) if d.decision is Decision.PLAY]
    i = plays[5]
    bad = list(result.decisions)
    bad[i] = replace(bad[i], action=(bad[i].action + 1) % 52)  # type: ignore[operator]
    with pytest.raises(ReplayError, match=f"decision {i + 1}"):
        replay((result.seed, result.rules, bad))


def test_render_text_tells_hands_and_tricks() -> None:
    result = _random_match(2, RuleSet(target_score=200))
    text = render_text(result)
    m = replay(result)
    first = m.hand_results[0]
    assert "Hand 1 (first drawer: alpha)" in text
    assert f"-> score {first.scores[0]}" in text
    assert "Bids: " in text
    assert text.count("\n   1. ") == result.hands_played
    assert text.count("\n  13. ") == result.hands_played
    assert f"Result: seat {result.winner}" in text
    data = replay_to_dict(result)
    assert len(data["hands"]) == result.hands_played
    assert all(len(h["tricks"]) == 13 for h in data["hands"])
    assert data["hands"][-1]["result"]["scores"] == list(result.scores)
    json.dumps(data)


def test_unplayed_result() -> None:
    r = unplayed_result(("a", "b"), seed=3, forfeit_seat=1, detail="seat 1 (b): did not start")
    assert r.winner == 0 and r.termination is Termination.FORFEIT_NO_START
    assert r.faults == (0, 1) and r.decisions == ()
    assert "seat 0 (a) wins by forfeit (no start)" in render_text(r)
    r = unplayed_result(("a", "b"), seed=3, forfeit_seat=None, detail="neither started")
    assert r.winner is None and r.termination is Termination.FORFEIT_NO_START
    assert r.faults == (1, 1)
    assert "neither bot could be started" in render_text(r)
