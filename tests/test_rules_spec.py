"""The rules of spades-rules.md, one test (or more) per rule id, and the worked examples E-1…E-8.

Positions are built with ``Match.from_stocks``: ``stock_for`` orders a stock so that, when both
players keep every card they look at, each seat ends the draw with the cards chosen for it.
``winner_of(k)`` is a hand that wins exactly k tricks against ``loser_of(k)`` when both play
their highest legal card (the top k spades and 13-k low clubs, against the rest of the black
suits), whoever leads; the pile then holds all the red cards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from arena.rules import (
    ENGINE_VERSION,
    FULL_DECK,
    SPADES,
    Decision,
    IllegalActionError,
    Match,
    MatchOverError,
    RuleSet,
    Termination,
    WrongDecisionError,
    bag_penalty,
    card_name,
    cards_of,
    exchange_order,
    hand_points,
    make_card,
    mask_of,
    parse_card,
    rank_of,
    stock_order,
    suit_of,
)

C = parse_card
BLACK = [*range(0, 13), *range(39, 52)]


def cards(text: str) -> list[int]:
    return [C(t) for t in text.split()]


def stock_for(first: Sequence[int], second: Sequence[int]) -> list[int]:
    """A stock giving ``first`` to the first drawer and ``second`` to the other if both keep."""
    taken = set(first) | set(second)
    assert len(taken) == 26
    rest = [c for c in range(52) if c not in taken]
    stock: list[int] = []
    for i in range(13):
        stock += [first[i], rest[2 * i], second[i], rest[2 * i + 1]]
    return stock


def seats_stock(hand_number: int, seat0: Sequence[int], seat1: Sequence[int]) -> list[int]:
    """``stock_for`` by seat: seat 0 draws first in odd hands, seat 1 in even ones (R-7.1)."""
    return stock_for(seat0, seat1) if hand_number % 2 else stock_for(seat1, seat0)


def winner_of(k: int) -> list[int]:
    return [make_card(SPADES, 14 - i) for i in range(k)] + list(range(13 - k))


def loser_of(k: int) -> list[int]:
    mine = set(winner_of(k))
    return [c for c in BLACK if c not in mine]


def tricks_stock(hand_number: int, seat0_tricks: int) -> list[int]:
    """A stock where seat 0 wins ``seat0_tricks`` tricks, seat 1 the rest (both play highest)."""
    return seats_stock(hand_number, winner_of(seat0_tricks), loser_of(seat0_tricks))


def highest(m: Match) -> int:
    return max(m.legal_actions())  # type: ignore[type-var]


def play_hand(
    m: Match,
    bids: tuple[int, int] = (1, 1),
    double_nil: tuple[bool, bool] = (False, False),
    exchange: Callable[[Match], tuple[int, ...]] = lambda m: (),
    pick: Callable[[Match], int] = highest,
    keep: bool = True,
):
    """Play the current hand to its end with the given choices; return its HandResult."""
    h = m.hand_number
    while not m.is_over and m.hand_number == h:
        d, s = m.decision, m.to_act
        assert s is not None
        if d is Decision.DOUBLE_NIL:
            m.apply(double_nil[s])
        elif d is Decision.DRAW:
            m.apply(keep)
        elif d is Decision.EXCHANGE:
            m.apply(exchange(m))
        elif d is Decision.BID:
            m.apply(bids[s])
        else:
            m.apply(pick(m))
    return m.hand_results[h - 1]


def to_play(m: Match, bids: tuple[int, int] = (1, 1)) -> Match:
    """Advance to the first card play: no Double Nil, keep every card, the given bids."""
    while m.decision is not Decision.PLAY:
        d, s = m.decision, m.to_act
        assert s is not None
        m.apply(bids[s] if d is Decision.BID else d is Decision.DRAW)
    return m


def positioned(seat0: str, seat1: str) -> Match:
    """Hand 1 with the given 13-card hands (seat 1 leads), at the first card play."""
    return to_play(Match.from_stocks([seats_stock(1, cards(seat0), cards(seat1))]))


def play(m: Match, *names: str) -> None:
    for name in names:
        m.apply(C(name))


# --- worked examples ------------------------------------------------------------------------


def test_e_1_bids_need_not_add_up_and_one_is_set():
    m = Match(7)  # A is seat 1, the second player, who bids first
    result = play_hand(m, bids=(6, 8), pick=lambda m: m.legal_actions()[0])  # type: ignore[arg-type, return-value]
    assert result.bids == (6, 8)
    assert sum(result.tricks_won) == 13
    made = [result.tricks_won[s] >= result.bids[s] for s in (0, 1)]
    assert not all(made)
    for s, (bid, won) in enumerate(zip(result.bids, result.tricks_won, strict=True)):
        assert result.points[s] == (10 * bid + won - bid if made[s] else -10 * bid)


def test_e_2_bid_seven_win_eight():
    m = Match.from_stocks([tricks_stock(1, 8)])
    result = play_hand(m, bids=(7, 5))
    assert result.tricks_won == (8, 5)
    assert result.points[0] == 71
    assert m.bags[0] == 1
    assert hand_points(7, False, 8) == (71, 1)


@pytest.mark.parametrize(("nil_tricks", "points"), [(0, 100), (1, -100), (4, -100)])
def test_e_3_nil_against_nine(nil_tricks: int, points: int):
    m = Match.from_stocks([tricks_stock(1, nil_tricks)])
    result = play_hand(m, bids=(0, 9))
    assert result.tricks_won[0] == nil_tricks
    assert result.points[0] == points
    assert result.bags[0] == 0


def test_e_4_bags_over_hands_and_the_sandbag_penalty():
    stocks = [tricks_stock(1, 7), tricks_stock(2, 6), tricks_stock(3, 9), tricks_stock(4, 13)]
    m = Match.from_stocks(stocks)
    r1 = play_hand(m, bids=(4, 1))
    r2 = play_hand(m, bids=(3, 1))
    r3 = play_hand(m, bids=(4, 1))
    assert [r.tricks_won[0] for r in (r1, r2, r3)] == [7, 6, 9]
    assert [r.points[0] for r in (r1, r2, r3)] == [43, 33, 45]
    assert [r.bag_penalties[0] for r in (r1, r2, r3)] == [0, 0, -100]
    assert [r.bags[0] for r in (r1, r2, r3)] == [3, 6, 1]
    assert r3.scores[0] == 43 + 33 + 45 - 100
    r4 = play_hand(m, bids=(4, 0))  # nine more bags: the count reaches 10 again
    assert r4.tricks_won[0] == 13
    assert r4.points[0] == 49
    assert r4.bag_penalties[0] == -100
    assert r4.bags[0] == 0
    assert m.scores[0] == 43 + 33 + 45 - 100 + 49 - 100


def test_e_5_void_in_the_led_suit_may_trump_or_discard():
    m = positioned(
        "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc 2s",
        "2h 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad",
    )
    m.apply(C("2h"))  # a heart is led; seat 0 has none
    assert set(m.legal_actions()) == set(m.hand(0))
    trumped = m.copy()
    trumped.apply(C("2s"))
    assert trumped.observation(0).tricks[0].winner == 0
    assert trumped.observation(0).spades_broken
    m.apply(C("Kc"))
    assert m.observation(0).tricks[0].winner == 1
    assert not m.observation(0).spades_broken


def test_e_6_no_spade_lead_before_broken_unless_only_spades():
    m = positioned(
        "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac",
        "2h 3h 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs",
    )
    assert m.to_act == 1
    assert not m.is_legal(C("Qs"))
    with pytest.raises(IllegalActionError, match=r"R-4\.5"):
        m.apply(C("Qs"))
    only = positioned(
        "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac",
        "As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks",
    )
    assert only.legal_actions() == cards("2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As")
    only.apply(C("Qs"))
    assert only.observation(0).spades_broken


def hands_to(m: Match, plan: list[tuple[int, int]]) -> None:
    """Play hands where seat 0 bids and wins ``a`` tricks and seat 1 ``b`` (a + b = 13)."""
    for a, b in plan:
        play_hand(m, bids=(a, b))


def _winner_stocks(plan: list[int]) -> list[list[int]]:
    return [tricks_stock(h, k) for h, k in enumerate(plan, 1)]


def test_e_7_end_of_the_match():
    # 70-60 then 60-70: 130 each. With target 130 both have reached it with equal scores.
    m = Match.from_stocks(_winner_stocks([7, 6, 7]), RuleSet(target_score=130))
    hands_to(m, [(7, 6)])
    assert not m.is_over and m.scores == (70, 60)  # neither reached it: another hand
    hands_to(m, [(6, 7)])
    assert m.scores == (130, 130) and not m.is_over  # equal at the target: another hand
    hands_to(m, [(7, 6)])
    assert m.is_over
    assert m.outcome is not None
    assert m.outcome.winner == 0 and m.outcome.termination is Termination.TARGET_REACHED
    assert m.outcome.scores == (200, 190) and m.outcome.hands_played == 3
    # both over the target: the higher score wins (here seat 0 with 70 over 60)
    both = Match.from_stocks(_winner_stocks([7]), RuleSet(target_score=60))
    hands_to(both, [(7, 6)])
    assert both.outcome is not None and both.outcome.winner == 0
    # only one reached it
    one = Match.from_stocks(_winner_stocks([6]), RuleSet(target_score=65))
    hands_to(one, [(6, 7)])
    assert one.outcome is not None and one.outcome.winner == 1 and one.scores == (60, 70)


def test_e_8_double_nil_with_an_exchange():
    low = cards("2c 3c 4c 5c 6c 7c 8c 9c 2d 3d 4d 5d 6d")
    m = Match.from_stocks([stock_for(low, list(range(39, 52)))])  # seat 1 holds every spade
    m.apply(True)  # seat 0 declares before her first draw
    while m.decision is not Decision.EXCHANGE:
        m.apply(m.decision is Decision.DRAW)
    assert m.hand(0) == tuple(sorted(low)) and len(m.discard_pile) == 26
    pile = set(m.discard_pile)
    m.apply(tuple(cards("2c 3c 4c")))
    drawn = set(m.hand(0)) - set(low)
    assert len(drawn) == 3 and drawn <= pile and len(m.discard_pile) == 23
    result = play_hand(m, bids=(0, 5))
    assert result.bids[0] == 0 and result.double_nil == (True, False)
    assert result.tricks_won[0] == 0 and result.points[0] == 200
    ace = cards("As 3c 4c 5c 6c 7c 8c 9c Tc 2d 3d 4d 5d")
    lost = Match.from_stocks([stock_for(ace, cards("2c 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks"))])
    aside = tuple(cards("3c 4c Tc"))
    result = play_hand(lost, bids=(0, 5), double_nil=(True, False), exchange=lambda m: aside)
    assert result.tricks_won[0] >= 1  # the ace of spades wins whenever it is played
    assert result.points[0] == -200


# --- R-1 -------------------------------------------------------------------------------------


def test_r_1_1_cards_suits_and_ranks():
    assert [card_name(c) for c in (0, 12, 13, 38, 39, 51)] == ["2c", "Ac", "2d", "Ah", "2s", "As"]
    assert all(parse_card(card_name(c)) == c for c in range(52))
    assert parse_card("10h") == make_card(2, 10) == C("Th")
    assert (suit_of(C("Qd")), rank_of(C("Qd"))) == (1, 12)
    assert mask_of(range(52)) == FULL_DECK and cards_of(FULL_DECK) == tuple(range(52))
    assert sorted(stock_order(3, 1)) == list(range(52))
    with pytest.raises(ValueError, match="not a card"):
        parse_card("1x")


def test_r_1_1_spades_are_trump():
    m = positioned(
        "2s 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac",
        "Ah 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad",
    )
    play(m, "Ah", "2s")
    assert m.observation(1).tricks[0].winner == 0


def test_r_1_2_the_target_score_ends_the_match():
    m = Match.from_stocks([tricks_stock(1, 0)], RuleSet(target_score=100))
    play_hand(m, bids=(0, 13))
    assert m.is_over and m.outcome is not None
    assert m.scores == (100, 130) and m.outcome.winner == 1
    assert m.outcome.termination is Termination.TARGET_REACHED


def test_r_1_3_seat_0_is_the_first_drawer_of_the_first_hand():
    m = Match(11)
    assert (m.first_drawer, m.to_act, m.hand_number) == (0, 0, 1)
    assert m.observation(1).first_drawer == 0


# --- R-2 -------------------------------------------------------------------------------------


def test_r_2_1_keep_or_reject():
    stock = stock_order(5, 1)
    m = Match(5, RuleSet(double_nil_allowed=False))
    assert m.observation(0).looking_at == stock[0]
    m.apply(True)  # keep: the card looked at is kept, the next is discarded
    assert m.hand(0) == (stock[0],)
    assert m.observation(0).own_discards == (stock[1],)
    assert m.observation(1).looking_at == stock[2]
    m.apply(False)  # reject: the card looked at is discarded, the next is kept
    assert m.hand(1) == (stock[3],)
    assert m.observation(1).own_discards == (stock[2],)
    assert m.discard_pile == tuple(sorted((stock[1], stock[2])))


def test_r_2_1_a_draw_is_a_bool():
    m = Match(5, RuleSet(double_nil_allowed=False))
    for bad in (1, 0, "keep", None, (True,)):
        assert not m.is_legal(bad)  # type: ignore[arg-type]
        with pytest.raises(WrongDecisionError, match=r"R-2\.1") as err:
            m.apply(bad)  # type: ignore[arg-type]
        assert err.value.rule == "R-2.1"


def test_r_2_2_the_drawer_sees_both_cards_the_opponent_neither():
    stock = stock_order(8, 1)
    m = Match(8, RuleSet(double_nil_allowed=False))
    assert m.observation(1).looking_at is None
    m.apply(False)
    mine, theirs = m.observation(0), m.observation(1)
    assert mine.own_discards == (stock[0],) and mine.hand == (stock[1],)
    assert theirs.hand == () and theirs.own_discards == ()
    assert stock[0] not in theirs.hand + theirs.own_discards
    assert theirs.seats[0].draw_choices is None and mine.seats[0].draw_choices is None


def test_r_2_2_public_draw_decisions_when_the_rule_set_says_so():
    m = Match(8, RuleSet(double_nil_allowed=False, draw_decision_public=True))
    m.apply(False)
    m.apply(True)
    m.apply(True)
    assert m.observation(1).seats[0].draw_choices == (False, True)
    assert m.observation(0).seats[1].draw_choices == (True,)


def test_r_2_3_thirteen_turns_each_then_the_stock_is_empty():
    m = Match(21, RuleSet(double_nil_allowed=False))
    drawers = []
    while m.decision is Decision.DRAW:
        drawers.append(m.to_act)
        assert m.observation(0).stock_size == 52 - 2 * len(drawers) + 1
        m.apply(len(drawers) % 3 == 0)
    assert drawers == [0, 1] * 13
    assert len(m.hand(0)) == len(m.hand(1)) == 13
    assert len(m.discard_pile) == 26 and m.stock == ()
    assert m.observation(0).stock_size == 0
    assert len(m.observation(0).own_discards) == len(m.observation(1).own_discards) == 13
    assert m.decision is Decision.BID


# --- R-3 -------------------------------------------------------------------------------------


def test_r_3_1_a_bid_is_0_to_13():
    m = to_play_bidding(Match(4))
    assert m.legal_actions() == list(range(14))
    for bad in (14, -1, 100):
        assert not m.is_legal(bad)
        with pytest.raises(IllegalActionError, match=r"R-3\.1: a bid is a whole number"):
            m.apply(bad)
    for bad in (True, False, 3.0, "3", None):
        assert not m.is_legal(bad)  # type: ignore[arg-type]
        with pytest.raises(WrongDecisionError, match=r"R-3\.1"):
            m.apply(bad)  # type: ignore[arg-type]
    m.apply(0)  # Nil
    m.apply(13)
    assert m.observation(0).seats[1].bid == 0 and m.observation(0).seats[0].bid == 13


def to_play_bidding(m: Match) -> Match:
    while m.decision is not Decision.BID:
        m.apply(m.decision is Decision.DRAW)
    return m


def test_r_3_2_one_round_the_second_player_bids_first():
    m = to_play_bidding(Match(4))
    assert m.to_act == 1  # seat 0 is first drawer of hand 1
    assert m.observation(1).seats[0].bid is None
    m.apply(5)
    assert m.to_act == 0 and m.decision is Decision.BID
    assert m.observation(0).seats[1].bid == 5  # she sees the bid made before hers
    m.apply(3)
    assert m.decision is Decision.PLAY  # exactly one round
    result = play_hand(m)
    assert result.bids == (3, 5)
    m2 = to_play_bidding(m)  # hand 2: seat 1 draws first, seat 0 bids first
    assert m2.first_drawer == 1 and m2.to_act == 0


def test_r_3_3_double_nil_is_asked_before_each_players_own_first_draw():
    m = Match(6)
    assert (m.decision, m.to_act) == (Decision.DOUBLE_NIL, 0)
    obs = m.observation(0)
    assert obs.hand == () and obs.looking_at is None and obs.stock_size == 52
    m.apply(True)
    assert m.observation(1).seats[0].double_nil  # told at once
    assert m.observation(1).seats[0].bid == 0
    assert (m.decision, m.to_act) == (Decision.DRAW, 0)
    m.apply(True)
    assert (m.decision, m.to_act) == (Decision.DOUBLE_NIL, 1)  # after the first drawer's turn
    assert m.observation(1).hand == ()
    m.apply(False)
    seen = []
    while m.decision is Decision.DRAW:
        m.apply(True)
        seen.append(m.decision)
    assert Decision.DOUBLE_NIL not in seen
    assert (m.decision, m.to_act) == (Decision.EXCHANGE, 0)
    m.apply(())
    assert (m.decision, m.to_act) == (Decision.BID, 1)  # only seat 1 bids
    m.apply(4)
    assert m.decision is Decision.PLAY
    with pytest.raises(WrongDecisionError, match=r"R-3\.3"):
        Match(6).apply(0)


def test_r_3_3_both_may_declare_and_then_nobody_bids():
    m = Match(9)
    result = play_hand(m, double_nil=(True, True), exchange=lambda m: ())
    assert result.bids == (0, 0) and result.double_nil == (True, True)
    assert sorted(result.points) in ([-200, -200], [-200, 200])


def test_r_3_3_not_asked_when_the_rule_set_forbids_it():
    m = Match(6, RuleSet(double_nil_allowed=False))
    decisions = set()
    while not m.is_over and m.hand_number <= 2:
        decisions.add(m.decision)
        m.apply(m.legal_actions()[0])
    assert Decision.DOUBLE_NIL not in decisions and Decision.EXCHANGE not in decisions


def _exchange_position(seed: int = 3) -> Match:
    m = Match(seed)
    m.apply(True)
    while m.decision is not Decision.EXCHANGE:
        m.apply(m.decision is Decision.DRAW)
    return m


def test_r_3_4_exchange_draws_from_the_pile_and_sets_cards_aside():
    m = _exchange_position()
    hand = m.hand(0)
    pile = set(m.discard_pile)
    aside = hand[:3]
    m.apply(aside)
    new = set(m.hand(0))
    drawn = new - set(hand)
    assert len(new) == 13 and len(drawn) == 3 and drawn <= pile
    assert m.set_aside == (aside, ())
    assert set(m.discard_pile) == pile - drawn
    assert not set(aside) & (set(m.discard_pile) | new | set(m.hand(1)))
    # the replacements are the first pile cards of the hand's exchange order
    assert drawn == set([c for c in exchange_order(3, 1) if c in pile][:3])
    assert m.observation(1).seats[0].cards_exchanged == 3
    assert m.observation(1).seats[1].cards_exchanged is None


def test_r_3_4_a_double_nil_bidder_sees_her_own_put_aside_cards():
    """Information set: her own put-aside cards are hers to know, never the opponent's."""
    m = _exchange_position()
    assert m.observation(0).own_put_aside == () == m.observation(1).own_put_aside
    hand = m.hand(0)
    aside = (hand[5], hand[0], hand[9])
    m.apply(aside)
    mine, theirs = m.observation(0), m.observation(1)
    assert mine.own_put_aside == tuple(sorted(aside))
    assert theirs.own_put_aside == () and theirs.seats[0].cards_exchanged == 3
    assert not set(aside) & set(mine.hand)
    while m.decision is not Decision.PLAY:
        m.apply(m.legal_actions()[0])
    play_hand(m)  # kept for the whole hand, then the next hand starts afresh
    assert m.hand_results[0].double_nil == (True, False)
    assert m.observation(0).own_put_aside == ()


