"""A recorded match as frames for the replay viewer, one per decision, for one view of it.

The engine computes what each view shows: the match is rebuilt decision by decision
(``arena.referee.replay``) and every frame is read off the rebuilt state. The spectator view is
the whole state (both hands, the card looked at and the one discarded, the cards put aside in an
exchange, every bot's time and faults). A seat's view is built from ``Match.observation(seat)``
alone, the information set of the rules (spades-rules.md, "What each player may know": its
cards put aside included), plus what that seat itself did (its draw choices, its times): of
the opponent it shows only what is public, and the opponent's cards are never in the data sent
to the browser, not merely hidden by it.

Frame ``i`` is the table after ``i`` decisions. A hand's last card ends the hand in the engine
at once (the next hand starts); its frame shows the finished hand instead: the last trick, and
the hand's score and bags (``HandResult``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from arena.referee.record import DecisionRecord, MatchResult
from arena.referee.replay import _step
from arena.rules import Match
from arena.rules.cards import card_name
from arena.rules.decisions import Decision
from arena.rules.observation import Observation

VIEWS = ("spectator", "seat0", "seat1")


def view_seat(view: str) -> int | None:
    """The seat a view sits in (None: the spectator); ValueError for an unknown view."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}: expected one of {', '.join(VIEWS)}")
    return None if view == "spectator" else int(view[-1])


@dataclass(frozen=True, slots=True)
class Frames:
    view: str
    frames: list[dict[str, Any]]
    hand_starts: dict[int, int]
    """Hand number -> the first frame of that hand."""

    def to_json(self) -> dict[str, Any]:
        return {
            "view": self.view,
            "frames": self.frames,
            "hand_starts": {str(k): v for k, v in self.hand_starts.items()},
        }


def _bid_text(bid: int) -> str:
    return "Nil" if bid == 0 else str(bid)


def _last(
    before: Match, d: DecisionRecord, seat: int | None, after_hand: tuple[int, ...] | None
) -> dict[str, Any]:
    """What the decision just taken says to this view."""
    mine = seat is None or seat == d.seat
    out: dict[str, Any] = {"seat": d.seat, "kind": d.decision.value}
    if mine:
        out["us"] = d.elapsed_us
        if d.fault is not None:
            out["fault"] = d.fault.value
    kind = d.decision
    if kind is Decision.DOUBLE_NIL:
        out["text"] = "declares Double Nil" if d.action else "does not declare Double Nil"
    elif kind is Decision.BID:
        out["text"] = f"bids {_bid_text(cast(int, d.action))}"
    elif kind is Decision.PLAY:
        out["text"] = f"plays {card_name(cast(int, d.action))}"
        out["card"] = cast(int, d.action)
    elif kind is Decision.DRAW:
        looked, nxt = before.stock[0], before.stock[1]
        kept, dropped = (looked, nxt) if d.action else (nxt, looked)
        if mine:
            verb = "keeps" if d.action else "rejects"
            out["text"] = (
                f"looks at {card_name(looked)}, {verb} it: keeps {card_name(kept)}, "
                f"discards {card_name(dropped)}"
            )
            out["kept"], out["discarded"] = kept, dropped
        elif before.rules.draw_decision_public:
            out["text"] = (
                "keeps the card looked at" if d.action else "rejects the card looked at"
            ) + " (cards hidden)"
        else:
            out["text"] = "draws (hidden)"
    else:  # EXCHANGE
        aside = tuple(d.action)  # type: ignore[arg-type]
        n = len(aside)
        if mine:
            drawn = (
                sorted(set(after_hand) - set(before.hand(d.seat))) if after_hand is not None else []
            )
            out["text"] = (
                f"puts aside {' '.join(card_name(c) for c in aside)}, draws "
                f"{' '.join(card_name(c) for c in drawn)}"
                if n
                else "keeps the hand (exchanges no card)"
            )
            out["aside"] = list(aside)
            out["drawn"] = drawn
        else:
            out["text"] = f"exchanges {n} card{'s' * (n != 1)} (hidden)"
    return out


def _tricks(obs_tricks: Any) -> list[dict[str, Any]]:
    return [{"leader": t.leader, "cards": list(t.cards), "winner": t.winner} for t in obs_tricks]


