"""The conventions a bot author meets in the requests (docs/writing-a-bot.md, "What a bot author
meets"), checked on the requests the referee really builds."""

from __future__ import annotations

import random
from pathlib import Path

from bot_process import CLOCK

from arena.bot_protocol import messages
from arena.referee import Termination, play_match, unplayed_result
from arena.rules import Decision, Match, RuleSet
from arena.runtime import load_manifest, start_bot

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "bots" / "hostile" / "bot.py"
RANDOM = ROOT / "sample_bots" / "random"


def _request(m: Match):
    seat, decision = m.to_act, m.decision
    assert seat is not None and decision is not None
    legal = m.legal_actions() if decision in (Decision.PLAY, Decision.BID) else []
    return messages.build_request(decision, "c", m.observation(seat), legal, CLOCK)


def test_the_stock_count_of_a_draw_excludes_the_card_looked_at() -> None:
    """R-2.1: the card looked at has left the stock; the turn's second card is still in it."""
    m = Match(4, RuleSet(double_nil_allowed=False))
    counts = []
    while m.decision is Decision.DRAW:
        req = _request(m)
        assert req.info.HasField("looking_at")
        counts.append(req.info.stock_size)
        m.apply(True)
    assert counts == list(range(51, 0, -2))  # 26 turns: 51, 49, …, 1
    assert _request(m).info.stock_size == 0  # bidding: the stock is empty


def test_a_double_nil_seats_bid_is_a_present_zero_from_the_declaration_on() -> None:
    """R-3.3: the declaration is the bid; both seats see it at once, as a present 0."""
    m = Match(9)
    m.apply(True)  # the first drawer, seat 0, declares before her first draw
    seen = set()
    while m.hand_number == 1:
        req = _request(m)
        seat0 = req.info.seats[0]
        assert seat0.double_nil and seat0.HasField("bid") and seat0.bid == 0, m.decision
        seen.add((req.info.seat, m.decision))
        assert m.decision is not Decision.BID or m.to_act == 1  # she is never asked to bid
        m.apply(() if m.decision is Decision.EXCHANGE else m.legal_actions()[0])
    assert {(1, Decision.DRAW), (0, Decision.EXCHANGE), (1, Decision.BID)} <= seen


def test_own_discards_stay_as_they_were_after_an_exchange() -> None:
    """R-2.2 and R-3.4: an exchange may draw a discard back; the list does not change."""
    for seed in range(40):
        m, rng = Match(seed), random.Random(seed)
        while m.decision is not Decision.EXCHANGE:
            m.apply(m.to_act == 0 if m.decision is Decision.DOUBLE_NIL else m.random_action(rng))
        if m.to_act != 0:
            continue
        before = m.observation(0).own_discards
        hand = m.hand(0)
        m.apply(hand[:3])
        after = m.observation(0)
        assert after.own_discards == before and after.own_put_aside == hand[:3]
        drawn = set(after.hand) - set(hand)
        if drawn & set(before):  # one of her own discards came back into her hand
            return
    raise AssertionError("no seed drew an own discard back: the test needs another seed range")


def test_hands_played_of_a_forfeit_counts_the_hands_scored(tmp_path: Path) -> None:
    """A forfeit in hand 2 says 1 hand played (the EndMatch notice carries the same count); a
    bot that never started, 0."""
    folder = tmp_path / "hostile_error"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "hostile_error"\ncommand = ["{{python}}", "{HOSTILE}"]\n\n'
        '[env]\nHOSTILE_MODE = "error"\nHOSTILE_AFTER = "40"\n'  # 28 decisions a hand
    )
    with start_bot(load_manifest(folder)) as bad, start_bot(load_manifest(RANDOM)) as good:
        result = play_match((bad, good), seed=2, rules=RuleSet(double_nil_allowed=True))
    assert result.termination is Termination.FORFEIT_ERROR_STATUS, result.detail
    answered = [d for d in result.decisions if d.seat == 0]
    assert len(answered) == 40  # 28 of hand 1, 12 of hand 2; the 41st failed
    assert result.hands_played == 1
    unplayed = unplayed_result(("a", "b"), seed=1, forfeit_seat=0, detail="seat 0: did not start")
    assert unplayed.hands_played == 0
