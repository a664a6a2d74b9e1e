"""arena.bot_protocol.messages: engine values <-> spades.v1 messages, and malformed answers."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from google.protobuf.message import Message

from arena._gen.spades.v1 import bot_pb2 as pb
from arena.bot_protocol import messages
from arena.bot_protocol.messages import (
    MalformedAnswerError,
    action_from_response,
    action_to_response,
)
from arena.referee.record import Termination as RefereeTermination
from arena.rules import Decision, Match, Observation, RuleSet, Termination, parse_card
from arena.rules.cards import card_name
from arena.rules.observation import TrickView

CLOCK = pb.Clock(move_time_ms=750, time_bank_ms=12_000)


def observations(
    seed: int, rules: RuleSet | None = None, double_nil: bool = False
) -> Iterator[tuple[Match, Observation]]:
    """Every decision of the first three hands of a random match, as the acting seat sees it.

    Double Nil is declined unless ``double_nil``, so that the hands have bids and the discard
    pile stays put (an exchange draws from it, R-3.4)."""
    m, rng = Match(seed, rules or RuleSet()), random.Random(seed)
    while not m.is_over and m.hand_number <= 3:
        seat = m.to_act
        assert seat is not None
        yield m, m.observation(seat)
        if m.decision is Decision.DOUBLE_NIL and not double_nil:
            m.apply(False)
        else:
            m.apply(m.random_action(rng))


def double_nil_match(seed: int = 5) -> Match:
    """A match at seat 0's exchange: it declared Double Nil and drew its cards."""
    m, rng = Match(seed), random.Random(seed)
    while m.decision is not Decision.EXCHANGE:
        m.apply(
            True
            if m.decision is Decision.DOUBLE_NIL and m.to_act == 0
            else False
            if m.decision is Decision.DOUBLE_NIL
            else m.random_action(rng)
        )
    return m


# -- cards -----------------------------------------------------------------------------------


def test_every_card_round_trips_and_names_its_suit_and_rank() -> None:
    for card in range(52):
        msg = messages.card_to_pb(card)
        assert messages.card_from_pb(msg) == card
        name = card_name(card)
        assert pb.Rank.Name(msg.rank).endswith(
            {"T": "TEN", "J": "JACK", "Q": "QUEEN", "K": "KING", "A": "ACE"}.get(name[0], "")
        )
        assert (
            pb.Suit.Name(msg.suit)
            == "SUIT_" + {"c": "CLUBS", "d": "DIAMONDS", "h": "HEARTS", "s": "SPADES"}[name[1]]
        )
    assert messages.card_to_pb(parse_card("As")) == pb.Card(suit=pb.SUIT_SPADES, rank=pb.RANK_ACE)
    assert messages.card_to_pb(parse_card("2c")) == pb.Card(suit=pb.SUIT_CLUBS, rank=pb.RANK_TWO)


@pytest.mark.parametrize(
    ("suit", "rank"),
    [
        (pb.SUIT_UNSPECIFIED, pb.RANK_ACE),
        (pb.SUIT_SPADES, pb.RANK_UNSPECIFIED),
        (pb.SUIT_HEARTS, 1),
        (pb.SUIT_HEARTS, 15),
        (5, pb.RANK_TWO),
        (-1, pb.RANK_TWO),
        (pb.SUIT_CLUBS, -14),
    ],
)
def test_a_card_that_is_not_a_card_is_malformed(suit: int, rank: int) -> None:
    with pytest.raises(MalformedAnswerError, match="not a card"):
        messages.card_from_pb(pb.Card(suit=suit, rank=rank))


def test_out_of_range_enum_values_from_the_wire_are_malformed() -> None:
    # A bot in another language may put any int32 on the wire: rank 15 of suit 4 (field 1 = 4,
    # field 2 = 15), inside PlayResponse.card (field 1).
    card_bytes = bytes([0x08, 4, 0x10, 15])
    raw = bytes([0x0A, len(card_bytes)]) + card_bytes
    response = pb.PlayResponse.FromString(raw)
    assert response.card.rank == 15
    with pytest.raises(MalformedAnswerError, match="rank 15"):
        action_from_response(Decision.PLAY, response)


# -- rule set, tricks, hand results ----------------------------------------------------------


@pytest.mark.parametrize(
    "rules",
    [
        RuleSet(),
        RuleSet(
            target_score=250,
            max_hands=7,
            draw_decision_public=True,
            double_nil_allowed=False,
            nil_tricks_count_as_bags=True,
        ),
    ],
)
def test_ruleset_round_trips(rules: RuleSet) -> None:
    assert messages.ruleset_from_pb(messages.ruleset_to_pb(rules)) == rules