def test_r_3_4_an_empty_exchange_puts_nothing_aside():
    m = _exchange_position()
    m.apply(())
    assert m.observation(0).own_put_aside == () and m.observation(0).seats[0].cards_exchanged == 0


def test_r_3_4_at_most_three_distinct_cards_of_the_hand():
    m = _exchange_position()
    hand = m.hand(0)
    outside = next(c for c in range(52) if c not in hand)
    assert len(m.legal_actions()) == 1 + 13 + 78 + 286
    for bad, text in [
        (hand[:4], "at most 3"),
        ((hand[0], hand[0]), "distinct"),
        ((outside,), "not in the hand"),
        ((52,), "not a card"),
    ]:
        assert not m.is_legal(bad)
        with pytest.raises(IllegalActionError, match=rf"R-3\.4: .*{text}"):
            m.apply(bad)
    for bad in (hand[0], {hand[0]}, (True,), None):
        with pytest.raises(WrongDecisionError, match=r"R-3\.4"):
            m.apply(bad)  # type: ignore[arg-type]
    m.apply([hand[1], hand[0]])  # a list, in any order
    assert m.observation(0).seats[0].cards_exchanged == 2


def test_r_3_4_the_second_player_exchanges_first():
    m = Match(12)
    while m.decision is not Decision.EXCHANGE:
        m.apply(m.decision in (Decision.DOUBLE_NIL, Decision.DRAW))
    assert m.to_act == 1
    pile = set(m.discard_pile)
    first = set(m.hand(1))
    m.apply(m.hand(1)[:3])
    taken = set(m.hand(1)) - first
    assert m.to_act == 0 and m.decision is Decision.EXCHANGE
    before = set(m.hand(0))
    m.apply(m.hand(0)[:2])
    got = set(m.hand(0)) - before
    assert got <= pile - taken and len(got) == 2
    assert m.decision is Decision.PLAY and m.to_act == 1  # nobody bids


