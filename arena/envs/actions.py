"""One fixed action space for every decision of the rules, as ints ``0 .. NUM_ACTIONS - 1``.

=========================  ==========================================  =========
ids                        meaning                                     rule
=========================  ==========================================  =========
0-51                       a card: played (PLAY) or put aside          R-4, R-3.4
52-65                      bid 0 (Nil) to 13                           R-3.1
66 / 67                    reject / keep the card looked at            R-2.1
68 / 69                    no Double Nil / declare Double Nil          R-3.3
70                         end the exchange                            R-3.4
=========================  ==========================================  =========

A Double Nil exchange (0 to 3 cards put aside) is taken one card at a time, in ascending card
order, and ended by ``EXCHANGE_DONE`` or by the third card: each set of cards has exactly one
sequence of actions, so the space stays 71 actions rather than the 378 subsets of a hand.
"""

from __future__ import annotations

from typing import Any, cast

from arena.rules import Action, Decision, Match, card_name, cards_of
from arena.rules.match import MAX_BID, MAX_EXCHANGE

NUM_CARDS = 52
BID_BASE = 52
REJECT = 66
KEEP = 67
NO_DOUBLE_NIL = 68
DOUBLE_NIL = 69
EXCHANGE_DONE = 70
NUM_ACTIONS = 71


class IllegalEnvActionError(ValueError):
    """An action id that is not legal in the state; the message names the rule."""


def legal_ids(match: Match, picked: tuple[int, ...] = ()) -> list[int]:
    """The legal action ids of the seat to act, ``picked`` the cards already put aside in an
    exchange under way; ascending."""
    decision = match.decision
    if decision is Decision.PLAY:
        return list(cards_of(match.legal_mask))
    seat = match.to_act
    hand = match.hand(seat) if decision is Decision.EXCHANGE and seat is not None else ()
    return legal_ids_for(decision, hand, (), picked)


def legal_ids_for(
    decision: Decision | None,
    hand: tuple[int, ...],
    legal_cards: tuple[int, ...],
    picked: tuple[int, ...] = (),
) -> list[int]:
    """The same from a decision's facts, as a bot's request gives them."""
    if decision is Decision.PLAY:
        return sorted(legal_cards)
    if decision is Decision.DRAW:
        return [REJECT, KEEP]
    if decision is Decision.BID:
        return list(range(BID_BASE, BID_BASE + MAX_BID + 1))
    if decision is Decision.DOUBLE_NIL:
        return [NO_DOUBLE_NIL, DOUBLE_NIL]
    if decision is Decision.EXCHANGE:
        low = picked[-1] if picked else -1
        return [c for c in hand if c > low and c not in picked] + [EXCHANGE_DONE]
    return []


def quick_engine_action(match: Match, action: Any) -> Action | None:
    """The engine action of ``action`` when it is a legal id in a play, draw, bid or Double Nil
    decision, checked from the engine's own facts (the legal mask of a play); None for
    anything else (an exchange's card, an illegal id, not an int), which ``to_engine`` takes."""
    if action.__class__ is not int:
        try:
            action = int(action)
        except (TypeError, ValueError):
            return None
    decision = match.decision
    if decision is _PLAY:
        return action if 0 <= action < NUM_CARDS and match.legal_mask >> action & 1 else None
    if decision is _DRAW:
        return None if action != KEEP and action != REJECT else action == KEEP
    if decision is _BID:
        bid = action - BID_BASE
        return bid if 0 <= bid <= MAX_BID else None
    if decision is _DOUBLE_NIL:
        return None if action != DOUBLE_NIL and action != NO_DOUBLE_NIL else action == DOUBLE_NIL
    return None


_PLAY, _DRAW, _BID, _DOUBLE_NIL = Decision.PLAY, Decision.DRAW, Decision.BID, Decision.DOUBLE_NIL


def describe(action_id: int) -> str:
    """A short text for an action id: ``"As"``, ``"bid 4"``, ``"keep"``, ..."""
    if 0 <= action_id < NUM_CARDS:
        return card_name(action_id)
    if BID_BASE <= action_id <= BID_BASE + MAX_BID:
        bid = action_id - BID_BASE
        return "bid nil" if bid == 0 else f"bid {bid}"
    names = {
        REJECT: "reject",
        KEEP: "keep",
        NO_DOUBLE_NIL: "no double nil",
        DOUBLE_NIL: "double nil",
        EXCHANGE_DONE: "end exchange",
    }
    if action_id in names:
        return names[action_id]
    raise IllegalEnvActionError(f"{action_id!r} is not an action id (0-{NUM_ACTIONS - 1})")


def to_engine(
    match: Match, action_id: int, picked: tuple[int, ...]
) -> tuple[Action | None, tuple[int, ...]]:
    """The engine action an action id stands for, or None while an exchange is still being
    chosen; with the exchange's picked cards after it. Raises IllegalEnvActionError."""
    legal = legal_ids(match, picked)
    if action_id not in legal:
        decision = match.decision
        raise IllegalEnvActionError(
            f"action {action_id!r} is not legal in a {decision.value if decision else 'finished'}"
            f" decision; legal: {', '.join(describe(a) for a in legal) or 'none'}"
            f" ({_RULE_OF.get(decision, 'R-6') if decision else 'R-6'})"
        )
    decision = match.decision
    if decision is Decision.PLAY:
        return action_id, ()
    if decision is Decision.DRAW:
        return action_id == KEEP, ()
    if decision is Decision.BID:
        return action_id - BID_BASE, ()
    if decision is Decision.DOUBLE_NIL:
        return action_id == DOUBLE_NIL, ()
    if action_id == EXCHANGE_DONE:
        return picked, ()
    picked = (*picked, action_id)
    if len(picked) == MAX_EXCHANGE:
        return picked, ()
    return None, picked


def from_engine(decision: Decision, action: Action) -> list[int]:
    """The action ids that make up an engine action (an exchange is its cards then the end,
    unless it puts aside three)."""
    if decision is Decision.PLAY:
        return [cast(int, action)]
    if decision is Decision.DRAW:
        return [KEEP if action else REJECT]
    if decision is Decision.BID:
        return [BID_BASE + cast(int, action)]
    if decision is Decision.DOUBLE_NIL:
        return [DOUBLE_NIL if action else NO_DOUBLE_NIL]
    cards = sorted(action)  # type: ignore[arg-type]
    return cards if len(cards) == MAX_EXCHANGE else [*cards, EXCHANGE_DONE]


_RULE_OF = {
    Decision.PLAY: "R-4",
    Decision.DRAW: "R-2.1",
    Decision.BID: "R-3.1",
    Decision.DOUBLE_NIL: "R-3.3",
    Decision.EXCHANGE: "R-3.4",
}