def test_hand_results_and_their_tricks_round_trip() -> None:
    m, rng = Match(11), random.Random(11)
    while len(m.hand_results) < 2:
        m.apply(m.random_action(rng))
    for result in m.hand_results:
        assert len(result.tricks) == 13
        req = messages.end_hand_request("m1", 1, result)
        assert req.match_id == "m1" and req.seat == 1
        assert list(req.result.scores) == list(result.scores)
        assert messages.hand_result_from_pb(req.result, req.tricks) == result
        assert messages.hand_result_from_pb(messages.hand_result_to_pb(result)).scores == (
            result.scores
        )


def test_terminations_of_the_engine_and_the_referee_all_have_a_protocol_value() -> None:
    for t in [*Termination, *RefereeTermination]:
        value = messages.termination_to_pb(t)
        assert value != pb.TERMINATION_UNSPECIFIED
        assert messages.termination_from_pb(value) == t.value
    assert messages.termination_from_pb(999) == "unspecified"


def test_notices() -> None:
    start = messages.start_match_request("m7", 1, RuleSet(target_score=300), "rival", CLOCK)
    assert (start.match_id, start.seat, start.opponent) == ("m7", 1, "rival")
    assert start.rules.target_score == 300 and start.clock.time_bank_ms == 12_000
    end = messages.end_match_request("m7", 0, None, (120, 510), 9, Termination.TARGET_REACHED)
    assert not end.HasField("winner")
    assert end.termination == pb.TERMINATION_TARGET_REACHED
    end = messages.end_match_request(
        "m7", 0, 1, (0, 0), 0, RefereeTermination.FORFEIT_TIMEOUT, "seat 0 did not answer"
    )
    assert end.winner == 1 and end.termination == pb.TERMINATION_FORFEIT_TIMEOUT
    assert end.detail == "seat 0 did not answer"


# -- the information set ---------------------------------------------------------------------


@pytest.mark.parametrize("rules", [RuleSet(), RuleSet(draw_decision_public=True)])
def test_information_sets_round_trip_for_every_decision(rules: RuleSet) -> None:
    seen = set()
    for _, obs in observations(3, rules, double_nil=True):
        info = messages.info_set(obs)
        back = messages.observation_from_pb(info, obs.decision)
        assert back == obs
        # and the message survives the wire
        again = pb.InformationSet.FromString(info.SerializeToString())
        assert messages.observation_from_pb(again, obs.decision) == obs
        seen.add(obs.decision)
    assert seen == set(Decision)


def test_the_information_set_holds_what_the_player_may_know() -> None:
    for m, obs in observations(8):
        info = messages.info_set(obs)
        seat = obs.seat
        assert info.seat == seat
        assert [messages.card_from_pb(c) for c in info.hand] == list(m.hand(seat))
        assert info.HasField("looking_at") == (obs.decision is Decision.DRAW)
        opp = m.hand(1 - seat)
        shown = {messages.card_from_pb(c) for c in info.hand} | {
            messages.card_from_pb(c) for c in info.own_discards
        }
        played = {messages.card_from_pb(c) for t in info.tricks for c in t.cards}
        # never the opponent's cards, except those it has played
        assert not (set(opp) & (shown - played))
        for s in (0, 1):
            assert info.seats[s].HasField("bid") == (obs.seats[s].bid is not None)


def test_build_request_for_each_decision() -> None:
    kinds: dict[Decision, Message] = {}
    for m, obs in observations(21):
        d = obs.decision
        assert d is not None
        legal = m.legal_actions() if d in (Decision.PLAY, Decision.BID) else []
        req = messages.build_request(d, "match-21", obs, legal, CLOCK)
        assert isinstance(req, messages.RPCS[d].request_type)
        assert req.match_id == "match-21"
        assert (req.clock.move_time_ms, req.clock.time_bank_ms) == (750, 12_000)
        assert messages.observation_from_pb(req.info, d) == obs
        if d is Decision.PLAY:
            assert [messages.card_from_pb(c) for c in req.legal_cards] == legal
        if d is Decision.BID:
            assert list(req.legal_bids) == legal == list(range(14))
        if d is Decision.DRAW:
            assert messages.card_from_pb(req.info.looking_at) == obs.looking_at
        kinds[d] = req
    assert set(kinds) == {Decision.DOUBLE_NIL, Decision.DRAW, Decision.BID, Decision.PLAY}
    m = double_nil_match()
    req = messages.build_request(Decision.EXCHANGE, "x", m.observation(0), [], CLOCK)
    assert isinstance(req, pb.ExchangeRequest) and req.max_cards == 3
    assert len(req.info.hand) == 13 and req.info.seats[0].double_nil