# --- R-4 -------------------------------------------------------------------------------------


def test_r_4_1_thirteen_tricks_one_card_each():
    m = Match(2)
    result = play_hand(m)
    assert len(result.tricks) == 13
    assert all(len(t.cards) == 2 for t in result.tricks)
    assert sum(result.tricks_won) == 13


def test_r_4_1_a_card_must_be_in_the_hand():
    m = positioned(
        "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac",
        "2h 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad",
    )
    with pytest.raises(IllegalActionError, match=r"R-4\.1: 2c is not in the hand"):
        m.apply(C("2c"))
    with pytest.raises(IllegalActionError, match=r"R-1\.1"):
        m.apply(52)
    for bad in (True, (C("2h"),), "2h", None):
        with pytest.raises(WrongDecisionError, match=r"R-4\.1"):
            m.apply(bad)  # type: ignore[arg-type]


def test_r_4_2_the_second_player_leads_then_the_winner():
    m = positioned(
        "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac",
        "2h 2d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd 3h",
    )
    assert m.to_act == 1
    play(m, "2d", "2c")  # seat 1 wins (off-suit never wins)
    assert m.to_act == 1
    play(m, "4d", "Ac")
    play(m, "2h", "3c")
    assert [t.leader for t in m.observation(0).tricks] == [1, 1, 1]


