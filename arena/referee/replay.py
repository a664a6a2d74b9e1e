"""Rebuild a recorded match through the engine, check it, and tell it hand by hand.

A record is the seed, the rule set and the decisions (design: "deterministic"); replaying them
through the engine gives back every hand, trick and score. ``verify`` checks that the rebuilt
match agrees with what the record says (scores, hands played, how it ended), so a record that
was tampered with, or an engine that changed behaviour, is caught.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from arena.errors import ArenaError
from arena.referee.record import (
    DecisionRecord,
    FaultKind,
    MatchResult,
    Termination,
    result_to_dict,
)
from arena.rules import ENGINE_VERSION, Match
from arena.rules.cards import card_name, format_cards
from arena.rules.decisions import Decision
from arena.rules.errors import RulesError
from arena.rules.outcome import HandResult
from arena.rules.outcome import Termination as RulesTermination
from arena.rules.ruleset import RuleSet

__all__ = [
    "ReplayError",
    "hands_of",
    "render_text",
    "replay",
    "replay_to_dict",
    "summary_text",
    "verify",
]


class ReplayError(ArenaError):
    """A record that the engine cannot replay, or whose replay disagrees with the record."""


Source = MatchResult | tuple[int, RuleSet, Sequence[DecisionRecord]]


def _unpack(source: Source) -> tuple[int, RuleSet, Sequence[DecisionRecord]]:
    if isinstance(source, MatchResult):
        return source.seed, source.rules, source.decisions
    seed, rules, decisions = source
    return seed, rules, decisions


def replay(source: Source) -> Match:
    """The match after every recorded decision, rebuilt through the engine.

    Raises ReplayError if a decision is not the one the engine asks (seat or kind) or its
    action is illegal: the record does not belong to this seed, rule set or engine."""
    seed, rules, decisions = _unpack(source)
    m = Match(seed, rules)
    for i, d in enumerate(decisions):
        _step(m, i, d)
    return m


def _step(m: Match, i: int, d: DecisionRecord) -> None:
    if m.is_over:
        raise ReplayError(f"decision {i + 1}: the match is already over, yet the record goes on")
    if d.seat != m.to_act or d.decision is not m.decision:
        raise ReplayError(
            f"decision {i + 1}: the record has {d.decision.value} by seat {d.seat}, but the "
            f"engine asks {m.decision.value if m.decision else None} of seat {m.to_act}"
        )
    try:
        m.apply(d.action)
    except RulesError as exc:
        raise ReplayError(f"decision {i + 1}: the recorded action is not legal: {exc}") from exc


def verify(result: MatchResult) -> Match:
    """Replay ``result`` and check it against the record; the rebuilt match, or ReplayError."""
    if result.engine_version != ENGINE_VERSION:
        raise ReplayError(
            f"match {result.match_id} was played with engine {result.engine_version}; this is "
            f"engine {ENGINE_VERSION}, which may deal or score differently"
        )
    m = replay(result)
    problems = []
    if m.scores != tuple(result.scores):
        problems.append(f"scores {m.scores} rebuilt, {tuple(result.scores)} recorded")
    if len(m.hand_results) != result.hands_played:
        problems.append(f"{len(m.hand_results)} hands rebuilt, {result.hands_played} recorded")
    t = result.termination
    if t in (Termination.TARGET_REACHED, Termination.HAND_LIMIT):
        outcome = m.outcome
        if outcome is None:
            problems.append(f"the record says {t.value}, but the rebuilt match is not over")
        else:
            rebuilt = (
                Termination.TARGET_REACHED
                if outcome.termination is RulesTermination.TARGET_REACHED
                else Termination.HAND_LIMIT
            )
            if rebuilt is not t or outcome.winner != result.winner:
                problems.append(
                    f"the rebuilt match ends {rebuilt.value} with winner {outcome.winner}, the "
                    f"record {t.value} with winner {result.winner}"
                )
    elif m.is_over:
        problems.append(f"the record says {t.value}, but the rebuilt match ended normally")
    faults = tuple(sum(1 for d in result.decisions if d.seat == s and d.fault) for s in (0, 1))
    if any(f > r for f, r in zip(faults, result.faults, strict=True)):
        problems.append(f"{faults} substituted faults, more than the {result.faults} counted")
    if problems:
        raise ReplayError(f"match {result.match_id} does not replay: " + "; ".join(problems))
    return m


# -- a match told hand by hand ---------------------------------------------------------------


@dataclass
class PlayedCard:
    seat: int
    card: int
    elapsed_us: int
    fault: FaultKind | None


@dataclass
class HandStory:
    """One hand as the referee saw it: what was asked and answered, in order."""

    number: int
    first_drawer: int
    double_nil: list[bool] = field(default_factory=lambda: [False, False])
    hands: list[tuple[int, ...]] = field(default_factory=lambda: [(), ()])
    """Each seat's cards when the play began (after the draw and any exchange)."""
    exchanged: list[int | None] = field(default_factory=lambda: [None, None])
    bids: list[tuple[int, int]] = field(default_factory=list)
    """(seat, bid) in bidding order."""
    tricks: list[list[PlayedCard]] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    faults: list[tuple[int, Decision, FaultKind]] = field(default_factory=list)
    result: HandResult | None = None


