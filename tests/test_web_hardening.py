"""The web arena under attack, for real: a Hypercorn server on 127.0.0.1, raw sockets, httpx
and Debian's chromium (issue 28, section 5).

Covered: connections that never finish their request head are closed; live event streams are
capped per address and in total, and a refused page falls back to polling; every response
carries the security headers and the pages run under the Content-Security-Policy without a
violation.
"""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from random import Random

import httpx
import pytest

from arena.referee.record import DecisionRecord, MatchResult, Termination
from arena.rules import ENGINE_VERSION, Match, RuleSet
from arena.store import Store
from arena.tournament import TournamentSettings, create_tournament
from arena.web import WebServer
from arena.web.app import WebConfig

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots"
CHROMIUM = "/usr/bin/chromium"
RULES = RuleSet(max_hands=1)
HEAD_TIMEOUT_S = 2.0
ATTACKERS = 300


@dataclass
class Site:
    store: Store
    server: WebServer
    url: str
    played: int
    """A tournament with a recorded match."""


def engine_match(match_id: str, seed: int, rng_seed: int = 1) -> MatchResult:
    """A match played through the engine by two random players (a real record, no bots)."""
    m = Match(seed, RULES)
    rng = Random(rng_seed)
    decisions = []
    while not m.is_over:
        action = m.random_action(rng)
        decisions.append(DecisionRecord(m.to_act, m.decision, action, 100 + len(decisions)))
        m.apply(action)
    assert m.outcome is not None
    now = datetime.now(UTC)
    return MatchResult(
        match_id=match_id, seed=seed, rules=RULES, engine_version=ENGINE_VERSION,
        players=("random", "heuristic"), winner=m.outcome.winner, scores=m.scores,
        hands_played=m.outcome.hands_played, termination=Termination.HAND_LIMIT, faults=(0, 0),
        detail="", decisions=tuple(decisions), started_at=now, finished_at=now,
    )  # fmt: skip


def new_tournament(store: Store, seed: int) -> int:
    return create_tournament(
        store,
        TournamentSettings(
            bots=[str(SAMPLES / "random"), str(SAMPLES / "heuristic")], games=2, seed=seed,
            rules=RULES,
        ),
    )  # fmt: skip


def play_one(store: Store, tid: int) -> str:
    """Record the next pending game of tournament ``tid`` (as a runner would); its match id."""
    game = store.pending_games(tid)[0]
    result = engine_match(f"t{tid}-g{game.ordinal}", game.seed, game.ordinal)
    store.record_match(result, seat_versions=game.seat_versions, tournament_game_id=game.id)
    return result.match_id


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("web-hardening")
    store = Store.open(str(folder / "arena.db"))
    played = new_tournament(store, 3)
    play_one(store, played)
    config = WebConfig(
        live_interval_s=0.2, request_head_timeout_s=HEAD_TIMEOUT_S, max_streams=6,
        max_streams_per_address=3,
    )  # fmt: skip
    server = WebServer(store, "127.0.0.1:0", config)
    server.start()
    try:
        yield Site(store, server, server.url.rstrip("/"), played)
    finally:
        server.stop()
        store.close()


# -- slow request heads ----------------------------------------------------------------------


def _closed_by_server(sock: socket.socket) -> bool:
    """Whether the server has closed this connection (reading gives EOF or a reset)."""
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        while chunk := sock.recv(65536):
            del chunk
            readable, _, _ = select.select([sock], [], [], 0)
            if not readable:
                return False
    except (ConnectionResetError, BlockingIOError):
        return True
    return True


def test_connections_that_never_finish_their_request_head_are_closed(site: Site) -> None:
    """On main (uvicorn), 300 such connections were all still held after 30 s. A third of them
    trickle a byte of header every half second, which must not buy them time."""
    host, port = site.server.host, site.server.port
    attackers = []
    try:
        for _ in range(ATTACKERS):
            sock = socket.create_connection((host, port), timeout=10)
            sock.sendall(b"GET / HTTP/1.1\r\nHost: arena\r\nX-Slow: ")
            attackers.append(sock)
        opened = time.monotonic()
        # The site still answers while they hang on.
        assert httpx.get(f"{site.url}/api/tournaments", timeout=10).status_code == 200
        open_ = list(attackers)
        while open_ and time.monotonic() - opened < HEAD_TIMEOUT_S + 8:
            for sock in open_[: ATTACKERS // 3]:
                # A write to a connection the server has just closed may fail: that is the point.
                with contextlib.suppress(OSError):
                    sock.send(b"x")
            time.sleep(0.5)
            open_ = [s for s in open_ if not _closed_by_server(s)]
        took = time.monotonic() - opened
        assert open_ == [], f"{len(open_)} of {ATTACKERS} still open after {took:.1f} s"
        assert took >= HEAD_TIMEOUT_S - 0.5  # not refused at once: given their time, no more
    finally:
        for sock in attackers:
            sock.close()
    # A whole request on a fresh connection is served as ever.
    assert httpx.get(f"{site.url}/api/tournaments", timeout=10).status_code == 200
