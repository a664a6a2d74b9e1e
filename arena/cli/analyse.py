"""``arena analyse MATCH | --tournament ID | --bot NAME``: where the card play lost points.

Every card played is valued double-dummy (arena.analysis: both hands known, perfect play from
there on, in hand points under the match's rule set); its par loss is what it gave away against
the best card. Per player: card-play loss per hand with a 95 % interval, its blunders, and its
bids beside the tricks it could have taken.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Annotated, Any

import typer

from arena.analysis import LossSummary, MatchAnalysis, PlayClass, analysis_to_dict
from arena.cli.local import LocalArena
from arena.cli.options import DbOption
from arena.errors import ArenaError
from arena.referee.analysed import PlayerLoss, analyse_result, losses_by_player
from arena.rules import card_name
from arena.rules.errors import RulesError
from arena.store import Store

WORST = 5
"""Costliest plays shown per player."""


def analyse(
    match_id: Annotated[
        str | None,
        typer.Argument(help="A recorded match id, or a file from `arena match --json`."),
    ] = None,
    tournament: Annotated[
        int | None, typer.Option("--tournament", help="Every match of this tournament.")
    ] = None,
    bot: Annotated[
        str | None, typer.Option("--bot", help="Every recorded match of this bot, by version.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    db: DbOption = None,
) -> None:
    """Double-dummy analysis of the card play: par loss of every card, card-play loss per hand
    of each player (95 % interval), blunders, bids beside double-dummy tricks."""
    if sum(x is not None for x in (match_id, tournament, bot)) != 1:
        raise typer.BadParameter("name one of MATCH_ID, --tournament ID or --bot NAME")
    if match_id is not None:
        result = LocalArena(db).match_record(match_id)
        analysis = _analysed(result)
        players = losses_by_player([(result, analysis)])
        if as_json:
            data = {
                "match_id": result.match_id,
                "players": list(result.players),
                "analysis": analysis_to_dict(analysis),
                "card_play_loss": [_player_dict(players[p]) for p in result.players],
            }
            typer.echo(json.dumps(data))
        else:
            typer.echo(_match_text(result.match_id, result.players, analysis, players))
        return
    with Store.open(db) as store:
        if tournament is not None:
            store.get_tournament(tournament)  # NotFoundError names it
            summaries = store.list_matches(tournament_id=tournament)
            title = f"tournament {tournament}"
        else:
            assert bot is not None
            if not store.list_versions(bot):
                raise ArenaError(f"no bot named {bot!r}")
            summaries = store.list_matches(bot=bot)
            title = f"bot {bot}"
        pairs = [(s, _stored(store, s.match_id)) for s in summaries]
    players = losses_by_player(pairs)
    if bot is not None:
        players = {k: v for k, v in players.items() if k.rpartition("@")[0] == bot}
    rows = sorted(players.values(), key=lambda p: _mean(p))
    if as_json:
        typer.echo(
            json.dumps(
                {"scope": title, "matches": len(pairs), "players": [_player_dict(p) for p in rows]}
            )
        )
    else:
        typer.echo(_players_text(f"{title}: {len(pairs)} matches analysed", rows))


def _stored(store: Any, match_id: str) -> MatchAnalysis:
    """The stored analysis (made and stored now if there is none of the current solver)."""
    try:
        return store.analysis_for(match_id)
    except (RulesError, ValueError) as exc:
        raise ArenaError(f"cannot analyse match {match_id}: {exc}") from None


def _analysed(result: Any) -> MatchAnalysis:
    try:
        return analyse_result(result)
    except (RulesError, ValueError) as exc:
        raise ArenaError(f"cannot analyse match {result.match_id}: {exc}") from None


def _mean(p: PlayerLoss) -> float:
    s = p.summary()
    return s.mean if s else float("inf")


def _interval(s: LossSummary | None, digits: int = 1) -> str:
    if s is None:
        return "no complete hand" if digits == 1 else "-"
    if s.low is None or s.high is None:
        return f"{s.mean:.{digits}f}"
    return f"{s.mean:.{digits}f} [{s.low:.{digits}f}, {s.high:.{digits}f}]"


def _bid_gap(p: PlayerLoss) -> str:
    if not p.bids:
        return "-"
    gap = sum(b - t for b, t in p.bids) / len(p.bids)
    return f"{gap:+.2f}"


def _player_dict(p: PlayerLoss) -> dict[str, Any]:
    s = p.summary()
    return {
        "player": p.player,
        "matches": p.matches,
        "wins": p.wins,
        "card_play_loss": s.to_dict() if s else None,
        "trick_loss": t.to_dict() if (t := p.trick_summary()) else None,
        "plays": len(p.plays),
        "classes": {k.value: p.count(k) for k in PlayClass},
        "bid_minus_dd_tricks": (sum(b - t for b, t in p.bids) / len(p.bids) if p.bids else None),
        "worst": [_play_dict(m, play) for m, play in p.worst(WORST)],
    }


def _play_dict(match_id: str, p: Any) -> dict[str, Any]:
    return {
        "match_id": match_id,
        "step": p.step,
        "hand_number": p.hand_number,
        "trick": p.trick,
        "card": card_name(p.card),
        "loss": p.loss,
        "class": p.kind.value,
        "best": [card_name(c) for c in p.best],
    }


def _players_text(title: str, rows: Iterable[PlayerLoss]) -> str:
    lines = [
        title,
        "card-play loss: mean par loss per hand in hand points, and double-dummy tricks given "
        "away per hand without Nil, 95 % intervals; bid-dd: mean bid minus double-dummy tricks",
        f"{'player':<24} {'matches':>7} {'wins':>5} {'hands':>6}  {'loss/hand':<22}"
        f"{'tricks/hand':<20}{'mistakes':>9} {'blunders':>9} {'bid-dd':>7}",
    ]
    worst: list[str] = []
    for p in rows:
        s = p.summary()
        lines.append(
            f"{p.player:<24} {p.matches:>7} {p.wins:>5} {s.hands if s else 0:>6}  "
            f"{_interval(s):<22}{_interval(p.trick_summary(), 2):<20}"
            f"{p.count(PlayClass.MISTAKE):>9}"
            f"{p.count(PlayClass.BLUNDER):>9} {_bid_gap(p):>7}"
        )
        for match_id, play in p.worst(WORST):
            if play.loss:
                worst.append(
                    f"  {p.player}: {card_name(play.card)} in match {match_id}, hand "
                    f"{play.hand_number} trick {play.trick} (step {play.step}): -{play.loss} "
                    f"({play.kind.value}; best {' '.join(card_name(c) for c in play.best)})"
                )
    if worst:
        lines += ["costliest plays:", *worst]
    return "\n".join(lines)


def _match_text(
    match_id: str,
    players: tuple[str, str],
    analysis: MatchAnalysis,
    losses: dict[str, PlayerLoss],
) -> str:
    lines = [
        f"match {match_id}: {players[0]} (seat 0) against {players[1]} (seat 1); "
        f"solver {analysis.solver_version}",
        "par: the hand's score difference for seat 0 under perfect play from the first lead; "
        "loss: par loss of each seat's cards in the hand",
        f"{'hand':>4}  {'bids':<9} {'dd tricks':<9} {'par':>6} {'loss 0':>7} {'loss 1':>7}  "
        "blunders",
    ]
    for h in analysis.hands:
        bids = "/".join(
            "DN" if h.double_nil[s] else ("nil" if h.bids[s] == 0 else str(h.bids[s]))
            for s in (0, 1)
        )
        blunders = ", ".join(
            f"{p.seat}:{card_name(p.card)} t{p.trick} -{p.loss}"
            for p in h.plays
            if p.kind is PlayClass.BLUNDER
        )
        mark = "" if h.complete else " (cut short)"
        lines.append(
            f"{h.hand_number:>4}  {bids:<9} {h.dd_tricks[0]}/{h.dd_tricks[1]:<7} {h.par:>+6} "
            f"{h.loss(0):>7} {h.loss(1):>7}  {blunders}{mark}"
        )
    lines.append("")
    lines.append(_players_text("card-play loss", [losses[p] for p in dict.fromkeys(players)]))
    return "\n".join(lines)
