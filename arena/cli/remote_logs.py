"""``arena match logs --server`` and ``arena match list --server``: the same output as the local
commands, from a running arena service."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.cli.remote import connect
from arena.errors import ArenaError


def match_log(
    server: str, token: str | None, match_id: str, seat: int, *, ca_file: Path | None = None
) -> str:
    """The seat's log as the server keeps it; only the bot's owner may read it."""
    with connect(server, token, ca_file) as client:
        got = client.match_log(match_id, seat)
    if not got.kept:
        raise ArenaError(f"the server kept no log of seat {seat} of match {match_id}")
    return str(got.text)


def list_matches(
    server: str,
    token: str | None,
    *,
    tournament_id: int | None,
    bot: str | None,
    ca_file: Path | None = None,
) -> list[dict[str, Any]]:
    """Every match the server lists (all its pages), oldest first, as ``match_row`` gives
    them locally."""
    from arena.bot_protocol.messages import termination_from_pb
    from arena.service.convert import from_timestamp

    out: list[dict[str, Any]] = []
    with connect(server, token, ca_file) as client:
        page = ""
        while True:
            got = client.list_matches(
                tournament_id=tournament_id or 0,
                bot=(bot or "").split("@", 1)[0],
                page_size=1000,
                page_token=page,
            )
            for m in got.matches:
                seats = [f"{s.bot}@{s.version}" if s.version else s.bot for s in m.seats]
                if bot and "@" in bot and bot not in seats:
                    continue
                out.append(
                    {
                        "match_id": m.id,
                        "sequence": None,
                        "tournament_id": m.tournament_id or None,
                        "seats": seats,
                        "winner": m.winner if m.HasField("winner") else None,
                        "scores": [s.score for s in m.seats],
                        "hands_played": m.hands_played,
                        "termination": termination_from_pb(m.termination),
                        "faults": [s.faults for s in m.seats],
                        "rated": m.rated,
                        "unrated_reason": m.unrated_reason or None,
                        "reason": m.detail,
                        # A sealed match's seed is the server's secret (arena.visibility).
                        "seed": None if m.sealed else m.seed,
                        "sealed": m.sealed,
                        "finished_at": from_timestamp(m.finished_at).isoformat(
                            timespec="seconds"
                        ),
                    }
                )
            page = got.next_page_token
            if not page:
                break
    return list(reversed(out))