def _seat_public(obs: Observation, s: int) -> dict[str, Any]:
    v = obs.seats[s]
    return {
        "bid": v.bid,
        "double_nil": v.double_nil,
        "won": v.tricks_won,
        "score": v.score,
        "bags": v.bags,
        "exchanged": v.cards_exchanged,
        "draw_choices": None if v.draw_choices is None else list(v.draw_choices),
    }


def _frame(m: Match, seat: int | None) -> dict[str, Any]:
    """The table now, for this view, from the engine's observations."""
    obs = [m.observation(0), m.observation(1)]
    ref = obs[0] if seat is None else obs[seat]
    seats = []
    for s in (0, 1):
        pub = _seat_public(ref, s)
        if seat is None or s == seat:
            own = obs[s]
            pub["hand"] = list(own.hand)
            pub["discards"] = list(own.own_discards)
            pub["looking_at"] = (
                m.stock[0] if m.decision is Decision.DRAW and m.to_act == s else None
            )
            pub["aside"] = list(own.own_put_aside) if own.own_put_aside else None
        else:
            # The opponent: how many cards (public: one per draw turn, one less per card
            # played), never which; likewise the discards.
            pub["hand_count"] = len(m.hand(s))
            pub["discard_count"] = len(obs[s].own_discards)
            pub["looking"] = m.decision is Decision.DRAW and m.to_act == s
        seats.append(pub)
    return {
        "hand": ref.hand_number,
        "first_drawer": ref.first_drawer,
        "to_act": ref.to_act,
        "decision": None if ref.decision is None else ref.decision.value,
        "stock": ref.stock_size,
        "broken": ref.spades_broken,
        "seats": seats,
        "tricks": _tricks(ref.tricks),
        "over": m.is_over,
    }


def _hand_end_frame(m: Match, seat: int | None, prev: dict[str, Any]) -> dict[str, Any]:
    """The finished hand (its last trick played), before the engine's next hand begins."""
    hr = m.hand_results[-1]
    seats = []
    for s in (0, 1):
        p = dict(prev["seats"][s])
        p.update(
            bid=hr.bids[s],
            double_nil=hr.double_nil[s],
            won=hr.tricks_won[s],
            score=hr.scores[s],
            bags=hr.bags[s],
        )
        if "hand" in p:
            p["hand"] = []
            p["looking_at"] = None
        else:
            p["hand_count"] = 0
        seats.append(p)
    return {
        "hand": hr.hand_number,
        "first_drawer": hr.first_drawer,
        "to_act": m.to_act,
        "decision": None if m.decision is None else m.decision.value,
        "stock": 0,
        "broken": prev["broken"] or any(c >= 39 for t in hr.tricks for c in t.cards),
        "seats": seats,
        "tricks": _tricks(hr.tricks),
        "over": m.is_over,
        "scored": {
            "points": list(hr.points),
            "bag_penalties": list(hr.bag_penalties),
            "scores": list(hr.scores),
            "bags": list(hr.bags),
        },
    }


def build_frames(result: MatchResult, view: str) -> Frames:
    """Every frame of the match for ``view`` (``spectator``, ``seat0``, ``seat1``)."""
    seat = view_seat(view)
    m = Match(result.seed, result.rules)
    first = _frame(m, seat)
    first["step"] = 0
    first["last"] = None
    frames = [first]
    for i, d in enumerate(result.decisions):
        before = m.copy()
        hand_before = m.hand_number
        _step(m, i, d)  # ReplayError: the record does not replay
        after_hand = m.hand(d.seat) if d.decision is Decision.EXCHANGE else None
        last = _last(before, d, seat, after_hand)
        ended = d.decision is Decision.PLAY and (m.is_over or m.hand_number != hand_before)
        frame = _hand_end_frame(m, seat, frames[-1]) if ended else _frame(m, seat)
        frame["step"] = i + 1
        frame["last"] = last
        frames.append(frame)
    hand_starts: dict[int, int] = {}
    for f in frames:
        hand_starts.setdefault(f["hand"], f["step"])
    return Frames(view=view, frames=frames, hand_starts=hand_starts)
