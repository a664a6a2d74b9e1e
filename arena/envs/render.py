"""A text picture of the table, for a spectator: both hands, the trick, scores and bids."""

from __future__ import annotations

from arena.envs.actions import describe
from arena.rules import Match, format_cards


def render_table(match: Match, picked: tuple[int, ...] = ()) -> str:
    """The whole state as a few lines of text (it shows both hands: never give it to a seat)."""
    lines = [f"hand {match.hand_number}, first drawer seat {match.first_drawer}"]
    for seat in (0, 1):
        obs = match.observation(seat)
        me = obs.seats[seat]
        bid = "-" if me.bid is None else ("double nil" if me.double_nil else str(me.bid))
        lines.append(
            f"seat {seat}: score {me.score} bags {me.bags} bid {bid} tricks {me.tricks_won}"
            f" | {format_cards(match.hand(seat)) or '(no cards)'}"
        )
    obs = match.observation(0)
    if obs.tricks:
        last = obs.tricks[-1]
        cards = format_cards(last.cards)
        lines.append(f"trick {len(obs.tricks)} led by seat {last.leader}: {cards}")
    if match.is_over:
        outcome = match.outcome
        assert outcome is not None
        who = "a draw" if outcome.winner is None else f"seat {outcome.winner} wins"
        lines.append(f"over: {who} {outcome.scores[0]}-{outcome.scores[1]}")
    else:
        decision = match.decision
        assert decision is not None
        extra = ""
        if decision.value == "draw":
            extra = f" (looking at {describe(match.stock[0])})"
        if picked:
            extra = f" (put aside so far: {format_cards(picked)})"
        lines.append(f"to act: seat {match.to_act}, {decision.value}{extra}")
    return "\n".join(lines)