def test_r_4_3_must_follow_suit():
    m = positioned(
        "2h 9h Qs 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac",
        "3h 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad",
    )
    m.apply(C("3h"))
    assert m.legal_actions() == cards("2h 9h")
    with pytest.raises(IllegalActionError) as err:
        m.apply(C("Qs"))
    assert (
        str(err.value)
        == "R-4.3: must follow suit: hearts were led and the hand holds 2h, 9h; got Qs"
    )
    assert err.value.rule == "R-4.3"
    assert m.to_act == 0 and len(m.hand(0)) == 13  # nothing changed


def test_r_4_4_spades_broken_by_a_trump():
    m = positioned(
        "2s 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac",
        "Ah 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad",
    )
    play(m, "Ah")
    assert not m.observation(0).spades_broken
    play(m, "2s")
    assert m.observation(0).spades_broken and m.observation(1).spades_broken
    for _ in range(24):
        m.apply(highest(m))
        if m.hand_number == 1:
            assert m.observation(0).spades_broken  # it stays broken
    assert not m.observation(0).spades_broken  # afresh in the next hand


def test_r_4_4_spades_broken_by_a_lead_from_only_spades():
    m = positioned(
        "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac",
        "As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks",
    )
    play(m, "2s")
    assert m.observation(0).spades_broken