def hands_of(source: Source) -> list[HandStory]:
    """Replay ``source`` and collect each hand's story (the last one may be unfinished)."""
    seed, rules, decisions = _unpack(source)
    m = Match(seed, rules)
    stories: list[HandStory] = []
    story: HandStory | None = None
    for i, d in enumerate(decisions):
        if story is None or m.hand_number != story.number:
            story = HandStory(number=m.hand_number, first_drawer=m.first_drawer)
            stories.append(story)
        if d.decision is Decision.PLAY and not story.tricks:
            story.hands = [m.hand(0), m.hand(1)]
        _step(m, i, d)
        if d.fault is not None:
            story.faults.append((d.seat, d.decision, d.fault))
        if d.decision is Decision.DOUBLE_NIL and d.action:
            story.double_nil[d.seat] = True
        elif d.decision is Decision.EXCHANGE:
            story.exchanged[d.seat] = len(d.action)  # type: ignore[arg-type]
        elif d.decision is Decision.BID:
            story.bids.append((d.seat, cast(int, d.action)))
        elif d.decision is Decision.PLAY:
            if not story.tricks or len(story.tricks[-1]) == 2:
                story.tricks.append([])
            story.tricks[-1].append(PlayedCard(d.seat, cast(int, d.action), d.elapsed_us, d.fault))
    results = m.hand_results
    for story in stories:
        if story.number <= len(results):
            hr = results[story.number - 1]
            story.result = hr
            story.winners = [t.winner for t in hr.tricks if t.winner is not None]
        else:
            # An unfinished hand: the winners of its completed tricks come from the engine.
            obs = m.observation(0)
            story.winners = [t.winner for t in obs.tricks if t.winner is not None]
    return stories


def _bid_text(bid: int, double_nil: bool) -> str:
    if double_nil:
        return "Double Nil"
    return "Nil" if bid == 0 else str(bid)


_FAULT_TEXT = {
    FaultKind.TIMEOUT: "timed out",
    FaultKind.ILLEGAL_ACTION: "illegal answer",
    FaultKind.MALFORMED_ANSWER: "malformed answer",
    FaultKind.ERROR_STATUS: "error status",
    FaultKind.CRASH: "crashed",
}


def _ending(result: MatchResult) -> str:
    p = result.players
    who = f"seat {result.winner} ({p[result.winner]})" if result.winner is not None else None
    t = result.termination
    if t is Termination.TARGET_REACHED:
        text = f"{who} wins: reached the target of {result.rules.target_score} (R-6.2)"
    elif t is Termination.HAND_LIMIT:
        text = (
            f"{who} wins on the hand limit of {result.rules.max_hands} (R-6.3)"
            if who
            else f"a draw at the hand limit of {result.rules.max_hands} (R-6.3)"
        )
    elif t is Termination.ABORTED:
        text = "aborted, not rated"
    elif who is None:
        text = (
            "no winner: neither bot could be started"
            if (t is Termination.FORFEIT_NO_START)
            else f"no winner ({t.value})"
        )
    else:
        text = f"{who} wins by forfeit ({t.value.removeprefix('forfeit_').replace('_', ' ')})"
    return text