def test_requests_after_her_exchange_carry_her_own_put_aside_cards() -> None:
    """Information set: a Double Nil bidder's own put-aside cards (R-3.4), in every later
    request of the hand and in no request of the opponent's."""
    m = double_nil_match()
    before = messages.build_request(Decision.EXCHANGE, "x", m.observation(0), [], CLOCK)
    assert list(before.info.own_put_aside) == []
    aside = m.hand(0)[-3:]
    m.apply(aside)
    asked = 0
    while m.decision is not None and m.hand_number == 1:
        seat = m.to_act
        assert seat is not None
        obs = m.observation(seat)
        legal = m.legal_actions() if m.decision in (Decision.PLAY, Decision.BID) else []
        req = messages.build_request(m.decision, "x", obs, legal, CLOCK)
        got = tuple(messages.card_from_pb(c) for c in req.info.own_put_aside)
        assert got == (aside if seat == 0 else ())
        back = messages.observation_from_pb(req.info, m.decision)
        assert back.own_put_aside == got and back == obs
        asked += seat == 0
        m.apply(m.legal_actions()[0])
    assert asked == 13  # her 13 plays (a Double Nil bidder makes no bid)


def test_a_malformed_put_aside_card_is_malformed() -> None:
    m = double_nil_match()
    m.apply(m.hand(0)[:1])
    info = messages.info_set(m.observation(0))
    info.own_put_aside.add(suit=pb.SUIT_UNSPECIFIED, rank=pb.RANK_TWO)
    with pytest.raises(messages.MalformedMessageError, match="put-aside card"):
        messages.observation_from_pb(info)


def test_the_clock_is_clamped_to_what_int32_milliseconds_can_say() -> None:
    class Clock:
        move_time_ms = -5
        time_bank_ms = 2**40

    _, obs = next(observations(1))
    req = messages.build_request(Decision.DOUBLE_NIL, "m", obs, [], Clock())
    assert (req.clock.move_time_ms, req.clock.time_bank_ms) == (0, 2**31 - 1)


def test_rpcs_name_the_service_methods_and_their_messages() -> None:
    service = pb.DESCRIPTOR.services_by_name["BotService"]
    assert service.full_name == messages.SERVICE_NAME
    for decision, rpc in messages.RPCS.items():
        assert rpc.decision is decision and messages.rpc_for(decision) is rpc
        method = service.methods_by_name[rpc.name]
        assert method.input_type is rpc.request_type.DESCRIPTOR
        assert method.output_type is rpc.response_type.DESCRIPTOR
        assert rpc.path == f"/spades.v1.BotService/{rpc.name}"


# -- answers ---------------------------------------------------------------------------------


def test_every_legal_action_round_trips_through_its_response() -> None:
    checked = 0
    for m, obs in observations(4):
        d = obs.decision
        assert d is not None
        if d is Decision.EXCHANGE:
            continue
        for action in m.legal_actions():
            response = action_to_response(d, action)
            assert isinstance(response, messages.RPCS[d].response_type)
            wire = type(response).FromString(response.SerializeToString())
            assert action_from_response(d, wire) == action
            checked += 1
    assert checked > 400
    m = double_nil_match()
    for action in m.legal_actions()[:500]:
        assert (
            action_from_response(Decision.EXCHANGE, action_to_response(Decision.EXCHANGE, action))
            == action
        )


def test_simple_answers() -> None:
    keep = pb.DrawResponse(choice=pb.DRAW_CHOICE_KEEP)
    reject = pb.DrawResponse(choice=pb.DRAW_CHOICE_REJECT)
    assert action_from_response(Decision.DRAW, keep) is True
    assert action_from_response(Decision.DRAW, reject) is False
    declare = pb.DecideDoubleNilResponse(choice=pb.DOUBLE_NIL_CHOICE_DECLARE)
    decline = pb.DecideDoubleNilResponse(choice=pb.DOUBLE_NIL_CHOICE_DECLINE)
    assert action_from_response(Decision.DOUBLE_NIL, declare) is True
    assert action_from_response(Decision.DOUBLE_NIL, decline) is False
    assert action_from_response(Decision.BID, pb.BidResponse(tricks=0)) == 0  # Nil, set
    unsorted = pb.ExchangeResponse(
        cards=[messages.card_to_pb(c) for c in (parse_card("Kh"), parse_card("2c"))]
    )
    assert action_from_response(Decision.EXCHANGE, unsorted) == (
        parse_card("2c"),
        parse_card("Kh"),
    )
    assert action_from_response(Decision.EXCHANGE, pb.ExchangeResponse()) == ()