def test_r_4_5_no_spade_lead_before_broken():
    m = positioned(
        "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac",
        "2h 3h 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs",
    )
    assert m.legal_actions() == cards("2h 3h")
    with pytest.raises(IllegalActionError) as err:
        m.apply(C("2s"))
    assert err.value.rule == "R-4.5"
    assert "spades are broken" in str(err.value) and "2h, 3h" in str(err.value)


def test_r_4_5_after_breaking_spades_may_be_led():
    m = positioned(
        "2s 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc 3s",
        "Ah 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad",
    )
    play(m, "Ah", "2s")  # seat 0 trumps and leads next, spades broken
    assert m.to_act == 0 and C("3s") in m.legal_actions()


@pytest.mark.parametrize(
    ("lead", "answer", "winner"),
    [
        ("5h", "9h", 0),  # the higher card of the suit led (seat 0 answers)
        ("9h", "5h", 1),
        ("9h", "Ac", 1),  # a card of another suit never wins
        ("Ah", "2s", 0),  # a spade wins
    ],
)
def test_r_4_6_the_trick_winner(lead: str, answer: str, winner: int):
    rest = [c for c in range(52) if c not in (C(lead), C(answer))]
    seat1 = [C(lead), *[c for c in rest if suit_of(c) == 1][:12]]
    seat0 = [C(answer), *[c for c in rest if suit_of(c) == 0][:12]]
    m = to_play(Match.from_stocks([seats_stock(1, seat0, seat1)]))
    play(m, lead, answer)
    assert m.observation(0).tricks[0].winner == winner
    assert m.observation(0).seats[winner].tricks_won == 1