def render_text(
    result: MatchResult,
    *,
    draws: dict[int, list[str]] | None = None,
    view: int | None = None,
) -> str:
    """The match as text a person can follow: per hand the bids, every trick with who played
    which card and who won it, and the scores after the hand. ``draws`` adds each hand's draw
    phase and exchanges (``arena.referee.draw_story.draw_lines``); ``view``, a seat, leaves the
    opponent's hand out."""
    names = result.players
    draws = draws or {}
    draws_view = view
    lines = [
        f"Match {result.match_id}: seat 0 {names[0]} vs seat 1 {names[1]}",
        f"Seed {result.seed}, rules {result.rules.describe()}, engine {result.engine_version}, "
        f"started {result.started_at:%Y-%m-%d %H:%M:%S} UTC",
    ]
    width = max(len(n) for n in names)
    for story in hands_of(result):
        fd = story.first_drawer
        lines.append("")
        lines.append(f"Hand {story.number} (first drawer: {names[fd]})")
        lines.extend(draws.get(story.number, []))
        for s in (0, 1):
            if story.double_nil[s]:
                ex = story.exchanged[s]
                lines.append(
                    f"  {names[s]} declares Double Nil"
                    + (f", exchanges {ex} card{'s' * (ex != 1)}" if ex is not None else "")
                )
        if story.hands[0] or story.hands[1]:
            for s in (0, 1):
                if draws_view in (0, 1) and s != draws_view:
                    continue  # a seat's view: not the opponent's hand (it shows in the play)
                lines.append(f"  {names[s]:<{width}} holds {format_cards(story.hands[s])}")
        if story.bids or any(story.double_nil):
            bids = [f"{names[s]} {_bid_text(b, False)}" for s, b in story.bids] + [
                f"{names[s]} Double Nil" for s in (0, 1) if story.double_nil[s]
            ]
            lines.append("  Bids: " + ", ".join(bids))
        for t, trick in enumerate(story.tricks):
            cards = ", ".join(
                f"{names[c.seat]} {card_name(c.card)}"
                + (f" [substituted: {_FAULT_TEXT[c.fault]}]" if c.fault else "")
                for c in trick
            )
            won = f" -> {names[story.winners[t]]}" if t < len(story.winners) else " (unfinished)"
            lines.append(f"  {t + 1:>2}. {cards}{won}")
        other_faults = [f for f in story.faults if f[1] is not Decision.PLAY]
        for seat, decision, kind in other_faults:
            lines.append(f"  {names[seat]}: {decision.value} substituted ({_FAULT_TEXT[kind]})")
        hr = story.result
        if hr is None:
            lines.append("  (the hand was not finished)")
            continue
        for s in (0, 1):
            penalty = f", sandbag penalty {hr.bag_penalties[s]}" if hr.bag_penalties[s] else ""
            lines.append(
                f"  {names[s]:<{width}} bid {_bid_text(hr.bids[s], hr.double_nil[s])}, "
                f"won {hr.tricks_won[s]}: {hr.points[s]:+d}{penalty} -> score {hr.scores[s]} "
                f"(bags {hr.bags[s]})"
            )
    lines.append("")
    lines.append(summary_text(result, header=False))
    return "\n".join(lines)


def summary_text(result: MatchResult, *, header: bool = True) -> str:
    """A few lines: who played, how it ended, the scores, the faults, the time taken."""
    names = result.players
    lines = []
    if header:
        lines.append(
            f"Match {result.match_id}: seat 0 {names[0]} vs seat 1 {names[1]}, seed {result.seed}"
            f", rules {result.rules.describe()}"
        )
    lines.append(
        f"Result: {_ending(result)}. Scores {names[0]} {result.scores[0]}, "
        f"{names[1]} {result.scores[1]} after {result.hands_played} hands."
    )
    times = [[d.elapsed_us for d in result.decisions if d.seat == s] for s in (0, 1)]
    if times[0] or times[1]:
        lines.append(
            "Time per decision: "
            + ", ".join(
                f"{names[s]} mean {sum(t) / len(t) / 1000:.1f} ms, max {max(t) / 1000:.1f} ms "
                f"({len(t)} decisions)"
                for s, t in enumerate(times)
                if t
            )
            + "."
        )
    if result.faults != (0, 0):
        lines.append(f"Faults: {names[0]} {result.faults[0]}, {names[1]} {result.faults[1]}.")
    if result.detail:
        lines.append(f"Detail: {result.detail}")
    return "\n".join(lines)


def replay_to_dict(result: MatchResult) -> dict[str, Any]:
    """The replayed match as JSON-ready data: the record's summary and every hand's story."""
    hands = []
    for story in hands_of(result):
        hr = story.result
        hands.append(
            {
                "hand_number": story.number,
                "first_drawer": story.first_drawer,
                "double_nil": story.double_nil,
                "exchanged": story.exchanged,
                "holdings": [[card_name(c) for c in h] for h in story.hands],
                "bids": [{"seat": s, "bid": b} for s, b in story.bids],
                "tricks": [
                    {
                        "cards": [
                            {"seat": c.seat, "card": card_name(c.card), "elapsed_us": c.elapsed_us}
                            | ({"fault": c.fault.value} if c.fault else {})
                            for c in trick
                        ],
                        "winner": story.winners[t] if t < len(story.winners) else None,
                    }
                    for t, trick in enumerate(story.tricks)
                ],
                "result": None
                if hr is None
                else {
                    "bids": list(hr.bids),
                    "tricks_won": list(hr.tricks_won),
                    "points": list(hr.points),
                    "bag_penalties": list(hr.bag_penalties),
                    "scores": list(hr.scores),
                    "bags": list(hr.bags),
                },
            }
        )
    summary = result_to_dict(result)
    for key in ("started_at", "finished_at", "decisions"):
        del summary[key]
    return summary | {"hands": hands}