@pytest.mark.parametrize(
    ("decision", "response", "message"),
    [
        (Decision.PLAY, pb.PlayResponse(), "not set"),
        (Decision.PLAY, pb.PlayResponse(card=pb.Card(rank=pb.RANK_ACE)), "SUIT_UNSPECIFIED"),
        (Decision.PLAY, pb.PlayResponse(card=pb.Card(suit=pb.SUIT_SPADES, rank=1)), "rank 1"),
        (Decision.PLAY, pb.PlayResponse(card=pb.Card(suit=pb.SUIT_SPADES, rank=15)), "rank 15"),
        (Decision.BID, pb.BidResponse(), "never Nil"),
        (Decision.DRAW, pb.DrawResponse(), "DRAW_CHOICE_UNSPECIFIED"),
        (Decision.DRAW, pb.DrawResponse(choice=7), "is 7"),
        (Decision.DOUBLE_NIL, pb.DecideDoubleNilResponse(), "DOUBLE_NIL_CHOICE_UNSPECIFIED"),
        (Decision.DOUBLE_NIL, pb.DecideDoubleNilResponse(choice=-3), "is -3"),
        (
            Decision.EXCHANGE,
            pb.ExchangeResponse(cards=[messages.card_to_pb(5), messages.card_to_pb(5)]),
            "twice",
        ),
        (
            Decision.EXCHANGE,
            pb.ExchangeResponse(cards=[messages.card_to_pb(5), pb.Card(suit=pb.SUIT_CLUBS)]),
            "not a card",
        ),
    ],
)
def test_malformed_answers_are_rejected(
    decision: Decision, response: Message, message: str
) -> None:
    with pytest.raises(MalformedAnswerError, match=message):
        action_from_response(decision, response)


def test_well_formed_but_illegal_answers_are_left_to_the_engine() -> None:
    m = next(m for m, obs in observations(2) if obs.decision is Decision.BID)
    for tricks in (-1, 14):
        action = action_from_response(Decision.BID, pb.BidResponse(tricks=tricks))
        assert action == tricks and not m.is_legal(action)
    m = next(m for m, obs in observations(2) if obs.decision is Decision.PLAY)
    seat = m.to_act
    assert seat is not None
    not_mine = next(c for c in range(52) if c not in m.hand(seat))
    action = action_from_response(Decision.PLAY, action_to_response(Decision.PLAY, not_mine))
    assert action == not_mine and not m.is_legal(action)
    four = action_from_response(
        Decision.EXCHANGE,
        pb.ExchangeResponse(cards=[messages.card_to_pb(c) for c in (1, 2, 3, 4)]),
    )
    assert four == (1, 2, 3, 4)  # too many is illegal, not malformed
    assert not double_nil_match().is_legal(four)


def test_a_malformed_information_set_is_reported_not_guessed() -> None:
    _, obs = next(o for o in observations(6) if o[1].decision is Decision.PLAY)
    info = messages.info_set(obs)
    info.hand[0].rank = 15
    with pytest.raises(messages.MalformedMessageError, match="hand card is not a card"):
        messages.observation_from_pb(info, Decision.PLAY)
    info = messages.info_set(obs)
    info.tricks.add(leader=1).cards.add(suit=pb.SUIT_HEARTS)
    with pytest.raises(messages.MalformedMessageError, match="trick card is not a card"):
        messages.observation_from_pb(info, Decision.PLAY)
    info = messages.info_set(obs)
    del info.seats[1]
    with pytest.raises(messages.MalformedMessageError, match="needs 2 seats"):
        messages.observation_from_pb(info, Decision.PLAY)


def test_decoded_tricks_are_cached_only_when_they_can_be_real() -> None:
    odd = pb.Trick(leader=1, cards=[messages.card_to_pb(3)], winner=9)
    info = pb.InformationSet(tricks=[odd, odd])
    decoded = messages._tricks_from_pb(info.tricks)
    assert decoded[0].winner == 9 and decoded[0] == decoded[1]
    assert odd.SerializeToString(deterministic=True) not in messages._TRICKS_OF
    real = pb.Trick(leader=0, cards=[messages.card_to_pb(3), messages.card_to_pb(9)], winner=0)
    assert messages._tricks_from_pb([real]) == (TrickView(leader=0, cards=(3, 9), winner=0),)
    assert real.SerializeToString(deterministic=True) in messages._TRICKS_OF


def test_the_trick_cache_stays_bounded_whatever_the_sender_adds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Unknown fields survive in the wire bytes, so each of these is a new cache key.
    monkeypatch.setattr(messages, "_TRICKS_OF", {})  # fill a scratch cache, not the real one

    def varint(n: int) -> bytes:
        out = bytearray()
        while True:
            out.append(n & 0x7F | (0x80 if n > 0x7F else 0))
            n >>= 7
            if not n:
                return bytes(out)

    base = pb.Trick(leader=1, cards=[messages.card_to_pb(7)]).SerializeToString()
    expected = (TrickView(leader=1, cards=(7,), winner=None),)
    for i in range(messages._TRICKS_CACHED + 2_000):
        msg = pb.Trick.FromString(base + varint(1000 << 3) + varint(i))
        assert messages._tricks_from_pb([msg]) == expected
    assert len(messages._TRICKS_OF) <= messages._TRICKS_CACHED