def test_r_4_6_the_higher_spade_wins():
    m = positioned(
        "2s As 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc",
        "2h 3h 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks",
    )
    play(m, "2h", "2c", "3h", "3c")  # seat 1 wins both and holds only spades
    play(m, "3s", "2s", "4s", "As")
    assert [t.winner for t in m.observation(0).tricks] == [1, 1, 1, 0]


def test_r_4_7_completed_tricks_are_seen_by_both():
    m = positioned(
        "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac",
        "2h 2d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd 3h",
    )
    play(m, "2d", "2c", "4d")
    for seat in (0, 1):
        obs = m.observation(seat)
        assert [(t.leader, t.cards, t.winner) for t in obs.tricks] == [
            (1, (C("2d"), C("2c")), 1),
            (1, (C("4d"),), None),
        ]
        assert [s.tricks_won for s in obs.seats] == [0, 1]


# --- R-5 -------------------------------------------------------------------------------------


def test_r_5_1_made_bid_and_bags():
    assert hand_points(4, False, 4) == (40, 0)
    assert hand_points(4, False, 13) == (49, 9)
    result = play_hand(Match.from_stocks([tricks_stock(1, 10)]), bids=(8, 3))
    assert result.points == (82, 30) and result.bags == (2, 0)


def test_r_5_2_set():
    assert hand_points(5, False, 4) == (-50, 0)
    result = play_hand(Match.from_stocks([tricks_stock(1, 4)]), bids=(5, 9))
    assert result.points == (-50, 90) and result.bags == (0, 0)


