"""The draw phase of a recorded match (R-2) and its Double Nil exchanges (R-3.4), as a seat or a
spectator sees them: which card each draw looked at and whether it was kept or rejected, the
cards put aside and those taken in exchange.

A spectator sees everything the record holds. A seat sees its own draws and exchange in full,
and of the opponent's draws only whether each card was kept, when the rules make that public
(``draw_decision_public``), never the cards themselves (R-2.3)."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

from arena.referee.replay import Source, _step, _unpack
from arena.rules import Decision, Match
from arena.rules.cards import card_name, format_cards

SPECTATOR = None
"""``view=SPECTATOR``: everything, as the record holds it."""


@dataclass
class DrawStep:
    seat: int
    card: int | None
    """The card looked at; None where this view does not see it."""
    kept: bool | None
    """Kept or rejected; None where this view does not see it."""


@dataclass
class Exchange:
    seat: int
    put_aside: tuple[int, ...] | None
    taken: tuple[int, ...] | None
    count: int


@dataclass
class HandDraws:
    number: int
    draws: list[DrawStep] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)


def draw_phase(source: Source, *, view: int | None = SPECTATOR) -> list[HandDraws]:
    """Each hand's draws and exchanges, as ``view`` (a seat, or ``SPECTATOR``) sees them."""
    seed, rules, decisions = _unpack(source)
    m = Match(seed, rules)
    hands: list[HandDraws] = []
    for i, d in enumerate(decisions):
        if not hands or hands[-1].number != m.hand_number:
            hands.append(HandDraws(number=m.hand_number))
        own = view is SPECTATOR or view == d.seat
        if d.decision is Decision.DRAW:
            looked = m.observation(d.seat).looking_at
            kept = bool(d.action)
            hands[-1].draws.append(
                DrawStep(
                    d.seat,
                    looked if own else None,
                    kept if own or rules.draw_decision_public else None,
                )
            )
            _step(m, i, d)
        elif d.decision is Decision.EXCHANGE:
            before = set(m.hand(d.seat))
            _step(m, i, d)
            after = set(m.hand(d.seat))
            put = tuple(sorted(before - after))
            hands[-1].exchanges.append(
                Exchange(
                    d.seat,
                    put if own else None,
                    tuple(sorted(after - before)) if own else None,
                    len(put),
                )
            )
        else:
            _step(m, i, d)
    return hands


def draw_lines(source: Source, names: tuple[str, str], *, view: int | None) -> dict[int, list[str]]:
    """Per hand number, the lines ``arena replay`` prints for its draw phase and exchanges."""
    out: dict[int, list[str]] = {}
    for hand in draw_phase(source, view=view):
        lines: list[str] = []
        for seat in (0, 1):
            steps = [s for s in hand.draws if s.seat == seat]
            if not steps:
                continue
            if all(s.card is None and s.kept is None for s in steps):
                lines.append(f"  {names[seat]} draws {len(steps)} times (not seen)")
                continue
            words = []
            for s in steps:
                what = "?" if s.kept is None else ("keeps" if s.kept else "rejects")
                words.append(f"{what} {card_name(s.card)}" if s.card is not None else what)
            text = f"{names[seat]} draws: " + ", ".join(words)
            lines += textwrap.wrap(text, 78, initial_indent="  ", subsequent_indent="    ")
        for ex in hand.exchanges:
            if ex.put_aside is None or ex.taken is None:
                lines.append(f"  {names[ex.seat]} exchanges {ex.count} cards (not seen)")
            else:
                lines.append(
                    f"  {names[ex.seat]} puts aside {format_cards(ex.put_aside) or 'nothing'}, "
                    f"takes {format_cards(ex.taken) or 'nothing'}"
                )
        out[hand.number] = lines
    return out
