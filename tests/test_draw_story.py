"""The draw phase and the Double Nil exchange of a recorded match, as a spectator and as each
seat sees them (R-2, R-3.4): records played through the real engine, shown by ``arena replay``."""

from __future__ import annotations

from random import Random

from arena.referee.draw_story import SPECTATOR, draw_lines, draw_phase
from arena.referee.record import DecisionRecord
from arena.rules import Decision, Match, RuleSet


def _record(seed: int, rules: RuleSet, declare: bool) -> list[DecisionRecord]:
    """One hand's decisions of a random game; with ``declare``, seat 0 declares Double Nil."""
    m = Match(seed, rules)
    rng = Random(seed)
    out = []
    while not m.is_over and m.hand_number == 1:
        seat, decision = m.to_act, m.decision
        assert seat is not None and decision is not None
        if decision is Decision.DOUBLE_NIL:
            action = declare and seat == 0
        elif decision is Decision.EXCHANGE:
            action = tuple(m.hand(seat)[:3])
        else:
            action = m.random_action(rng)
        m.apply(action)
        out.append(DecisionRecord(seat, decision, action, 1))
    return out


def test_a_spectator_sees_every_draw_and_the_exchange() -> None:
    rules = RuleSet()
    decisions = _record(4, rules, declare=True)
    assert any(d.decision is Decision.EXCHANGE for d in decisions), "no Double Nil this deal"
    hand = draw_phase((4, rules, decisions), view=SPECTATOR)[0]
    ours = [d for d in decisions if d.decision is Decision.DRAW]
    assert [(s.seat, s.kept) for s in hand.draws] == [(d.seat, bool(d.action)) for d in ours]
    assert all(s.card is not None for s in hand.draws)
    (ex,) = hand.exchanges
    assert ex.seat == 0 and ex.count == 3 and ex.put_aside is not None and ex.taken is not None
    assert len(ex.taken) == 3 and not set(ex.put_aside) & set(ex.taken)
    text = "\n".join(draw_lines((4, rules, decisions), ("a", "b"), view=SPECTATOR)[1])
    assert "a draws: " in text and "b draws: " in text and "a puts aside " in text


def test_a_seat_sees_its_own_draws_and_of_the_other_only_what_the_rules_make_public() -> None:
    for public in (False, True):
        rules = RuleSet(draw_decision_public=public)
        decisions = _record(4, rules, declare=True)
        hand = draw_phase((4, rules, decisions), view=1)[0]
        for s in hand.draws:
            if s.seat == 1:
                assert s.card is not None and s.kept is not None
            else:
                assert s.card is None  # never the opponent's cards
                assert (s.kept is not None) is public
        (ex,) = hand.exchanges
        assert ex.put_aside is None and ex.taken is None and ex.count == 3
        lines = draw_lines((4, rules, decisions), ("a", "b"), view=1)[1]
        assert "  a exchanges 3 cards (not seen)" in lines
        if not public:
            assert any(line.startswith("  a draws ") and "(not seen)" in line for line in lines)