def test_r_5_3_nil():
    assert hand_points(0, False, 0) == (100, 0)
    assert hand_points(0, False, 3) == (-100, 0)
    assert hand_points(0, False, 0, nil_tricks_count_as_bags=True) == (100, 0)


def test_r_5_3_nil_tricks_as_bags_are_bags_and_no_points():
    """R-5.3's example: a failed Nil with 2 tricks scores exactly -100 and brings 2 bags."""
    assert hand_points(0, False, 2, nil_tricks_count_as_bags=True) == (-100, 2)
    assert hand_points(0, False, 13, nil_tricks_count_as_bags=True) == (-100, 13)
    rules = RuleSet(nil_tricks_count_as_bags=True)
    result = play_hand(Match.from_stocks([tricks_stock(1, 2)], rules), bids=(0, 11))
    assert result.points == (-100, 110) and result.bags == (2, 0)
    assert result.scores == (-100, 110)
    default = play_hand(Match.from_stocks([tricks_stock(1, 2)]), bids=(0, 11))
    assert default.points == (-100, 110) and default.bags == (0, 0)


def test_r_5_3_nil_bags_can_bring_on_the_sandbag_penalty():
    """R-5.3 with R-5.5: the Nil tricks, as bags, reach 10 and cost 100 in the same hand."""
    rules = RuleSet(nil_tricks_count_as_bags=True)
    m = Match.from_stocks([tricks_stock(1, 8), tricks_stock(2, 3)], rules)
    first = play_hand(m, bids=(1, 1))  # seat 0: bid 1 won 8, 7 bags
    assert (first.points[0], first.bags[0]) == (17, 7)
    second = play_hand(m, bids=(0, 1))  # seat 0: Nil, 3 tricks: 3 more bags
    assert second.points[0] == -100 and second.bag_penalties[0] == -100
    assert second.bags[0] == 0 and second.scores[0] == 17 - 100 - 100


def test_r_5_4_double_nil():
    assert hand_points(0, True, 0) == (200, 0)
    assert hand_points(0, True, 1) == (-200, 0)
    assert hand_points(0, True, 0, nil_tricks_count_as_bags=True) == (200, 0)


def test_r_5_4_failed_double_nil_with_bags_scores_exactly_minus_200():
    """The same choice as R-5.3: a failed Double Nil with 6 tricks is -200 and 6 bags."""
    assert hand_points(0, True, 1, nil_tricks_count_as_bags=True) == (-200, 1)
    assert hand_points(0, True, 6, nil_tricks_count_as_bags=True) == (-200, 6)
    rules = RuleSet(nil_tricks_count_as_bags=True)
    m = Match.from_stocks([tricks_stock(1, 6)], rules)
    result = play_hand(m, bids=(0, 7), double_nil=(True, False))
    assert result.double_nil == (True, False) and result.tricks_won == (6, 7)
    assert result.points == (-200, 70) and result.bags == (6, 0)


def test_r_5_5_sandbag_penalty_with_carry_over():
    assert bag_penalty(9, 0) == (0, 9)
    assert bag_penalty(9, 1) == (-100, 0)
    assert bag_penalty(8, 3) == (-100, 1)
    assert bag_penalty(9, 13) == (-200, 2)  # possible with nil_tricks_count_as_bags
    m = Match.from_stocks([tricks_stock(1, 13), tricks_stock(2, 13)])
    r1 = play_hand(m, bids=(6, 0))
    assert (r1.points[0], r1.bag_penalties[0], r1.bags[0]) == (67, 0, 7)
    r2 = play_hand(m, bids=(9, 0))
    assert (r2.points[0], r2.bag_penalties[0], r2.bags[0]) == (94, -100, 1)
    assert m.scores[0] == 67 + 94 - 100


def test_r_5_6_scores_may_be_negative():
    m = Match.from_stocks([tricks_stock(1, 0)])
    play_hand(m, bids=(13, 0))
    assert m.scores == (-130, -100) and not m.is_over


# --- R-6 -------------------------------------------------------------------------------------


def test_r_6_1_another_hand_while_nobody_reached_the_target():
    m = Match.from_stocks([tricks_stock(1, 7)], RuleSet(target_score=71))
    play_hand(m, bids=(7, 6))
    assert m.scores == (70, 60) and not m.is_over and m.hand_number == 2


def test_r_6_2_both_over_the_target_the_higher_wins():
    m = Match.from_stocks([tricks_stock(1, 6)], RuleSet(target_score=50))
    play_hand(m, bids=(6, 7))
    assert m.outcome is not None
    assert (m.outcome.winner, m.outcome.termination) == (1, Termination.TARGET_REACHED)


def test_r_6_2_equal_at_the_target_plays_another_hand():
    m = Match.from_stocks(_winner_stocks([7, 6]), RuleSet(target_score=100))
    hands_to(m, [(7, 6), (6, 7)])
    assert m.scores == (130, 130) and not m.is_over and m.hand_number == 3


def test_r_6_3_hand_limit_adjudication():
    m = Match.from_stocks([tricks_stock(1, 7)], RuleSet(max_hands=1))
    play_hand(m, bids=(7, 6))
    assert m.outcome is not None
    assert m.outcome.termination is Termination.HAND_LIMIT
    assert (m.outcome.winner, m.outcome.hands_played) == (0, 1)
    draw = Match.from_stocks(_winner_stocks([7, 6]), RuleSet(max_hands=2))
    hands_to(draw, [(7, 6), (6, 7)])
    assert draw.outcome is not None
    assert draw.outcome.winner is None and draw.outcome.termination is Termination.HAND_LIMIT
    with pytest.raises(MatchOverError, match="R-6"):
        draw.apply(0)
    assert draw.to_act is None and draw.decision is None and draw.legal_actions() == []


def test_r_6_3_the_target_beats_the_limit_in_the_last_hand():
    m = Match.from_stocks([tricks_stock(1, 7)], RuleSet(max_hands=1, target_score=65))
    play_hand(m, bids=(7, 6))
    assert m.outcome is not None and m.outcome.termination is Termination.TARGET_REACHED


# --- R-7 -------------------------------------------------------------------------------------


def test_r_7_1_the_first_drawer_alternates():
    m = Match(31)
    drawers = []
    for _ in range(4):
        drawers.append((m.hand_number, m.first_drawer, m.to_act))
        play_hand(m)
    assert drawers == [(1, 0, 0), (2, 1, 1), (3, 0, 0), (4, 1, 1)]
    assert [r.first_drawer for r in m.hand_results] == [0, 1, 0, 1]


def test_r_7_2_scores_and_bags_carry_over_the_rest_starts_afresh():
    m = Match.from_stocks([tricks_stock(1, 9)])
    play_hand(m, bids=(7, 0), double_nil=(False, False))
    obs = m.observation(0)
    assert (obs.seats[0].score, obs.seats[0].bags) == (72, 2)
    assert obs.seats[1].score == -100
    assert obs.tricks == () and not obs.spades_broken and obs.stock_size == 52
    assert obs.own_discards == () and obs.hand == ()
    assert [(s.bid, s.double_nil, s.tricks_won, s.cards_exchanged) for s in obs.seats] == [
        (None, False, 0, None)
    ] * 2
    assert m.stock == tuple(stock_order(0, 2))


def test_engine_version_is_recorded():
    assert isinstance(ENGINE_VERSION, str) and ENGINE_VERSION
